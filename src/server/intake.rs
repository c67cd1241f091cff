//! The connection loop: one thread accepts connections and gathers their
//! request heads, polling every connection whose head is still incomplete,
//! so a client that connects and sends nothing holds no worker (only a
//! place among [`MAX_WAITING`], until its head deadline). A complete head
//! goes to the workers through a bounded queue; when it is full the
//! request is answered 503 at once.
//!
//! At the descriptor limit (EMFILE, ENFILE) `accept` fails while the
//! connection stays queued, so a plain loop would spin on it. As libuv and
//! nginx do, the loop keeps one descriptor in reserve: it lets it go,
//! accepts the connection, closes it (the client sees the connection
//! closed), and takes the reserve again. When that does not help, it stops
//! accepting for [`ACCEPT_PAUSE`] and keeps serving the connections it has.

use super::http::{self, Request};
use crate::explore::Response;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::time::{Duration, Instant};

/// The most connections waiting for their request head; past it the one
/// that has waited longest is closed.
pub const MAX_WAITING: usize = 256;
/// Connections accepted per wake-up, so that heads keep being read while
/// connections pour in.
const ACCEPT_BURST: usize = 64;
/// How long accepting stops when `accept` fails in a way that accepting
/// again at once would not cure.
pub const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// What the connection loop did, for those who watch a server (and tests).
#[derive(Debug, Default)]
pub struct Counters {
    accept_calls: AtomicU64,
    closed_at_limit: AtomicU64,
    closed_waiting: AtomicU64,
}

impl Counters {
    /// Calls of `accept`, successful or not.
    pub fn accept_calls(&self) -> u64 {
        self.accept_calls.load(Ordering::Relaxed)
    }

    /// Connections closed unread because the process had no descriptor
    /// to spare.
    pub fn closed_at_limit(&self) -> u64 {
        self.closed_at_limit.load(Ordering::Relaxed)
    }

    /// Connections closed because [`MAX_WAITING`] others were waiting.
    pub fn closed_waiting(&self) -> u64 {
        self.closed_waiting.load(Ordering::Relaxed)
    }
}

/// A connection whose request head is not complete yet.
struct Waiting {
    stream: TcpStream,
    head: Vec<u8>,
    deadline: Instant,
}

/// The reserve descriptor.
pub fn reserve() -> io::Result<File> {
    File::open("/dev/null")
}

pub(super) struct Intake<'a> {
    pub listener: &'a TcpListener,
    pub reserve: Option<File>,
    pub head_timeout: Duration,
    pub stop: &'a AtomicBool,
    pub queue: SyncSender<(TcpStream, Request)>,
    pub counters: &'a Counters,
}

/// Answers a connection the loop gives up on (small enough for an empty
/// send buffer; a client that does not read loses it) and closes it.
fn answer(stream: TcpStream, status: u16, message: &str) {
    let mut stream = stream;
    let _ = Response::error(status, message).write_to(&mut stream, false);
}

impl Intake<'_> {
    /// Runs until stopped (or the workers are gone).
    pub fn run(mut self) -> io::Result<()> {
        self.listener.set_nonblocking(true)?;
        let mut waiting: VecDeque<Waiting> = VecDeque::new();
        let mut paused_until: Option<Instant> = None;
        let mut chunk = [0u8; 4096];
        let mut fds: Vec<libc::pollfd> = Vec::new();
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Ok(());
            }
            let now = Instant::now();
            // Heads that took too long.
            while let Some(i) = waiting.iter().position(|w| w.deadline <= now) {
                if let Some(w) = waiting.remove(i) {
                    answer(w.stream, 408, "the request head took too long");
                }
            }
            if paused_until.is_some_and(|t| t <= now) {
                paused_until = None;
            }
            let listening = paused_until.is_none();
            fds.clear();
            if listening {
                fds.push(libc::pollfd {
                    fd: self.listener.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
            fds.extend(waiting.iter().map(|w| libc::pollfd {
                fd: w.stream.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            }));
            let wake = waiting
                .iter()
                .map(|w| w.deadline)
                .chain(paused_until)
                .min()
                .map(|t| t.saturating_duration_since(now));
            // At least a millisecond (a deadline is met by the next turn).
            let timeout = wake.map_or(-1, |d| {
                i32::try_from(d.as_millis().saturating_add(1)).unwrap_or(i32::MAX)
            });
            let nfds = libc::nfds_t::try_from(fds.len()).unwrap_or(libc::nfds_t::MAX);
            // SAFETY: `fds` is a live, initialised array of `nfds` pollfds.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), nfds, timeout) };
            if ready < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            let offset = usize::from(listening);
            let listener_ready = listening && fds.first().is_some_and(|p| p.revents != 0);
            // Read what arrived, newest first so removals keep indices.
            for i in (0..waiting.len()).rev() {
                let ready = fds.get(i + offset).is_some_and(|p| p.revents != 0);
                if !ready {
                    continue;
                }
                let Some(w) = waiting.get_mut(i) else {
                    continue;
                };
                match read_some(w, &mut chunk) {
                    Progress::More => {}
                    Progress::Gone => {
                        waiting.remove(i);
                    }
                    Progress::Head(req) => {
                        if let Some(w) = waiting.remove(i) {
                            self.hand_over(w.stream, req)?;
                        }
                    }
                    Progress::Bad(status, message) => {
                        if let Some(w) = waiting.remove(i) {
                            answer(w.stream, status, message);
                        }
                    }
                }
            }
            if listener_ready {
                self.accept_some(&mut waiting, &mut paused_until);
            }
        }
    }

    /// Gives a request to the workers, or answers 503 when all are busy
    /// and the queue is full.
    fn hand_over(&self, stream: TcpStream, req: Request) -> io::Result<()> {
        if stream.set_nonblocking(false).is_err() {
            return Ok(());
        }
        match self.queue.try_send((stream, req)) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full((stream, _))) => {
                let _ = stream.set_nonblocking(true);
                answer(stream, 503, "the server is busy; try again");
                Ok(())
            }
            Err(TrySendError::Disconnected(_)) => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the workers are gone",
            )),
        }
    }

    fn accept_one(&self) -> io::Result<TcpStream> {
        self.counters.accept_calls.fetch_add(1, Ordering::Relaxed);
        self.listener.accept().map(|(s, _)| s)
    }

    fn accept_some(&mut self, waiting: &mut VecDeque<Waiting>, paused_until: &mut Option<Instant>) {
        for _ in 0..ACCEPT_BURST {
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            match self.accept_one() {
                Ok(stream) => {
                    if stream.set_nonblocking(true).is_err() {
                        continue;
                    }
                    waiting.push_back(Waiting {
                        stream,
                        head: Vec::new(),
                        deadline: deadline_after(self.head_timeout),
                    });
                    if waiting.len() > MAX_WAITING {
                        waiting.pop_front();
                        self.counters.closed_waiting.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if at_descriptor_limit(&e) => {
                    // Let the reserve go, take the connection off the queue
                    // and close it, take the reserve back.
                    // (Linux reports EMFILE before it looks at the queue,
                    // so this is also how an empty queue shows.)
                    let mut queue_empty = false;
                    if self.reserve.take().is_some() {
                        match self.accept_one() {
                            Ok(_closed) => {
                                self.counters
                                    .closed_at_limit
                                    .fetch_add(1, Ordering::Relaxed);
                            }
                            Err(e) => queue_empty = e.kind() == io::ErrorKind::WouldBlock,
                        }
                        self.reserve = reserve().ok();
                    }
                    if self.reserve.is_none() {
                        *paused_until = Some(Instant::now() + ACCEPT_PAUSE);
                        return;
                    }
                    if queue_empty {
                        return;
                    }
                }
                // A connection that failed before it was accepted.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionAborted
                            | io::ErrorKind::ConnectionReset
                            | io::ErrorKind::Interrupted
                    ) => {}
                // Anything else (no buffers, no memory): accepting again at
                // once would fail the same way.
                Err(_) => {
                    *paused_until = Some(Instant::now() + ACCEPT_PAUSE);
                    return;
                }
            }
        }
    }
}

fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d).unwrap_or(now)
}

fn at_descriptor_limit(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

enum Progress {
    More,
    Gone,
    Head(Request),
    Bad(u16, &'static str),
}

/// Reads what a waiting connection sent and parses the head so far.
fn read_some(w: &mut Waiting, chunk: &mut [u8]) -> Progress {
    // A client may send its request and close its side at once.
    let mut ended = false;
    loop {
        match w.stream.read(chunk) {
            Ok(0) => {
                ended = true;
                break;
            }
            Ok(n) => {
                w.head.extend_from_slice(chunk.get(..n).unwrap_or(&[]));
                if w.head.len() > http::MAX_HEAD {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Progress::Gone,
        }
    }
    match http::parse_head(&w.head) {
        Ok(Some(req)) => Progress::Head(req),
        Ok(None) if ended => Progress::Gone,
        Ok(None) => Progress::More,
        Err(e) => Progress::Bad(e.status, e.message),
    }
}
