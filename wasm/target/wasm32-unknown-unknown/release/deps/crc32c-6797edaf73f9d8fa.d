/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/crc32c-6797edaf73f9d8fa.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/combine.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/hasher.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/io.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/sw.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/util.rs /work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/build/crc32c-90f9a4250c394b13/out/sw.table

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/libcrc32c-6797edaf73f9d8fa.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/combine.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/hasher.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/io.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/sw.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/util.rs /work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/build/crc32c-90f9a4250c394b13/out/sw.table

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/libcrc32c-6797edaf73f9d8fa.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/combine.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/hasher.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/io.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/sw.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/util.rs /work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/build/crc32c-90f9a4250c394b13/out/sw.table

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/combine.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/hasher.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/io.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/sw.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32c-0.6.9/src/util.rs:
/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/build/crc32c-90f9a4250c394b13/out/sw.table:

# env-dep:OUT_DIR=/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/build/crc32c-90f9a4250c394b13/out
