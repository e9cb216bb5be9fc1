//! Who works a batch and where a whole batch is in its life: the words `batch list`
//! and the Batch tab's *Earlier batches* show, and what decides whether the window resumes a
//! batch by itself at start-up (docs/DECISIONS.md "Window resumes its own batches").

use super::BatchCounts;

/// Which face last started or resumed a batch (stored in `batches.worker`).
#[derive(strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BatchWorker {
    /// The window's Batch tab.
    Window,
    /// `retryscope batch` on the command line.
    Cli,
}

impl BatchWorker {
    /// The id stored (`window`, `cli`).
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// The worker with id `id`, if any.
    pub fn from_id(id: &str) -> Option<Self> {
        [Self::Window, Self::Cli].into_iter().find(|w| w.id() == id)
    }
}

/// Where a whole batch is, in one word.
#[derive(strum::IntoStaticStr, strum::Display)]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BatchState {
    /// A live process works it now.
    Working,
    /// Stopped with items left: the Pause button, or Ctrl-C / SIGTERM of `retryscope batch`.
    Paused,
    /// Stopped with items left by a process that was killed (items left `running`), or by a
    /// window that was closed while working it (the window resumes it at its next start).
    Interrupted,
    /// Queued, never started.
    Queued,
    /// No item left, and the user did not cancel it (items a resume skipped with
    /// `--skip-interrupted` are `cancelled` in a finished batch).
    Finished,
    /// No item left, some cancelled, and the user cancelled the batch.
    Cancelled,
}

impl BatchState {
    /// The word printed (`working`, `paused`, `interrupted`, `queued`, `finished`,
    /// `cancelled`).
    pub fn word(self) -> &'static str {
        self.into()
    }

    /// The state of a batch with `counts` that a live process works (`working`) or not, last
    /// started by `worker` (`None`: never started, or queued before workers were stored), and
    /// stopped with the Pause button or cancelled by the user (`paused_by_user`).
    ///
    /// ```
    /// use retryscope::model::{BatchCounts, BatchState, BatchWorker};
    /// let left = BatchCounts { pending: 3, done: 2, ..BatchCounts::default() };
    /// let of = |w, paused| BatchState::of(&left, false, Some(w), paused);
    /// assert_eq!(of(BatchWorker::Window, false), BatchState::Interrupted);
    /// assert_eq!(of(BatchWorker::Window, true), BatchState::Paused);
    /// assert_eq!(of(BatchWorker::Cli, false), BatchState::Paused);
    /// ```
    pub fn of(
        counts: &BatchCounts,
        working: bool,
        worker: Option<BatchWorker>,
        paused_by_user: bool,
    ) -> Self {
        let left = counts.pending + counts.running > 0;
        if working {
            Self::Working
        } else if !left {
            if counts.cancelled > 0 && paused_by_user {
                Self::Cancelled
            } else {
                Self::Finished
            }
        } else if counts.running > 0 {
            Self::Interrupted
        } else if paused_by_user {
            Self::Paused
        } else {
            match worker {
                Some(BatchWorker::Window) => Self::Interrupted,
                Some(BatchWorker::Cli) => Self::Paused,
                None if counts.finished() > 0 => Self::Paused,
                None => Self::Queued,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pending: u64, running: u64, done: u64, cancelled: u64) -> BatchCounts {
        BatchCounts {
            pending,
            running,
            done,
            cancelled,
            ..BatchCounts::default()
        }
    }

    #[test]
    fn each_state_from_counts_worker_and_pause() {
        use BatchState as S;
        use BatchWorker as W;
        let cases = [
            (counts(1, 0, 0, 0), true, None, false, S::Working),
            (
                counts(0, 0, 3, 0),
                false,
                Some(W::Window),
                false,
                S::Finished,
            ),
            (counts(0, 0, 3, 1), false, Some(W::Cli), true, S::Cancelled),
            // Items a resume skipped are cancelled; the batch ran to its end.
            (counts(0, 0, 3, 1), false, Some(W::Cli), false, S::Finished),
            (
                counts(1, 2, 0, 0),
                false,
                Some(W::Cli),
                true,
                S::Interrupted,
            ),
            (counts(2, 0, 1, 0), false, Some(W::Window), true, S::Paused),
            (
                counts(2, 0, 1, 0),
                false,
                Some(W::Window),
                false,
                S::Interrupted,
            ),
            (counts(2, 0, 0, 0), false, Some(W::Cli), false, S::Paused),
            (counts(2, 0, 1, 0), false, None, false, S::Paused),
            (counts(2, 0, 0, 0), false, None, false, S::Queued),
        ];
        for (c, working, worker, paused, want) in cases {
            assert_eq!(BatchState::of(&c, working, worker, paused), want, "{c:?}");
        }
    }

    #[test]
    fn worker_ids_round_trip() {
        for w in [BatchWorker::Window, BatchWorker::Cli] {
            assert_eq!(BatchWorker::from_id(w.id()), Some(w));
        }
        assert_eq!(BatchWorker::from_id("robot"), None);
    }
}
