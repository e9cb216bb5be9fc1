//! Run events: the only thing the engine tells its front ends (DESIGN.md §6).

use super::attempt::{AttemptOutcome, Hop, Timings, Verdict};
use super::budget::BudgetChange;
use super::profile::Strategy;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Identifies one run within a process (1, 2, …).
pub type RunId = u64;

/// One random draw used in a wait, e.g. the multiplier `m` drawn from `U[0, 3]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draw {
    /// What was drawn (`multiplier`, `jitter`, `factor`).
    pub name: String,
    /// The value drawn.
    pub value: f64,
    /// Lower bound of the uniform range.
    pub low: f64,
    /// Upper bound of the uniform range.
    pub high: f64,
}

/// Why a wait is as long as it is: inputs, draws, cap, jitter, and the verbatim text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitExplanation {
    /// Retry number n this wait precedes (wait n comes before attempt n + 1).
    pub retry: u32,
    /// Strategy that produced the wait (for `response_header` with fallback: `response_header`).
    pub strategy: Strategy,
    /// The delay before any jitter, ms (after the cap when the formula caps first).
    pub unjittered_ms: f64,
    /// Every random draw, in order.
    pub draws: Vec<Draw>,
    /// Whether the max delay cut the value.
    pub capped: bool,
    /// The final wait, ms (whole ms, rounded up).
    pub wait_ms: u64,
    /// Human text shown verbatim by UI and CLI, e.g.
    /// `retry 2: exponential m=2.37 (U[0,3]) × 1000 = 2370 ms → cap 10000 → + jitter 812 (U[0,1500]) = 3182 ms`.
    pub text: String,
}

impl fmt::Display for WaitExplanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// How a run ended.
#[derive(strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// A success status arrived.
    Succeeded,
    /// Max retries reached.
    GaveUp,
    /// Triage or policy stopped retrying (non-retryable status, non-idempotent, server asked too long, script `()`).
    Stopped,
    /// The deadline passed or the next wait would pass it.
    Deadline,
    /// The user cancelled.
    Cancelled,
    /// A usage problem (bad URL, unreadable body file) or a custom script error.
    Error,
    /// The process ended (crash, `kill -9`) before the run finished: found in the history on
    /// the next open, never sent by the engine.
    Interrupted,
}

impl OutcomeKind {
    /// Every outcome, in display order.
    pub const ALL: [OutcomeKind; 7] = [
        Self::Succeeded,
        Self::GaveUp,
        Self::Stopped,
        Self::Deadline,
        Self::Cancelled,
        Self::Error,
        Self::Interrupted,
    ];

    /// The `snake_case` id stored, printed and used in JSON (`gave_up`).
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// The outcome whose [`Self::id`] is `id`, if any.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.id() == id)
    }
}

/// The end of a run, with the banner text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// Category.
    pub kind: OutcomeKind,
    /// Banner text, e.g. `succeeded on attempt 3 after 4.1 s`, `gave up after 4 attempts (503)`.
    pub message: String,
    /// Status of the last response, if any.
    pub last_status: Option<u16>,
}

/// What every view of a run with `tls_unverified` says (CLI timeline, window banner, log).
pub const TLS_UNVERIFIED_NOTE: &str = "TLS verification is off: certificates are not checked, \
     so this run cannot tell the real server from an impostor";

/// Everything that happens in a run, in order. Every variant carries `run_id`.
// `AttemptFinished` is the big one (outcome, timings with their phases): a few events per
// attempt through a bounded channel, so boxing it would buy nothing and churn every consumer.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    /// Sent once, before attempt 1.
    RunStarted {
        /// Run id.
        run_id: RunId,
        /// RNG seed in use (replay with `--seed`).
        seed: u64,
        /// Profile name.
        profile: String,
        /// Method of attempt 1.
        method: String,
        /// URL of attempt 1 (with query; secrets are never in URLs we build).
        url: String,
        /// Wall-clock start with local offset.
        started_at: DateTime<FixedOffset>,
        /// True when TLS certificates are not verified in this run (`-k`, "Verify TLS" off):
        /// every view of the run says so.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        tls_unverified: bool,
    },
    /// Sent when attempt `attempt` begins (before DNS/connect).
    AttemptStarted {
        /// Run id.
        run_id: RunId,
        /// Attempt number, 1-based.
        attempt: u32,
        /// Method sent.
        method: String,
        /// URL sent (the last hop of the previous attempt for retries after redirects).
        url: String,
        /// Wall-clock start with local offset.
        started_at: DateTime<FixedOffset>,
        /// Monotonic ms since the run started.
        offset_ms: f64,
    },
    /// Sent when attempt `attempt` has a final outcome.
    AttemptFinished {
        /// Run id.
        run_id: RunId,
        /// Attempt number, 1-based.
        attempt: u32,
        /// Response or network error.
        outcome: AttemptOutcome,
        /// Redirect hops followed before the final response.
        hops: Vec<Hop>,
        /// Measured timings.
        timings: Timings,
        /// Triage verdict on this outcome.
        verdict: Verdict,
    },
    /// Sent when a retry budget's balance changes because of this run: a retry's cost taken
    /// (after `AttemptFinished`, before `WaitScheduled`), a retry refused (then `RunFinished`
    /// with `stopped`), a refund or a success increment (after a successful `AttemptFinished`).
    /// Only for profiles with a `retry_budget`.
    BudgetChanged {
        /// Run id.
        run_id: RunId,
        /// The attempt whose outcome caused the change (the retried one for a charge).
        attempt: u32,
        /// Balance before and after, and why.
        change: BudgetChange,
    },
    /// Sent when a wait is planned, before it starts.
    WaitScheduled {
        /// Run id.
        run_id: RunId,
        /// Retry number n the wait precedes.
        retry: u32,
        /// Planned wait, ms.
        planned_ms: u64,
        /// Why.
        explanation: WaitExplanation,
        /// Monotonic ms since the run started when the wait began.
        offset_ms: f64,
    },
    /// Sent when a wait ends (elapsed or skipped).
    WaitFinished {
        /// Run id.
        run_id: RunId,
        /// Retry number n.
        retry: u32,
        /// Planned wait, ms.
        planned_ms: u64,
        /// Measured wait on the monotonic clock, ms.
        actual_ms: f64,
        /// True when the user pressed "Retry now".
        skipped: bool,
    },
    /// Sent once, last.
    RunFinished {
        /// Run id.
        run_id: RunId,
        /// How it ended.
        outcome: RunOutcome,
        /// Attempts made.
        attempts: u32,
        /// Monotonic ms from run start to end.
        elapsed_ms: f64,
    },
}

impl RunEvent {
    /// The run this event belongs to.
    pub fn run_id(&self) -> RunId {
        match self {
            RunEvent::RunStarted { run_id, .. }
            | RunEvent::AttemptStarted { run_id, .. }
            | RunEvent::AttemptFinished { run_id, .. }
            | RunEvent::BudgetChanged { run_id, .. }
            | RunEvent::WaitScheduled { run_id, .. }
            | RunEvent::WaitFinished { run_id, .. }
            | RunEvent::RunFinished { run_id, .. } => *run_id,
        }
    }
}
