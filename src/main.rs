//! `decode`: parse the arguments, run the command, map the outcome to an
//! exit status: 0 decoded, 1 the input was turned down, 2 usage or I/O
//! errors. A closed pipe (`decode big.pb | head`) is not an error.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cli;

use clap::Parser;
use std::io;
use std::process::ExitCode;

fn main() -> ExitCode {
    // `decode serve ...` is the explorer, with arguments of its own.
    if std::env::args_os().nth(1).is_some_and(|a| a == "serve") {
        return cli::serve::main();
    }
    // `decode diff A B` compares tensors, folders or models.
    if std::env::args_os().nth(1).is_some_and(|a| a == "diff") {
        return cli::diff::main();
    }
    let args = match cli::Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli::run(&args) {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("decode: {e}");
            ExitCode::from(2)
        }
    }
}
