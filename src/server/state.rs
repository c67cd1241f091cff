//! What every request handler of the server shares: its configuration and
//! the state of a running server.

use super::files::Files;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

/// How the server is set up.
#[derive(Debug, Clone)]
pub struct Config {
    /// Files and folders served.
    pub paths: Vec<std::path::PathBuf>,
    pub bind: IpAddr,
    /// 0: any free port.
    pub port: u16,
    /// The largest upload accepted, in bytes.
    pub max_upload: u64,
    /// Worker threads.
    pub workers: usize,
    /// Time allowed for a request head to arrive (connections waiting for
    /// theirs hold no worker).
    pub head_timeout: Duration,
    /// Time allowed for each read of a request body and each write of a
    /// response.
    pub io_timeout: Duration,
    /// The token; None makes a random one (tests may fix it).
    pub token: Option<String>,
}

/// The default upload limit: 8 GiB.
pub const DEFAULT_MAX_UPLOAD: u64 = 8 << 30;

impl Default for Config {
    fn default() -> Self {
        Config {
            paths: Vec::new(),
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            max_upload: DEFAULT_MAX_UPLOAD,
            workers: 8,
            head_timeout: Duration::from_secs(10),
            io_timeout: Duration::from_secs(30),
            token: None,
        }
    }
}

pub(crate) struct State {
    pub files: Files,
    /// The credential of this run.
    pub token: String,
    /// One-time codes not yet traded for the token.
    pub codes: std::sync::Mutex<Vec<String>>,
    pub port: u16,
    pub config: Config,
}
