/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/pbdecode_wasm.d: src/lib.rs

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/pbdecode_wasm.wasm: src/lib.rs

/work/wt-wasm/wasm/target/wasm32-unknown-unknown/release/deps/libpbdecode_wasm.rlib: src/lib.rs

src/lib.rs:
