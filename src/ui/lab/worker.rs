//! The lab's background worker: one named thread runs the latest submitted job (a newer job or
//! a cancel abandons the running one at its next progress check), reports progress through
//! atomics the frame reads, and hands results back over a channel. [`LabWorker::inline`] runs
//! jobs inside `submit` instead, for tests.

use super::jobs::{LabJob, LabOutput, run_job};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};

/// Runs [`LabJob`]s off the frame thread, latest wins.
pub struct LabWorker {
    mode: Mode,
}

enum Mode {
    Inline(Option<LabOutput>),
    Thread {
        shared: Arc<Shared>,
        results: Receiver<(u64, LabOutput)>,
        submitted: u64,
    },
}

/// State shared by the frame and the worker thread.
struct Shared {
    /// Generation of the newest job; older ones stop at their next check. `u64::MAX` = shut down.
    latest: AtomicU64,
    /// Progress of the running job: steps done and steps in all.
    done: AtomicU64,
    total: AtomicU64,
    job: Mutex<Option<(u64, LabJob)>>,
    wake: Condvar,
}

impl LabWorker {
    /// Runs each job inside [`Self::submit`] (tests).
    pub fn inline() -> Self {
        Self {
            mode: Mode::Inline(None),
        }
    }

    /// Starts the `lab` thread; `waker` is called from it when a result is ready or progress
    /// moved, so the window repaints. Falls back to inline when no thread can be started.
    pub fn spawn(waker: Arc<dyn Fn() + Send + Sync>) -> Self {
        let shared = Arc::new(Shared {
            latest: AtomicU64::new(0),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            job: Mutex::new(None),
            wake: Condvar::new(),
        });
        let (tx, results) = channel();
        let thread_shared = Arc::clone(&shared);
        let started = std::thread::Builder::new()
            .name("lab".into())
            .spawn(move || worker_loop(&thread_shared, &tx, waker.as_ref()));
        match started {
            Ok(_) => Self {
                mode: Mode::Thread {
                    shared,
                    results,
                    submitted: 0,
                },
            },
            Err(_) => Self::inline(),
        }
    }

    /// Starts `job`; a job still running is abandoned.
    pub fn submit(&mut self, job: LabJob) {
        match &mut self.mode {
            Mode::Inline(slot) => *slot = run_job(job, &mut |_, _| true),
            Mode::Thread {
                shared, submitted, ..
            } => {
                *submitted += 1;
                shared.done.store(0, Ordering::SeqCst);
                shared.total.store(0, Ordering::SeqCst);
                shared.latest.store(*submitted, Ordering::SeqCst);
                if let Ok(mut slot) = shared.job.lock() {
                    *slot = Some((*submitted, job));
                }
                shared.wake.notify_one();
            }
        }
    }

    /// Abandons the running job (its result never arrives).
    pub fn cancel(&mut self) {
        if let Mode::Thread {
            shared, submitted, ..
        } = &mut self.mode
        {
            *submitted += 1;
            shared.latest.store(*submitted, Ordering::SeqCst);
            if let Ok(mut slot) = shared.job.lock() {
                *slot = None;
            }
        }
    }

    /// Progress of the running job as (done, total) steps; `None` before it reports any.
    pub fn progress(&self) -> Option<(u64, u64)> {
        match &self.mode {
            Mode::Inline(_) => None,
            Mode::Thread { shared, .. } => {
                let total = shared.total.load(Ordering::SeqCst);
                (total > 0).then(|| (shared.done.load(Ordering::SeqCst), total))
            }
        }
    }

    /// The result of the latest job, once (never blocks).
    pub fn poll(&mut self) -> Option<LabOutput> {
        match &mut self.mode {
            Mode::Inline(slot) => slot.take(),
            Mode::Thread {
                results, submitted, ..
            } => {
                let mut newest = None;
                while let Ok((generation, output)) = results.try_recv() {
                    if generation == *submitted {
                        newest = Some(output);
                    }
                }
                newest
            }
        }
    }
}

impl Drop for LabWorker {
    fn drop(&mut self) {
        if let Mode::Thread { shared, .. } = &self.mode {
            shared.latest.store(u64::MAX, Ordering::SeqCst);
            shared.wake.notify_one();
        }
    }
}

fn worker_loop(
    shared: &Shared,
    results: &Sender<(u64, LabOutput)>,
    waker: &(dyn Fn() + Send + Sync),
) {
    loop {
        let Some((generation, job)) = next_job(shared) else {
            return;
        };
        let mut control = |done: u64, total: u64| {
            shared.done.store(done, Ordering::SeqCst);
            shared.total.store(total, Ordering::SeqCst);
            waker();
            shared.latest.load(Ordering::SeqCst) == generation
        };
        if let Some(output) = run_job(job, &mut control) {
            if results.send((generation, output)).is_err() {
                return;
            }
            waker();
        }
    }
}

/// Waits for a job; `None` when the worker is shut down.
fn next_job(shared: &Shared) -> Option<(u64, LabJob)> {
    let mut slot = shared.job.lock().ok()?;
    loop {
        if shared.latest.load(Ordering::SeqCst) == u64::MAX {
            return None;
        }
        if let Some(next) = slot.take() {
            return Some(next);
        }
        slot = shared.wake.wait(slot).ok()?;
    }
}
