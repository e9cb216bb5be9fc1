//! One-off blocking jobs of the window (writing an export, reading a picked file, listing a
//! folder), each on its own named thread: the frame starts a job and takes its result on a
//! later frame, never waiting; the job wakes the window when it is done.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};

/// Jobs whose results are of type `R`, in the order they finish.
#[derive(Debug)]
pub struct Background<R> {
    tx: Sender<R>,
    rx: Receiver<R>,
    running: AtomicUsize,
}

impl<R> Default for Background<R> {
    fn default() -> Self {
        let (tx, rx) = channel();
        Self {
            tx,
            rx,
            running: AtomicUsize::new(0),
        }
    }
}

impl<R: Send + 'static> Background<R> {
    /// Runs `job` on a new thread named `name`; `ctx` (when set) repaints when it is done.
    ///
    /// # Errors
    /// Why the thread could not start (the job did not run).
    pub fn start(
        &self,
        name: &str,
        ctx: Option<egui::Context>,
        job: impl FnOnce() -> R + Send + 'static,
    ) -> std::io::Result<()> {
        let tx = self.tx.clone();
        self.running.fetch_add(1, Ordering::SeqCst);
        let started = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                // The window is gone when nobody receives: the result has no reader.
                let _ = tx.send(job());
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        if started.is_err() {
            self.running.fetch_sub(1, Ordering::SeqCst);
        }
        started.map(|_| ())
    }

    /// A finished job's result, if one has arrived (never blocks).
    pub fn poll(&self) -> Option<R> {
        let result = self.rx.try_recv().ok()?;
        self.running.fetch_sub(1, Ordering::SeqCst);
        Some(result)
    }

    /// Whether a job has started whose result was not taken yet.
    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::SeqCst) > 0
    }
}
