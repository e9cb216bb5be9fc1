//! A worker that owns one store and runs the frame's jobs on it, in order, off the frame
//! thread: a keyring that prompts or a slow disk holds the worker, never the window. Unlike
//! [`super::latest_worker::LatestWorker`] no job is dropped (each is a write the user asked
//! for); replies come back in order. [`StoreWorker::inline`] runs each job inside `submit`
//! (tests, and the fallback when no thread can be started).

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

/// One job: what to do with the store, and its reply.
pub type StoreJob<S, R> = Box<dyn FnOnce(&S) -> R + Send>;

/// Runs [`StoreJob`]s on a store `S`, replies `R` in order.
pub struct StoreWorker<S, R> {
    mode: Mode<S, R>,
    /// Jobs submitted whose reply has not been polled yet.
    pending: usize,
}

enum Mode<S, R> {
    Inline(S, VecDeque<R>),
    Thread(Sender<StoreJob<S, R>>, Receiver<R>),
}

impl<S, R> std::fmt::Debug for StoreWorker<S, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = match self.mode {
            Mode::Inline(..) => "inline",
            Mode::Thread(..) => "thread",
        };
        f.debug_struct("StoreWorker")
            .field("mode", &mode)
            .field("pending", &self.pending)
            .finish()
    }
}

impl<S: Send + 'static, R: Send + 'static> StoreWorker<S, R> {
    /// Runs each job inside [`Self::submit`].
    pub fn inline(store: S) -> Self {
        Self {
            mode: Mode::Inline(store, VecDeque::new()),
            pending: 0,
        }
    }

    /// Moves `store` to the thread `name`, which calls `waker` after each reply so the window
    /// repaints. Falls back to inline when no thread can be started.
    pub fn spawn(name: &str, store: S, waker: Arc<dyn Fn() + Send + Sync>) -> Self {
        let (job_tx, job_rx) = channel::<StoreJob<S, R>>();
        let (reply_tx, reply_rx) = channel();
        // The store travels to the thread through a slot, so a failed start can return it.
        let slot = Arc::new(std::sync::Mutex::new(Some(store)));
        let thread_slot = Arc::clone(&slot);
        let started = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                let Some(store) = thread_slot.lock().ok().and_then(|mut s| s.take()) else {
                    return;
                };
                for job in job_rx {
                    if reply_tx.send(job(&store)).is_err() {
                        return;
                    }
                    waker();
                }
            });
        match started {
            Ok(_) => Self {
                mode: Mode::Thread(job_tx, reply_rx),
                pending: 0,
            },
            Err(_) => match slot.lock().ok().and_then(|mut s| s.take()) {
                Some(store) => Self::inline(store),
                // The thread started after all and took the store.
                None => Self {
                    mode: Mode::Thread(job_tx, reply_rx),
                    pending: 0,
                },
            },
        }
    }

    /// Queues `job` behind the ones submitted before.
    pub fn submit(&mut self, job: impl FnOnce(&S) -> R + Send + 'static) {
        self.pending += 1;
        match &mut self.mode {
            Mode::Inline(store, replies) => replies.push_back(job(store)),
            Mode::Thread(jobs, _) => {
                if jobs.send(Box::new(job)).is_err() {
                    // The thread is gone (it panicked): nothing will answer.
                    self.pending -= 1;
                }
            }
        }
    }

    /// The next reply, in submission order; never blocks.
    pub fn poll(&mut self) -> Option<R> {
        let reply = match &mut self.mode {
            Mode::Inline(_, replies) => replies.pop_front(),
            Mode::Thread(_, replies) => replies.try_recv().ok(),
        };
        if reply.is_some() {
            self.pending = self.pending.saturating_sub(1);
        }
        reply
    }

    /// Whether a submitted job has not been answered (and polled) yet.
    pub fn is_busy(&self) -> bool {
        self.pending > 0
    }
}

#[cfg(test)]
mod tests {
    use super::StoreWorker;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn jobs_run_off_the_caller_in_order_and_every_reply_arrives() {
        let wakes = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&wakes);
        let mut worker = StoreWorker::spawn(
            "store-worker-test",
            String::from("store"),
            Arc::new(move || {
                counted.fetch_add(1, Ordering::SeqCst);
            }),
        );
        let caller = std::thread::current().id();
        for n in 0..3 {
            worker.submit(move |s: &String| (n, s.len(), std::thread::current().id()));
        }
        assert!(worker.is_busy());
        let mut replies = Vec::new();
        while replies.len() < 3 {
            match worker.poll() {
                Some(reply) => replies.push(reply),
                None => std::thread::yield_now(),
            }
        }
        assert_eq!(
            replies.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(),
            [(0, 5), (1, 5), (2, 5)]
        );
        assert!(
            replies.iter().all(|r| r.2 != caller),
            "off the caller's thread"
        );
        assert!(!worker.is_busy());
        assert_eq!(wakes.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn inline_answers_at_the_next_poll() {
        let mut worker = StoreWorker::inline(2_u32);
        worker.submit(|n: &u32| n * 10);
        assert!(worker.is_busy());
        assert_eq!(worker.poll(), Some(20));
        assert_eq!(worker.poll(), None);
        assert!(!worker.is_busy());
    }
}
