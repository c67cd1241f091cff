/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/adler2-d12f2fcbf5e7df3b.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/adler2-2.0.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/adler2-2.0.1/src/algo.rs

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/libadler2-d12f2fcbf5e7df3b.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/adler2-2.0.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/adler2-2.0.1/src/algo.rs

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/libadler2-d12f2fcbf5e7df3b.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/adler2-2.0.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/adler2-2.0.1/src/algo.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/adler2-2.0.1/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/adler2-2.0.1/src/algo.rs:
