/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/cfg_if-8d6cb6dc22152dca.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cfg-if-1.0.5/src/lib.rs

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/libcfg_if-8d6cb6dc22152dca.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cfg-if-1.0.5/src/lib.rs

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/libcfg_if-8d6cb6dc22152dca.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cfg-if-1.0.5/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cfg-if-1.0.5/src/lib.rs:
