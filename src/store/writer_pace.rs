//! How long the history writer gathers writes before a group commit. A write someone may be
//! waiting to see (an interactive run's attempt, a flush) is committed within
//! [`GATHER_WINDOW`] of its send; the runs of a batch's items, which nobody watches attempt by
//! attempt (their items' ends are reported by the batch's own commits), may wait up to
//! [`RELAXED_GATHER_WINDOW`], so a batch costs one commit per 10 ms instead of one per 0.5 ms.
//! A write of the first kind arriving while the writer gathers the second kind cuts the wait
//! short (the writer is unparked), so it never waits longer than it would have alone.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long the writer, woken from idle by a write, lets the writes that follow it (the rest of
/// the attempt's or run's burst, other runs) queue up before committing them all in one
/// transaction. Bounds the extra send-to-commit time of a write; 10,000 runs back to back then
/// cost one wake and one commit per window instead of three each per run (BENCHMARKS.md).
pub const GATHER_WINDOW: Duration = Duration::from_micros(500);

/// The gathering window when only relaxed writes (batch items' runs) are queued: 10 ms, the
/// batch runner's own commit window (`service::COMMIT_WINDOW`).
pub const RELAXED_GATHER_WINDOW: Duration = Duration::from_millis(10);

/// Shared by the writer thread and its senders.
#[derive(Debug)]
pub(super) struct Pace {
    /// Strict messages sent and not yet taken by the writer.
    strict_queued: AtomicUsize,
    /// True while the writer waits out a relaxed window (a strict send then unparks it).
    relaxed_wait: AtomicBool,
    /// The writer thread, set once it runs.
    writer: std::sync::OnceLock<Thread>,
}

impl Pace {
    pub(super) fn new() -> Self {
        Self {
            strict_queued: AtomicUsize::new(0),
            relaxed_wait: AtomicBool::new(false),
            writer: std::sync::OnceLock::new(),
        }
    }

    /// Called on the writer thread before it takes any message.
    pub(super) fn writer_started(&self) {
        let _ = self.writer.set(std::thread::current());
    }

    /// Before a message is sent: counts a strict one.
    pub(super) fn sending(&self, strict: bool) {
        if strict {
            self.strict_queued.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// After a message was sent: a strict one ends a relaxed wait.
    pub(super) fn sent(&self, strict: bool) {
        if strict
            && self.relaxed_wait.load(Ordering::SeqCst)
            && let Some(t) = self.writer.get()
        {
            t.unpark();
        }
    }

    /// The sender's message could not be sent: uncounts it.
    pub(super) fn not_sent(&self, strict: bool) {
        if strict {
            self.strict_queued.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// The writer took a message.
    pub(super) fn taken(&self, strict: bool) {
        if strict {
            self.strict_queued.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// On the writer thread, after taking `first` (strict or not) from idle: waits while the
    /// burst queues — [`GATHER_WINDOW`] when a strict message is among it, else up to
    /// [`RELAXED_GATHER_WINDOW`] or until a strict message arrives, then [`GATHER_WINDOW`].
    pub(super) fn gather(&self, first_strict: bool) {
        self.gather_within(first_strict, GATHER_WINDOW, RELAXED_GATHER_WINDOW);
    }

    fn gather_within(&self, first_strict: bool, strict: Duration, relaxed: Duration) {
        if first_strict || self.strict_queued.load(Ordering::SeqCst) > 0 {
            std::thread::sleep(strict);
            return;
        }
        let deadline = Instant::now() + relaxed;
        self.relaxed_wait.store(true, Ordering::SeqCst);
        loop {
            if self.strict_queued.load(Ordering::SeqCst) > 0 {
                self.relaxed_wait.store(false, Ordering::SeqCst);
                std::thread::sleep(strict);
                return;
            }
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            std::thread::park_timeout(deadline - now);
        }
        self.relaxed_wait.store(false, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A strict message sent during a relaxed wait ends it: the writer sleeps one strict
    /// window from then, not the rest of the relaxed one (here a minute: without the cut the
    /// test would take that long and fail).
    #[test]
    fn a_strict_send_cuts_a_relaxed_wait_short() {
        const RELAXED: Duration = Duration::from_mins(1);
        let pace = Arc::new(Pace::new());
        let writer = {
            let pace = Arc::clone(&pace);
            std::thread::spawn(move || {
                pace.writer_started();
                let began = Instant::now();
                pace.gather_within(false, GATHER_WINDOW, RELAXED);
                began.elapsed()
            })
        };
        while !pace.relaxed_wait.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        pace.sending(true);
        pace.sent(true);
        let waited = writer.join().unwrap_or(RELAXED);
        assert!(waited >= GATHER_WINDOW, "{waited:?}");
        assert!(waited < RELAXED / 2, "{waited:?}");
        pace.taken(true);
        assert_eq!(pace.strict_queued.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_strict_message_already_queued_means_the_short_window() {
        let pace = Pace::new();
        pace.sending(true);
        let began = Instant::now();
        pace.gather(false);
        assert!(!pace.relaxed_wait.load(Ordering::SeqCst));
        assert!(began.elapsed() >= GATHER_WINDOW);
    }
}
