//! The report's figures over a set of recorded runs (DESIGN.md §12): one JSON shape, which the
//! HTML and Markdown reports render. Pure: the caller passes the runs, the selection that chose
//! them, what was sent and the time of generation.

use super::buckets::{Buckets, buckets, failed_attempts};
use super::delays::{DelayHeaderSeen, delay_headers};
use super::observed::{AttemptResult, ObservedRun};
use super::picks::{InformativeRun, informative_runs};
use super::sent::SentRequest;
use super::stats::{Percentiles, Proportion};
use crate::model::OutcomeKind;
use crate::policy::WatchSchedule;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `format` of a report's JSON.
pub const REPORT_FORMAT: &str = "retryscope-report/1";

/// What the caller knows about a report beyond its runs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReportContext {
    /// The filter that chose the runs, as given (`url` → `/status`, `since` → an RFC 3339 time).
    pub selection: BTreeMap<String, String>,
    /// The request of the newest run, masked.
    pub request: Option<SentRequest>,
    /// When the report was made.
    pub generated_at: Option<DateTime<FixedOffset>>,
    /// The watch the runs are of, when the selection is one watch's runs.
    pub watch: Option<WatchFigures>,
    /// Said at the top of the report: the runs mix profiles or endpoints.
    pub warning: Option<String>,
}

/// The watch a report is of: its schedule and what became of its slots, so a reader sees
/// how often the endpoint was asked and which times went unsampled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchFigures {
    /// The watch's id.
    pub id: String,
    /// `running`, `paused`, `finished`, `cancelled` or `interrupted`.
    pub state: String,
    /// When its slots are due (interval and Unix times in ms, jitter a ratio).
    pub schedule: WatchSchedule,
    /// The schedule as the CLI writes it (`every 30 s ± 10 %, 5 slots`).
    pub schedule_text: String,
    /// Slots recorded so far: sent and missed.
    pub slots: u64,
    /// Slots sent (each started a run).
    pub sent: u64,
    /// Slots missed, by why.
    pub missed: MissedSlots,
}

/// A watch's missed slots by why (slots not sent: no evidence for their times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MissedSlots {
    /// All missed slots.
    pub total: u64,
    /// The watch's previous run was still going.
    pub busy: u64,
    /// Its time passed while nothing could send (the machine slept).
    pub late: u64,
    /// No process ran the watch (paused, or its process died).
    pub down: u64,
}

/// Every figure of a report. Times are RFC 3339 with offset; durations are ms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// [`REPORT_FORMAT`].
    pub format: String,
    /// When the report was made.
    pub generated_at: Option<DateTime<FixedOffset>>,
    /// The filter that chose the runs.
    pub selection: BTreeMap<String, String>,
    /// What was sent (the newest run's request), secrets masked.
    pub request: Option<SentRequest>,
    /// Profiles the runs used, most runs first.
    pub profiles: Vec<ProfileUse>,
    /// Start of the first run.
    pub first_run_at: Option<DateTime<FixedOffset>>,
    /// Start of the last run.
    pub last_run_at: Option<DateTime<FixedOffset>>,
    /// How many runs ended how.
    pub runs: RunCounts,
    /// Succeeded runs over succeeded + failed ones (cancelled and unfinished runs left out),
    /// with its 95 % Wilson interval.
    pub success_rate: Proportion,
    /// Time to success of the successful runs: from the run's start to the end of its
    /// successful attempt, ms.
    pub time_to_success: Percentiles,
    /// Attempts per run.
    pub attempts_per_run: AttemptsPerRun,
    /// Failed attempts by status or error kind, most first.
    pub failures: Vec<FailureCount>,
    /// The runs over time.
    pub buckets: Buckets,
    /// The longest streak of consecutive failed runs; `None` without a failed run.
    pub longest_outage: Option<Outage>,
    /// Delay headers the server sent, by name.
    pub delay_headers: Vec<DelayHeaderSeen>,
    /// Up to three runs worth reading, with their timelines.
    pub informative_runs: Vec<InformativeRun>,
    /// The watch the runs are of; absent unless the selection is one watch's runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<WatchFigures>,
    /// Said when the runs were recorded under several profiles or sent to several endpoints
    /// (the figures mix them); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// How many runs used a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileUse {
    /// Profile name.
    pub name: String,
    /// Runs under it.
    pub runs: u64,
}

/// Runs by how they ended.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RunCounts {
    /// Every run of the selection.
    pub total: u64,
    /// Ended `succeeded`.
    pub succeeded: u64,
    /// Ended `gave_up`, `stopped`, `deadline` or `error`.
    pub failed: u64,
    /// Ended `cancelled` (by the user: no evidence).
    pub cancelled: u64,
    /// Did not finish (interrupted or still running).
    pub unfinished: u64,
    /// Failed runs by outcome id (`gave_up`, …).
    pub failed_by_outcome: BTreeMap<String, u64>,
}

/// Attempts per run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AttemptsPerRun {
    /// Attempts over all runs (the load the runs put on the server).
    pub total: u64,
    /// Mean attempts per run.
    pub mean: f64,
    /// Nearest-rank percentiles and the largest count (the `_ms` fields hold attempt counts).
    pub percentiles: Percentiles,
    /// Runs by attempt count (`{"1": 80, "3": 4}`).
    pub histogram: BTreeMap<u32, u64>,
}

/// Failed attempts with one status or error kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureCount {
    /// `503` or `reset`.
    pub label: String,
    /// `status` or `error`.
    pub kind: String,
    /// Failed attempts with it.
    pub attempts: u64,
    /// Runs that ended failed with it as their last attempt's result.
    pub runs_ended: u64,
}

/// A streak of consecutive failed runs (cancelled and unfinished runs neither break nor join
/// it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outage {
    /// Failed runs in the streak.
    pub runs: u64,
    /// Id of its first run.
    pub first_run_id: String,
    /// Id of its last run.
    pub last_run_id: String,
    /// Start of its first run.
    pub from: DateTime<FixedOffset>,
    /// End of its last run's last attempt.
    pub until: DateTime<FixedOffset>,
    /// `until − from`, ms.
    pub duration_ms: f64,
}

/// The figures of `runs` (any order; they are sorted by start, then id).
pub fn figures(runs: &[ObservedRun], context: &ReportContext) -> Figures {
    let mut sorted: Vec<ObservedRun> = runs.to_vec();
    sorted.sort_by(|a, b| (a.started_at, &a.id).cmp(&(b.started_at, &b.id)));
    let runs = sorted.as_slice();
    let counts = run_counts(runs);
    let (outage, outage_start) = longest_outage(runs);
    Figures {
        format: REPORT_FORMAT.to_owned(),
        generated_at: context.generated_at,
        selection: context.selection.clone(),
        request: context.request.clone(),
        profiles: profiles(runs),
        first_run_at: runs.first().map(|r| r.started_at),
        last_run_at: runs.last().map(|r| r.started_at),
        success_rate: counts.success_rate(),
        runs: counts,
        time_to_success: Percentiles::of(
            runs.iter()
                .filter(|r| r.succeeded())
                .map(ObservedRun::last_attempt_end_ms)
                .collect(),
        ),
        attempts_per_run: attempts_per_run(runs),
        failures: failures(runs),
        buckets: buckets(runs),
        longest_outage: outage,
        delay_headers: delay_headers(runs),
        informative_runs: informative_runs(runs, outage_start),
        watch: context.watch.clone(),
        warning: context.warning.clone(),
    }
}

fn run_counts(runs: &[ObservedRun]) -> RunCounts {
    let mut c = RunCounts::default();
    for r in runs {
        c.add(r.outcome, 1);
    }
    c
}

impl RunCounts {
    /// Counts `n` more runs that ended `outcome` (`None` or `interrupted`: unfinished).
    pub fn add(&mut self, outcome: Option<OutcomeKind>, n: u64) {
        self.total += n;
        match outcome {
            Some(OutcomeKind::Succeeded) => self.succeeded += n,
            Some(OutcomeKind::Cancelled) => self.cancelled += n,
            None | Some(OutcomeKind::Interrupted) => self.unfinished += n,
            Some(failed) => {
                self.failed += n;
                *self
                    .failed_by_outcome
                    .entry(failed.id().to_owned())
                    .or_default() += n;
            }
        }
    }

    /// Succeeded runs over succeeded and failed ones, with its 95 % Wilson interval.
    pub fn success_rate(&self) -> Proportion {
        Proportion::wilson(self.succeeded, self.succeeded + self.failed)
    }
}

fn profiles(runs: &[ObservedRun]) -> Vec<ProfileUse> {
    let mut by_name: BTreeMap<&str, u64> = BTreeMap::new();
    for r in runs {
        *by_name.entry(&r.profile_name).or_default() += 1;
    }
    let mut out: Vec<ProfileUse> = by_name
        .into_iter()
        .map(|(name, runs)| ProfileUse {
            name: name.to_owned(),
            runs,
        })
        .collect();
    out.sort_by(|a, b| b.runs.cmp(&a.runs).then_with(|| a.name.cmp(&b.name)));
    out
}

fn attempts_per_run(runs: &[ObservedRun]) -> AttemptsPerRun {
    let counts: Vec<u32> = runs.iter().map(|r| r.attempts_made).collect();
    let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let mut histogram = BTreeMap::new();
    for &c in &counts {
        *histogram.entry(c).or_default() += 1;
    }
    AttemptsPerRun {
        total,
        mean: if runs.is_empty() {
            0.0
        } else {
            total as f64 / runs.len() as f64
        },
        percentiles: Percentiles::of(counts.iter().map(|&c| f64::from(c)).collect()),
        histogram,
    }
}

fn failures(runs: &[ObservedRun]) -> Vec<FailureCount> {
    let kind = |r: AttemptResult| match r {
        AttemptResult::Status(_) => "status",
        AttemptResult::Error(_) => "error",
    };
    // (kind, label) → (attempts, runs ended with it)
    let mut by: BTreeMap<(&str, String), (u64, u64)> = BTreeMap::new();
    for r in runs {
        for a in failed_attempts(r) {
            by.entry((kind(a.result), a.result.label())).or_default().0 += 1;
        }
        if r.failed()
            && let Some(last) = r.attempts.last()
        {
            by.entry((kind(last.result), last.result.label()))
                .or_default()
                .1 += 1;
        }
    }
    let mut out: Vec<FailureCount> = by
        .into_iter()
        .map(|((kind, label), (attempts, runs_ended))| FailureCount {
            label,
            kind: kind.to_owned(),
            attempts,
            runs_ended,
        })
        .collect();
    out.sort_by(|a, b| {
        b.attempts
            .cmp(&a.attempts)
            .then_with(|| a.label.cmp(&b.label))
    });
    out
}

/// The longest streak of failed runs (the earliest on a tie) and the index of its first run.
fn longest_outage(runs: &[ObservedRun]) -> (Option<Outage>, Option<usize>) {
    let mut best: Option<(usize, usize, u64)> = None;
    let mut current: Option<(usize, usize, u64)> = None;
    for (i, r) in runs.iter().enumerate() {
        if r.succeeded() {
            current = None;
        } else if r.failed() {
            let (first, _, n) = current.unwrap_or((i, i, 0));
            let streak = (first, i, n + 1);
            current = Some(streak);
            if best.is_none_or(|(_, _, m)| streak.2 > m) {
                best = Some(streak);
            }
        }
    }
    let Some((first, last, n)) = best else {
        return (None, None);
    };
    let (a, b) = (&runs[first], &runs[last]);
    #[allow(
        clippy::cast_possible_truncation,
        reason = "ms durations far below i64::MAX"
    )]
    let end_ms = b.start_unix_ms() + b.last_attempt_end_ms().ceil() as i64;
    let until = DateTime::from_timestamp_millis(end_ms)
        .map_or(b.started_at, |t| t.with_timezone(b.started_at.offset()));
    let outage = Outage {
        runs: n,
        first_run_id: a.id.clone(),
        last_run_id: b.id.clone(),
        from: a.started_at,
        until,
        duration_ms: (end_ms - a.start_unix_ms()) as f64,
    };
    (Some(outage), Some(first))
}
