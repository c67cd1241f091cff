//! Lists the tensors of a file with their role, type, shape and first
//! values, through the library's facade:
//!
//! ```text
//! cargo run --example tensors -- tests/fixtures/onnx-model/everything.onnx
//! ```

// A program, like src/main.rs: it prints, every name a file controls
// escaped by the one escaping primitive.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use pbdecode::escape::{plain, quoted_str};
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: tensors FILE");
        return ExitCode::from(2);
    };
    match list(path.as_ref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tensors: {}", plain(&e.to_string()));
            ExitCode::from(1)
        }
    }
}

fn list(path: &std::path::Path) -> Result<(), pbdecode::Error> {
    let doc = pbdecode::open(path)?;
    println!("{} ({} tensors)", doc.format().title, doc.tensors().len());
    for r in doc.tensors() {
        let t = doc.tensor(r)?;
        let dtype = t.data_type().map_or(t.type_name(), |d| d.numpy_name());
        let first = match t.values() {
            Ok(v) => format!("{:.60}", format!("{:?}", v.widen())),
            Err(e) => format!("({e})"),
        };
        println!(
            "{} {:?} {} {:?} {:?} {}: {}",
            quoted_str(t.name()),
            t.role(),
            plain(dtype),
            t.dims().unwrap_or(&[]),
            t.storage(),
            match r.path_text() {
                p if p.is_empty() => "(the file)".to_string(),
                p => format!("at {}", plain(&p)),
            },
            plain(&first),
        );
    }
    Ok(())
}
