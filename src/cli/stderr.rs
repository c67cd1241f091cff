//! The one place the command line prints messages: to standard error, and
//! the few lines to standard output that are not a view (the explorer's
//! address). Each line is escaped whole by the one escaping primitive
//! ([`plain`]), so a file name or a string from a file, which most messages
//! repeat, can neither send a control sequence nor fake a line. Clippy's
//! `print_stdout`/`print_stderr` lints are allowed in this module only.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use super::outcome::Outcome;
use clap::ArgMatches;
use pbdecode::escape::plain;
use std::ffi::OsString;
use std::io::{self, Write};

/// `say!("decode: {}: ...", file)`: one message line on standard error,
/// escaped ([`line()`]).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::stderr::line(format_args!($($arg)*))
    };
}

/// A usage error: `decode: MSG` on standard error, exit status 2.
pub(crate) fn usage(msg: &str) -> io::Result<Outcome> {
    say!("decode: {msg}");
    Ok(Outcome::Usage)
}

/// One message line on standard error, every unsafe character in it
/// escaped (a message holding a line end shows it as `\n`). A standard
/// error that cannot be written to is not an error of the run.
pub fn line(args: std::fmt::Arguments<'_>) {
    let text = args.to_string();
    let mut err = io::stderr().lock();
    let _ = err
        .write_all(plain(&text).as_bytes())
        .and_then(|()| err.write_all(b"\n"));
}

/// A progress line redrawn in place (`\r` first, no line end), escaped.
pub fn redraw(args: std::fmt::Arguments<'_>) {
    let text = args.to_string();
    let mut err = io::stderr().lock();
    let _ = err
        .write_all(b"\r")
        .and_then(|()| err.write_all(plain(&text).as_bytes()))
        .and_then(|()| err.flush());
}

/// Blanks a redrawn line of up to `width` characters, leaving the cursor at
/// its start.
pub fn clear_redrawn(width: usize) {
    let mut err = io::stderr().lock();
    let _ = write!(err, "\r{}\r", " ".repeat(width)).and_then(|()| err.flush());
}

/// One line on standard output, escaped, outside the views.
pub fn out_line(args: std::fmt::Arguments<'_>) {
    let text = args.to_string();
    let mut out = io::stdout().lock();
    let _ = out
        .write_all(plain(&text).as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
}

/// The arguments parsed as `P` with clap's matches (which tell the flags
/// given from their defaults), or the outcome after clap's message:
/// `--help` and `--version` are done, argument errors a usage error.
/// Clap's error repeats the value it turned down (a file name, when a
/// shell glob expands to one starting with `-`); when an argument holds a
/// character to escape, the message is made again from the escaped
/// arguments, so that it shows the value escaped.
pub fn parse_args<P: clap::Parser>(argv: Vec<OsString>) -> Result<(P, ArgMatches), Outcome> {
    let e = match P::command()
        .try_get_matches_from(&argv)
        .and_then(|m| P::from_arg_matches(&m).map(|p| (p, m)))
    {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e,
    };
    let escaped: Vec<OsString> = argv
        .iter()
        .map(|a| OsString::from(plain(&a.to_string_lossy()).into_owned()))
        .collect();
    if !e.use_stderr() || escaped == argv {
        let _ = e.print();
        return Err(if e.use_stderr() {
            Outcome::Usage
        } else {
            Outcome::Done
        });
    }
    match P::try_parse_from(escaped) {
        // Display leaves out clap's colours.
        Err(again) if again.kind() == e.kind() => {
            for l in again.render().to_string().lines() {
                line(format_args!("{l}"));
            }
        }
        // Escaping changed the outcome: the first message as one line.
        _ => line(format_args!("{}", e.render())),
    }
    Err(Outcome::Usage)
}

/// For an error in a text file, its line, and a caret under the column.
pub(crate) fn show_line(text: &[u8], e: &pbdecode::error::DecodeError) {
    let Some((line, column)) = e.line_column() else {
        return;
    };
    let Some(content) = text
        .split(|&b| b == b'\n')
        .nth(usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX))
    else {
        return;
    };
    // Tabs as the columns count them (to the next multiple of 8), so the
    // caret stands under the column; the rest escaped as any text.
    let mut shown = String::new();
    for c in String::from_utf8_lossy(content).chars() {
        if c == '\t' {
            shown.push(' ');
            while !shown.chars().count().is_multiple_of(8) {
                shown.push(' ');
            }
        } else if c != '\r' {
            shown.push(c);
        }
    }
    let long = shown.chars().count() > 160;
    let shown: String = shown.chars().take(160).collect();
    let caret = usize::try_from(column.saturating_sub(1))
        .unwrap_or(0)
        .min(160);
    say!("  {line:>5} | {shown}{}", if long { " …" } else { "" });
    say!("        | {}^", " ".repeat(caret));
}
