//! `decode`: the command line (src/cli) run, its outcome as the exit status.

// Output is printed by src/cli: the views through their writers, messages
// through src/cli/stderr.rs, the one module allowed to print.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
