//! A progress bar on standard error for long passes over values (the
//! library reports through `pbdecode::progress::Progress`); drawn only when
//! standard error is a terminal, nothing otherwise.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pbdecode::progress::Progress;
use pbdecode::render::ProgressHandle;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};

/// The bar of the work under way, if any.
#[derive(Default)]
struct Bar(Mutex<Option<ProgressBar>>);

impl Progress for Bar {
    fn start(&self, what: &str, total: u64) {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{msg:>18} [{bar:40}] {percent:>3}%  {eta} left")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        // Named by the library; escaped all the same, as every message is.
        bar.set_message(pbdecode::escape::plain(what).into_owned());
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(bar);
        }
    }

    fn advance(&self, done: u64) {
        if let Ok(slot) = self.0.lock()
            && let Some(bar) = slot.as_ref()
        {
            bar.inc(done);
        }
    }

    fn finish(&self) {
        if let Ok(mut slot) = self.0.lock()
            && let Some(bar) = slot.take()
        {
            bar.finish_and_clear();
        }
    }

    fn suspend(&self, f: &mut dyn FnMut()) {
        let bar = self.0.lock().ok().and_then(|slot| slot.clone());
        match bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }
}

/// The progress reporter of this run: a bar when standard error is a
/// terminal, silence otherwise.
pub(crate) fn handle() -> ProgressHandle {
    if std::io::stderr().is_terminal() {
        ProgressHandle::new(Arc::new(Bar::default()))
    } else {
        ProgressHandle::default()
    }
}
