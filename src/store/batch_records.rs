//! The batch queue's rows (DESIGN.md §10 "batch item"), as [`super::BatchQueue`] reads them.

use crate::model::{
    AttemptOutcome, BatchCounts, BatchItemState, BatchOptions, BatchState, BatchWorker,
    OutcomeKind, RequestSpec, RetryProfile,
};
use crate::policy::BatchAssertions;
use chrono::{DateTime, FixedOffset};

/// One batch: its profile and options, and how many of its items are in each state.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRecord {
    /// UUID v7 (sortable by creation).
    pub id: String,
    /// When it was queued, with local offset.
    pub created_at: DateTime<FixedOffset>,
    /// Where the list came from (the imported file's path), if known.
    pub source: Option<String>,
    /// The batch profile's name.
    pub profile_name: String,
    /// The batch profile (items naming a profile of their own use that one).
    pub profile: RetryProfile,
    /// Concurrency, rate per host, assertions.
    pub options: BatchOptions,
    /// Items per state.
    pub counts: BatchCounts,
    /// Which face last started or resumed it (`None`: never started, or queued before this
    /// was stored).
    pub worker: Option<BatchWorker>,
    /// True when it was stopped with the Pause button (or cancelled) since it was last started.
    pub paused_by_user: bool,
    /// True when a live process other than this one holds it (works it now).
    pub held_elsewhere: bool,
}

impl BatchRecord {
    /// Where the batch is, in one word; `worked_here` is true when this process works it.
    pub fn state(&self, worked_here: bool) -> BatchState {
        BatchState::of(
            &self.counts,
            worked_here || self.held_elsewhere,
            self.worker,
            self.paused_by_user,
        )
    }

    /// True when the window resumes it by itself at start-up: the window was working it when
    /// it was closed or killed (not paused or cancelled there), items are left, and no other
    /// live process holds it.
    pub fn resumes_in_window(&self) -> bool {
        self.worker == Some(BatchWorker::Window)
            && !self.paused_by_user
            && !self.held_elsewhere
            && self.counts.pending + self.counts.running > 0
    }
}

/// One item of a batch as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchItemRecord {
    /// Its batch.
    pub batch_id: String,
    /// 0-based position in the batch (the order of the imported list).
    pub position: u64,
    /// Its name, if the list gave one.
    pub name: Option<String>,
    /// Method (as sent).
    pub method: String,
    /// URL, masked by the one secrets rule.
    pub url: String,
    /// The request masked by the one secrets rule (for display and reports; the sendable one of
    /// an item with secrets is in the secret store, see [`Self::has_secrets`]).
    pub request: RequestSpec,
    /// True when masking changed the request: the sendable request is kept in the secret store.
    pub has_secrets: bool,
    /// The item's own profile name, if any.
    pub profile: Option<String>,
    /// Line (or HAR entry) in the imported file, 1-based.
    pub source_line: Option<u64>,
    /// Where it is in its life.
    pub state: BatchItemState,
    /// Attempts of its latest run (0 before it ran).
    pub attempts: u32,
    /// Status of its latest run's last response.
    pub last_status: Option<u16>,
    /// Error kind of its latest run's last attempt, when that got no response (`reset`).
    pub error_kind: Option<String>,
    /// Why it ended so (the run banner's words, or the failed assertion).
    pub reason: Option<String>,
    /// History id of its latest run (open it with `history show`).
    pub run_id: Option<String>,
    /// When it was queued.
    pub queued_at: DateTime<FixedOffset>,
    /// When its latest run started.
    pub started_at: Option<DateTime<FixedOffset>>,
    /// When it reached its final state.
    pub ended_at: Option<DateTime<FixedOffset>>,
}

impl BatchItemRecord {
    /// The label shown for the item: its name, else `METHOD URL` (masked).
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => name.clone(),
            None => format!("{} {}", self.method, self.url),
        }
    }
}

/// How an item's run ended, as [`super::BatchQueue::finish`] stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemEnd {
    /// The final state (`done`, `error`, `cancelled`; `pending` puts it back in the queue).
    pub state: BatchItemState,
    /// Attempts its run made.
    pub attempts: u32,
    /// Status of the last response, if any.
    pub last_status: Option<u16>,
    /// Error kind of the last attempt when it got no response.
    pub error_kind: Option<String>,
    /// Why (the run banner's words, or the failed assertion).
    pub reason: String,
}

impl ItemEnd {
    /// How an item ends whose run finished as `kind` (banner words `message`) after
    /// `attempts`, its last attempt's outcome `last`, checked against the batch's
    /// `assertions`: `done` when it succeeded and every assertion holds, `error` otherwise
    /// (the run's words, then the failed assertion's). A cancelled run ends the item
    /// `cancelled` when `batch_cancelled`, else (a pause) puts it back to `pending`.
    pub fn from_run(
        kind: OutcomeKind,
        message: String,
        attempts: u32,
        last: Option<&AttemptOutcome>,
        assertions: &BatchAssertions,
        batch_cancelled: bool,
    ) -> Self {
        let (state, reason) = match kind {
            OutcomeKind::Succeeded => match assertions.check(last) {
                Ok(()) => (BatchItemState::Done, message),
                Err(why) => (BatchItemState::Error, why),
            },
            OutcomeKind::Cancelled if !batch_cancelled => (
                BatchItemState::Pending,
                "paused mid-run: sent again from attempt 1 on resume".to_owned(),
            ),
            OutcomeKind::Cancelled => (BatchItemState::Cancelled, message),
            // The run failed with a final response (a 404 the profile does not retry, or gave
            // up on 503s): an assertion it fails is said too, in the user's own words, after
            // the run's ("gave up after 4 attempts (503); assertion --expect-status 200
            // failed: …").
            _ => match last {
                Some(AttemptOutcome::Response(_)) => match assertions.check(last) {
                    Err(why) => (
                        BatchItemState::Error,
                        crate::policy::failed_run_reason(&message, &why),
                    ),
                    Ok(()) => (BatchItemState::Error, message),
                },
                _ => (BatchItemState::Error, message),
            },
        };
        Self {
            state,
            attempts,
            last_status: last.and_then(AttemptOutcome::status),
            error_kind: match last {
                Some(AttemptOutcome::Error(e)) => Some(e.kind.id().to_owned()),
                _ => None,
            },
            reason,
        }
    }
}

/// A pending item ready to send: its position and its request with secrets, or why it cannot
/// be sent (its secrets were not kept).
#[derive(Debug, Clone, PartialEq)]
pub struct QueuedItem {
    /// Position in the batch.
    pub position: u64,
    /// Its own profile name, if any.
    pub profile: Option<String>,
    /// The request to send, or why there is none.
    pub request: Result<RequestSpec, String>,
}

/// One state change of a group commit ([`super::BatchQueue::commit_changes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemChange<'a> {
    /// Mark the item `running` (it must be `pending`) with the history id of the run about to
    /// start ([`super::BatchQueue::mark_running`]).
    Running {
        /// Position in the batch.
        position: u64,
        /// History id of its run, if recorded.
        run_id: Option<&'a str>,
    },
    /// Store how the item's run ended ([`super::BatchQueue::finish`]).
    Ended {
        /// Position in the batch.
        position: u64,
        /// How it ended.
        end: &'a ItemEnd,
    },
}
