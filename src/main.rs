//! `decode`: the command line (src/cli) run, its outcome as the exit status.

// The binary is where output is printed.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
