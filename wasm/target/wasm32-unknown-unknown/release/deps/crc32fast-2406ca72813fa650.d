/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/crc32fast-2406ca72813fa650.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/baseline.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/combine.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/specialized/mod.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/table.rs

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/libcrc32fast-2406ca72813fa650.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/baseline.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/combine.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/specialized/mod.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/table.rs

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/libcrc32fast-2406ca72813fa650.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/baseline.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/combine.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/specialized/mod.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/table.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/baseline.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/combine.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/specialized/mod.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/crc32fast-1.5.5/src/table.rs:
