//! The rows of the history database (DESIGN.md §10): a run and its attempts, secrets already
//! masked by the one rule ([`crate::model::secrets`]).

use super::outcome_filter::OutcomeFilter;
use crate::model::{
    AttemptRow, BudgetChange, ConnectionUse, OutcomeKind, RequestSpec, RunFinish, RunFold,
    RunHeader, RunOutcome, Timings, WaitRow,
};
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

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
    /// How it ended (`interrupted` when the process died first, found on the next open);
    /// `None` while running.
    pub outcome: Option<OutcomeKind>,
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
    /// The watch this run is a slot of, if any (schema step 9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch_id: Option<String>,
    /// The last attempt the run started (its row without a result), written when it starts
    /// (schema step 8), so an attempt cut off mid-flight (Ctrl-C, `kill -9`) leaves a trace;
    /// `None` before the first attempt and for runs recorded before step 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt_started: Option<AttemptRow>,
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

/// One recorded attempt (an `attempts` row): the fold's row of a finished attempt, with its
/// run's id. Reads as the row.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptRecord {
    /// The run's id.
    pub run_id: String,
    /// The attempt (secret headers masked, body preview capped).
    pub row: AttemptRow,
}

impl std::ops::Deref for AttemptRecord {
    type Target = AttemptRow;
    fn deref(&self) -> &AttemptRow {
        &self.row
    }
}

/// A run read back: its record and its [`RunFold`] (the same rows a live run folds into; the
/// attempt that started but has no record, if any, is the last row without a result).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// The run.
    pub run: RunRecord,
    /// Its attempts, by number, and its end.
    pub fold: RunFold,
}

impl StoredRun {
    /// The run `run` with its finished `attempts` (by number), as one fold: the attempt it
    /// started last and never finished joins as a row without a result, and its end closes
    /// what it cut off. An `interrupted` run's end was never measured: its `elapsed_ms` is how
    /// far the records reach, and its message says how it ended when none was recorded.
    pub fn read_back(run: RunRecord, mut attempts: Vec<AttemptRow>) -> Self {
        if let Some(start) = &run.attempt_started
            && !attempts.iter().any(|a| a.number == start.number)
        {
            attempts.push(start.clone());
        }
        let header = RunHeader {
            seed: run.seed,
            profile: run.profile_name.clone(),
            method: run.method.clone(),
            url: run.url.clone(),
            started_at: run.started_at,
            tls_unverified: !run.request.verify_tls,
        };
        let mut fold = RunFold::from_rows(0, header, attempts, None);
        let finish = run.outcome.map(|kind| {
            let message = match (kind, &run.outcome_message) {
                (OutcomeKind::Interrupted, _) | (_, None) => format!(
                    "{} after {}",
                    kind.id(),
                    crate::model::counted(u64::from(run.attempts), "attempt", "attempts")
                ),
                (_, Some(m)) => m.clone(),
            };
            let last_status = run.last_status.or_else(|| {
                fold.attempts
                    .iter()
                    .rev()
                    .find_map(|a| a.result.as_ref()?.outcome.status())
            });
            RunFinish {
                outcome: RunOutcome {
                    kind,
                    message,
                    last_status,
                },
                attempts: run.attempts,
                elapsed_ms: run.elapsed_ms.unwrap_or_else(|| fold.recorded_until_ms()),
            }
        });
        if let Some(f) = finish {
            fold.end(f);
        }
        Self { run, fold }
    }

    /// The attempt that started but has no record: cut off by a cancel (outcome `cancelled`)
    /// or by the end of the process (`interrupted`), or still in flight (no outcome yet).
    pub fn unanswered(&self) -> Option<&AttemptRow> {
        self.fold.attempts.last().filter(|a| a.result.is_none())
    }

    /// The attempts that have a record (finished), by number.
    pub fn answered(&self) -> impl Iterator<Item = &AttemptRow> {
        self.fold.attempts.iter().filter(|a| a.result.is_some())
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
        /// The attempt's row, as it started (no result).
        start: Box<AttemptRow>,
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
        wait: Box<WaitRow>,
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
    RunFinished(FinishedRun),
}

/// How a run ended, as [`HistoryWrite::RunFinished`] records it on its `runs` row.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedRun {
    /// Run id.
    pub run_id: String,
    /// Wall-clock end.
    pub ended_at: DateTime<FixedOffset>,
    /// How it ended.
    pub outcome: OutcomeKind,
    /// Banner text (masked).
    pub message: String,
    /// Status of the last response.
    pub last_status: Option<u16>,
    /// Attempts made.
    pub attempts: u32,
    /// Monotonic ms from start to end.
    pub elapsed_ms: f64,
}

impl RunRecord {
    /// The record with `end`'s fields filled in, as the `runs` row reads once `end` is applied.
    pub(super) fn finish(&mut self, end: FinishedRun) {
        self.ended_at = Some(end.ended_at);
        self.outcome = Some(end.outcome);
        self.outcome_message = Some(end.message);
        self.last_status = end.last_status;
        self.attempts = end.attempts;
        self.elapsed_ms = Some(end.elapsed_ms);
    }
}
