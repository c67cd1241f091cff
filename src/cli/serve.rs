//! `decode serve [PATH...]`: the explorer, a local page that opens the
//! files given (and any file dropped on it).

use super::outcome::Outcome;
use pbdecode::server::{self, Config, Server};
use std::io;
use std::net::IpAddr;
use std::path::PathBuf;

/// The arguments of `decode serve` (its help text is the doc comment of
/// `Command::Serve`).
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Files, and folders whose files (recursively) are listed on the page.
    paths: Vec<PathBuf>,
    /// The port; 0 takes any free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The address to listen on. Anything but loopback lets other machines
    /// reach the server (they still need the token).
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    bind: IpAddr,
    /// Open the page in the default browser (with a one-time address, not
    /// the token).
    #[arg(long)]
    open: bool,
    /// The largest file that can be dropped on the page (e.g. 512M, 8G).
    #[arg(long, default_value = "8G", value_name = "SIZE")]
    max_upload: String,
}

/// Runs `decode serve`.
pub fn run(args: &ServeArgs) -> io::Result<Outcome> {
    let Some(max_upload) = server::parse_size(&args.max_upload) else {
        say!(
            "decode serve: --max-upload takes a size such as 512M or 8G, not {:?}",
            args.max_upload
        );
        return Ok(Outcome::Usage);
    };
    let config = Config {
        paths: args.paths.clone(),
        bind: args.bind,
        port: args.port,
        max_upload,
        ..Config::default()
    };
    let server = match Server::bind(config) {
        Ok(s) => s,
        Err(e) => {
            say!("decode serve: {e}");
            return Ok(Outcome::Failed);
        }
    };
    if !server.is_loopback() {
        say!(
            "decode serve: warning: listening on {}, reachable from other machines (they still need the token)",
            args.bind
        );
    }
    let url = server.url();
    super::stderr::out_line(format_args!("pbdecode explorer: {url}"));
    super::stderr::out_line(format_args!("(Ctrl-C stops it)"));
    if args.open {
        // A one-time address: a browser's command line is visible to every
        // user of the machine, and this one is worthless once opened.
        match server.one_time_url() {
            Ok(once) => open_browser(&once),
            Err(e) => {
                say!("decode serve: could not open a browser ({e}); open the address above")
            }
        }
    }
    server.run()?;
    Ok(Outcome::Done)
}

fn open_browser(url: &str) {
    let result = if cfg!(target_os = "macos") {
        std::process::Command::new("open").arg(url).spawn()
    } else if cfg!(windows) {
        std::process::Command::new("cmd")
            .args(["/C", "start", "", url])
            .spawn()
    } else {
        std::process::Command::new("xdg-open").arg(url).spawn()
    };
    if let Err(e) = result {
        say!("decode serve: could not open a browser ({e}); open the address above");
    }
}
