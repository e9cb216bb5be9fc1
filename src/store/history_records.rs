//! The rows of the history database (DESIGN.md §10): a run and its attempts, secrets already
//! masked by the one rule ([`crate::model::secrets`]).

use super::outcome_filter::OutcomeFilter;
use crate::model::{
    AttemptOutcome, BudgetChange, ConnectionUse, Hop, OutcomeKind, RequestSpec, Timings, Verdict,
    WaitExplanation,
};
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

/// How a recorded run ended: a [`OutcomeKind`], or `interrupted` when the process died before
/// the run finished (found on the next open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordedOutcome {
    /// A success status arrived.
    Succeeded,
    /// Max retries reached.
    GaveUp,
    /// Triage or policy stopped retrying.
    Stopped,
    /// The deadline passed.
    Deadline,
    /// The user cancelled.
    Cancelled,
    /// A usage problem or script error.
    Error,
    /// The process ended (crash, `kill -9`) before the run finished.
    Interrupted,
}

impl RecordedOutcome {
    /// Every outcome, in display order.
    pub const ALL: [RecordedOutcome; 7] = [
        Self::Succeeded,
        Self::GaveUp,
        Self::Stopped,
        Self::Deadline,
        Self::Cancelled,
        Self::Error,
        Self::Interrupted,
    ];

    /// The `snake_case` id stored and printed (`gave_up`).
    pub fn id(self) -> &'static str {
        match self {
            Self::Succeeded => "succeeded",
            Self::GaveUp => "gave_up",
            Self::Stopped => "stopped",
            Self::Deadline => "deadline",
            Self::Cancelled => "cancelled",
            Self::Error => "error",
            Self::Interrupted => "interrupted",
        }
    }

    /// The outcome whose [`Self::id`] is `id`, if any.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.id() == id)
    }

    /// The engine's outcome, or `None` for `interrupted` (the engine never reports it).
    pub fn engine_kind(self) -> Option<OutcomeKind> {
        Some(match self {
            Self::Succeeded => OutcomeKind::Succeeded,
            Self::GaveUp => OutcomeKind::GaveUp,
            Self::Stopped => OutcomeKind::Stopped,
            Self::Deadline => OutcomeKind::Deadline,
            Self::Cancelled => OutcomeKind::Cancelled,
            Self::Error => OutcomeKind::Error,
            Self::Interrupted => return None,
        })
    }
}

impl From<OutcomeKind> for RecordedOutcome {
    fn from(kind: OutcomeKind) -> Self {
        match kind {
            OutcomeKind::Succeeded => Self::Succeeded,
            OutcomeKind::GaveUp => Self::GaveUp,
            OutcomeKind::Stopped => Self::Stopped,
            OutcomeKind::Deadline => Self::Deadline,
            OutcomeKind::Cancelled => Self::Cancelled,
            OutcomeKind::Error => Self::Error,
        }
    }
}

/// One recorded run (a `runs` row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// UUID v7 (sorts by start time), e.g. `019a…`.
    pub id: String,
    /// Wall-clock start with offset.
    pub started_at: DateTime<FixedOffset>,
    /// Wall-clock end; `None` while running (or when interrupted).
    pub ended_at: Option<DateTime<FixedOffset>>,
    /// `CARGO_PKG_VERSION` of the app that recorded the run.
    pub app_version: String,
    /// Method of attempt 1.
    pub method: String,
    /// URL of attempt 1, masked.
    pub url: String,
    /// The request as sent, secrets masked.
    pub request: RequestSpec,
    /// Profile name.
    pub profile_name: String,
    /// The full profile (its JSON form), shared: runs of one profile back to back hold the same
    /// value, so recording one costs no copy of it and the store knows it by its address.
    pub profile: std::sync::Arc<serde_json::Value>,
    /// RNG seed (replay with `--seed`).
    pub seed: u64,
    /// How it ended; `None` while running.
    pub outcome: Option<RecordedOutcome>,
    /// The outcome's banner text (masked).
    pub outcome_message: Option<String>,
    /// Status of the last response.
    pub last_status: Option<u16>,
    /// Attempts finished (counted as they are committed).
    pub attempts: u32,
    /// Monotonic ms from run start to end; `None` until the run ends.
    pub elapsed_ms: Option<f64>,
    /// The batch item this run belongs to, if any.
    pub batch_item_id: Option<String>,
    /// The last attempt the run started, written when it starts (schema step 8), so an attempt
    /// cut off mid-flight (Ctrl-C, `kill -9`) leaves a trace; `None` before the first attempt
    /// and for runs recorded before step 8. Its number has an [`AttemptRecord`] once it
    /// finished; [`StoredRun::unanswered`] is the one that has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt_started: Option<AttemptStart>,
}

/// When and how an attempt started (its `AttemptStarted` event, masked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptStart {
    /// Attempt number, 1-based.
    pub number: u32,
    /// Wall-clock start with offset.
    pub started_at: DateTime<FixedOffset>,
    /// Monotonic ms since the run started.
    pub offset_ms: f64,
    /// Method sent.
    pub method: String,
    /// URL sent, masked.
    pub url: String,
}

/// Per-phase timings of one attempt for the history's columns: each phase's end, ms from the
/// attempt's start; `None` where not measured. The full [`Timings`] (connect start, whether
/// TLS is inside connect) are kept beside them in the record.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct PhaseTimings {
    /// Name resolution (its duration, summed over redirect hops; without redirects it starts
    /// at 0, so this is also its end).
    pub dns_ms: Option<f64>,
    /// TCP connect done (for `https` whose handshake could not be split, the TLS handshake
    /// too: [`Timings::tls_in_connect`]). `None` for a reused connection.
    pub connect_ms: Option<f64>,
    /// TLS handshake done (the connection ready), when measured apart from the TCP connect.
    pub tls_ms: Option<f64>,
    /// Request body handed to the connection in full; `None` without a body.
    pub sent_ms: Option<f64>,
    /// First response byte (headers).
    pub first_byte_ms: Option<f64>,
    /// Body done or error.
    pub done_ms: Option<f64>,
    /// Whether a pooled connection was reused; `None` when not known.
    pub reused: Option<bool>,
}

impl PhaseTimings {
    /// The phases the engine's [`Timings`] hold (the one conversion).
    pub fn from_timings(t: &Timings) -> Self {
        Self {
            dns_ms: t.resolve_ms,
            connect_ms: t.connect_end_ms().map(|end| end - t.tls_ms.unwrap_or(0.0)),
            tls_ms: t.tls_ms.and(t.connect_end_ms()),
            sent_ms: t.sent_ms,
            first_byte_ms: t.headers_ms,
            done_ms: Some(t.total_ms),
            reused: match t.connection {
                ConnectionUse::Unknown => None,
                ConnectionUse::New => Some(false),
                ConnectionUse::Reused => Some(true),
            },
        }
    }
}

/// The wait after an attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitRecord {
    /// Planned wait, ms.
    pub planned_ms: u64,
    /// Why the wait is that long (its `text` is the explanation shown).
    pub explanation: WaitExplanation,
    /// Monotonic ms since the run started when the wait began.
    pub offset_ms: f64,
    /// Measured wait, ms; `None` when the wait did not end (run cancelled or interrupted).
    pub measured_ms: Option<f64>,
    /// True when the wait was skipped ("Retry now").
    pub skipped: bool,
}

/// One recorded attempt (an `attempts` row).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// The run's id.
    pub run_id: String,
    /// Attempt number, 1-based.
    pub number: u32,
    /// Wall-clock start with offset.
    pub started_at: DateTime<FixedOffset>,
    /// Monotonic ms since the run started.
    pub offset_ms: f64,
    /// Method sent.
    pub method: String,
    /// URL sent, masked.
    pub url: String,
    /// Phase timings.
    pub phases: PhaseTimings,
    /// The engine's timings as measured.
    pub timings: Timings,
    /// Response (secret headers masked, body preview capped) or error.
    pub outcome: AttemptOutcome,
    /// Redirect hops (URLs masked).
    pub hops: Vec<Hop>,
    /// Triage verdict.
    pub verdict: Verdict,
    /// The wait that followed, if one was planned.
    pub wait: Option<WaitRecord>,
    /// The retry budget changes this attempt's outcome caused (`BudgetChanged` events, in
    /// order: tokens before and after each); empty without a budget or for runs recorded
    /// before the history kept them.
    #[serde(default)]
    pub budget: Vec<BudgetChange>,
}

/// A run with its attempts in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredRun {
    /// The run.
    pub run: RunRecord,
    /// Its attempts, by number.
    pub attempts: Vec<AttemptRecord>,
    /// The attempt that started but has no record: cut off by a cancel (outcome `cancelled`) or
    /// by the end of the process (`interrupted`), or still in flight (no outcome yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<AttemptStart>,
}

impl StoredRun {
    /// The last moment the records reach, ms from the run's start: the end of its last
    /// finished attempt or measured wait, the start of a wait that never ended, or the start
    /// of the attempt that has no record. For a run whose process died (`interrupted`) this is
    /// all that is known of its length: it lasted at least this long.
    pub fn recorded_until_ms(&self) -> f64 {
        let finished = self.attempts.iter().map(|a| {
            let attempt_end = a.offset_ms + a.timings.total_ms;
            a.wait.as_ref().map_or(attempt_end, |w| {
                attempt_end.max(w.offset_ms + w.measured_ms.unwrap_or(0.0))
            })
        });
        let unanswered = self.unanswered.as_ref().map(|u| u.offset_ms);
        finished.chain(unanswered).fold(0.0, f64::max)
    }
}

/// What [`super::HistoryStore::list`] selects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunFilter {
    /// At most this many runs (newest first); `None` = all.
    pub limit: Option<u32>,
    /// Only runs with this outcome, or only those still running.
    pub outcome: Option<OutcomeFilter>,
    /// Only runs whose (masked) URL contains this text as typed or as the URL parser stores it
    /// (percent-encoded, punycode host; [`super::url_filter_forms`]), case-insensitive (ASCII).
    pub url_contains: Option<String>,
}

/// One change to the history, sent to the writer ([`super::HistoryWriter`]).
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryWrite {
    /// Insert the run (no outcome yet).
    RunStarted(Box<RunRecord>),
    /// Note on its run that attempt `start.number` started (no outcome yet).
    AttemptStarted {
        /// Run id.
        run_id: String,
        /// The attempt's start.
        start: Box<AttemptStart>,
    },
    /// Insert a finished attempt and count it on its run.
    AttemptFinished(Box<AttemptRecord>),
    /// Record the wait planned after attempt `attempt`.
    WaitPlanned {
        /// Run id.
        run_id: String,
        /// The attempt the wait follows.
        attempt: u32,
        /// The wait.
        wait: Box<WaitRecord>,
    },
    /// Record a retry budget change caused by attempt `attempt`'s outcome.
    BudgetChanged {
        /// Run id.
        run_id: String,
        /// The attempt whose outcome caused it.
        attempt: u32,
        /// Tokens before and after, and why.
        change: Box<BudgetChange>,
    },
    /// Record how long the wait after attempt `attempt` really took.
    WaitFinished {
        /// Run id.
        run_id: String,
        /// The attempt the wait follows.
        attempt: u32,
        /// Measured ms.
        measured_ms: f64,
        /// Skipped by the user.
        skipped: bool,
    },
    /// Close the run.
    RunFinished {
        /// Run id.
        run_id: String,
        /// Wall-clock end.
        ended_at: DateTime<FixedOffset>,
        /// How it ended.
        outcome: RecordedOutcome,
        /// Banner text (masked).
        message: String,
        /// Status of the last response.
        last_status: Option<u16>,
        /// Attempts made.
        attempts: u32,
        /// Monotonic ms from start to end.
        elapsed_ms: f64,
    },
}
