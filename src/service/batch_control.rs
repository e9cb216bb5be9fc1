//! How a running batch is stopped: pause (resumable), pause by the user (not resumed by itself),
//! cancel (every unfinished item ends `cancelled`).

use tokio_util::sync::CancellationToken;

/// Stops a running batch. Clones control the same batch.
#[derive(Debug, Clone, Default)]
pub struct BatchControl {
    pause: CancellationToken,
    by_user: CancellationToken,
    cancel: CancellationToken,
    /// Cancelled by any stop (what the runs in flight watch).
    pub(super) any: CancellationToken,
}

impl BatchControl {
    /// A control that has not stopped anything.
    pub fn new() -> Self {
        Self::default()
    }

    /// Pause (also what Ctrl-C does): no item starts any more, the runs in flight are cancelled
    /// and their items go back to `pending` (re-run from attempt 1 on resume); the batch ends
    /// resumable.
    pub fn pause(&self) {
        self.pause.cancel();
        self.any.cancel();
    }

    /// Pause as the Pause button does: as [`Self::pause`], and the batch is stored as paused
    /// by the user, so the window does not resume it by itself at its next start.
    pub fn pause_by_user(&self) {
        self.by_user.cancel();
        self.pause();
    }

    /// Cancel: the runs in flight are cancelled and every item not finished ends `cancelled`.
    pub fn cancel(&self) {
        self.cancel.cancel();
        self.any.cancel();
    }

    /// True once [`Self::pause`] or [`Self::cancel`] was called.
    pub fn is_stopped(&self) -> bool {
        self.any.is_cancelled()
    }

    pub(super) fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// True once [`Self::pause_by_user`] or [`Self::cancel`] was called.
    pub(super) fn stopped_by_user(&self) -> bool {
        self.by_user.is_cancelled() || self.cancel.is_cancelled()
    }
}
