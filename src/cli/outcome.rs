//! How a command ended: what every mode returns, made the exit status in
//! one place ([`super::exit_code`]). A leaf, so that every module of the
//! command can name it.

/// How a command ended. [`super::exit_code`] is the one place an outcome
/// becomes the exit status, for `decode`, `decode diff` and `decode serve`
/// alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0: decoded, written, compared within tolerance (and `--help`).
    Done,
    /// Exit 1: the input did not pass: turned down by a check, values
    /// outside the tolerance, a `--strict` mismatch, no tensor of the name
    /// asked for, nothing to draw or export.
    Rejected,
    /// Exit 2: the command line asks for what cannot be done (a bad or
    /// unused flag, a missing argument).
    Usage,
    /// Exit 2: a file could not be read or written.
    Failed,
}
