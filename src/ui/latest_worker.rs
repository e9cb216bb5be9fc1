//! A background worker for the frame: one named thread runs the newest submitted job, a newer
//! job (or a cancel) abandons the one running at its next check, progress is read through
//! atomics, results come back over a channel and only the newest one is handed out. The frame
//! never waits. [`LatestWorker::inline`] runs each job inside `submit` instead, for tests that
//! need the result in the same frame.
//!
//! Used by the policy panel's analysis (`super::profile_analysis`) and the strategy lab
//! (`super::lab`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};

/// What runs one job: the job and a control `(steps done, steps in all) -> keep going?` that
/// the job calls now and then (report `(0, 0)` to only ask); `None` when it stopped early.
pub type JobRunner<J, O> =
    Arc<dyn Fn(J, &mut dyn FnMut(u64, u64) -> bool) -> Option<O> + Send + Sync>;

/// Runs jobs of type `J` into outputs `O` off the frame thread, latest wins.
pub struct LatestWorker<J, O> {
    mode: Mode<J, O>,
}

enum Mode<J, O> {
    Inline(Option<O>, JobRunner<J, O>),
    Thread {
        shared: Arc<Shared<J>>,
        results: Receiver<(u64, O)>,
        submitted: u64,
    },
}

/// State shared by the frame and the worker thread.
struct Shared<J> {
    /// Generation of the newest job; older ones stop at their next check. `u64::MAX` = shut down.
    latest: AtomicU64,
    /// Progress of the running job: steps done and steps in all (0 = not reported).
    done: AtomicU64,
    total: AtomicU64,
    job: Mutex<Option<(u64, J)>>,
    wake: Condvar,
}

impl<J: Send + 'static, O: Send + 'static> LatestWorker<J, O> {
    /// Runs each job inside [`Self::submit`] (tests).
    pub fn inline(run: JobRunner<J, O>) -> Self {
        Self {
            mode: Mode::Inline(None, run),
        }
    }

    /// Starts the thread `name`; `waker` is called from it when a result is ready or progress
    /// moved, so the window repaints. Falls back to inline when no thread can be started.
    pub fn spawn(name: &str, run: JobRunner<J, O>, waker: Arc<dyn Fn() + Send + Sync>) -> Self {
        let shared = Arc::new(Shared {
            latest: AtomicU64::new(0),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            job: Mutex::new(None),
            wake: Condvar::new(),
        });
        let (tx, results) = channel();
        let thread_shared = Arc::clone(&shared);
        let thread_run = Arc::clone(&run);
        let started = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || worker_loop(&thread_shared, &thread_run, &tx, waker.as_ref()));
        match started {
            Ok(_) => Self {
                mode: Mode::Thread {
                    shared,
                    results,
                    submitted: 0,
                },
            },
            Err(_) => Self::inline(run),
        }
    }

    /// Starts `job`; a job still running is abandoned.
    pub fn submit(&mut self, job: J) {
        match &mut self.mode {
            Mode::Inline(slot, run) => *slot = run(job, &mut |_, _| true),
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
            Mode::Inline(..) => None,
            Mode::Thread { shared, .. } => {
                let total = shared.total.load(Ordering::SeqCst);
                (total > 0).then(|| (shared.done.load(Ordering::SeqCst), total))
            }
        }
    }

    /// The output of the newest job, once (never blocks).
    pub fn poll(&mut self) -> Option<O> {
        match &mut self.mode {
            Mode::Inline(slot, _) => slot.take(),
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

impl<J, O> Drop for LatestWorker<J, O> {
    fn drop(&mut self) {
        if let Mode::Thread { shared, .. } = &self.mode {
            shared.latest.store(u64::MAX, Ordering::SeqCst);
            shared.wake.notify_one();
        }
    }
}

fn worker_loop<J, O>(
    shared: &Shared<J>,
    run: &JobRunner<J, O>,
    results: &Sender<(u64, O)>,
    waker: &(dyn Fn() + Send + Sync),
) {
    loop {
        let Some((generation, job)) = next_job(shared) else {
            return;
        };
        let mut control = |done: u64, total: u64| {
            if total > 0 {
                shared.done.store(done, Ordering::SeqCst);
                shared.total.store(total, Ordering::SeqCst);
                waker();
            }
            shared.latest.load(Ordering::SeqCst) == generation
        };
        if let Some(output) = run(job, &mut control) {
            if results.send((generation, output)).is_err() {
                return;
            }
            waker();
        }
    }
}

/// Waits for a job; `None` when the worker is shut down.
fn next_job<J>(shared: &Shared<J>) -> Option<(u64, J)> {
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
