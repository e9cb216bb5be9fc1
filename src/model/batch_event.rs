//! What the batch runner tells its front ends (CLI progress bar, the window's Batch tab). Each
//! item event is sent after the state change it reports was committed to the database.

use super::batch_counts::BatchCounts;
use super::batch_item_state::BatchItemState;
use serde::{Deserialize, Serialize};

/// One step of a batch, in order per item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum BatchEvent {
    /// Sent once, before any item starts: the batch's counts as found in the database (after
    /// items a dead process left `running` were queued again).
    BatchStarted {
        /// Batch id.
        batch_id: String,
        /// Counts per state.
        counts: BatchCounts,
        /// Items found `running` and queued again (their earlier runs are `interrupted`).
        requeued: u64,
    },
    /// Sent once an item's `running` is committed. Its first attempt may already be under way:
    /// an item starts as soon as a slot frees, and its change is committed with others within
    /// the runner's commit window (`service::COMMIT_WINDOW`, 10 ms).
    ItemStarted {
        /// Batch id.
        batch_id: String,
        /// The item's 0-based position in the batch.
        position: u64,
        /// History id of the item's run (open it in the timeline), when runs are recorded.
        run_id: Option<String>,
    },
    /// Sent when an item reached a final state (committed), or went back to `pending` because
    /// the batch was paused or interrupted mid-run.
    ItemFinished {
        /// Batch id.
        batch_id: String,
        /// The item's position.
        position: u64,
        /// Its new state.
        state: BatchItemState,
        /// Attempts its run made.
        attempts: u32,
        /// Status of its last response, if any.
        last_status: Option<u16>,
        /// Error kind of its last attempt when that got no response (`reset`), if any.
        error_kind: Option<String>,
        /// Why it ended so: the run banner's words, or the failed assertion.
        reason: String,
    },
    /// Sent once, last.
    BatchFinished {
        /// Batch id.
        batch_id: String,
        /// Counts per state at the end.
        counts: BatchCounts,
        /// True when the batch was stopped (paused, interrupted) with items left `pending`.
        stopped: bool,
    },
}
