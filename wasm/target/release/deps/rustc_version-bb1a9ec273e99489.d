/work/wt-wasm/wasm/target/release/deps/rustc_version-bb1a9ec273e99489.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.4.1/src/lib.rs

/work/wt-wasm/wasm/target/release/deps/librustc_version-bb1a9ec273e99489.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.4.1/src/lib.rs

/work/wt-wasm/wasm/target/release/deps/librustc_version-bb1a9ec273e99489.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.4.1/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.4.1/src/lib.rs:
