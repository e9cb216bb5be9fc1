//! Runs per time bucket: the width is picked from the time the runs span, so a report of an
//! hour and one of a week both show a readable number of buckets.

use super::observed::ObservedRun;
use super::stats::Percentiles;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most buckets a report shows.
pub const MAX_BUCKETS: u64 = 48;

/// Bucket widths to pick from, ms: 1 s … 7 d.
#[rustfmt::skip]
const WIDTHS_MS: [u64; 17] = [
    1_000, 5_000, 10_000, 30_000, 60_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000,
    7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 172_800_000, 604_800_000,
];

/// Runs over time in buckets of equal width.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Buckets {
    /// Width of each bucket, ms: the smallest of 1 s, 5 s, 10 s, 30 s, 1 min, 5 min, 10 min,
    /// 15 min, 30 min, 1 h, 2 h, 3 h, 6 h, 12 h, 1 d, 2 d, 7 d that gives at most
    /// [`MAX_BUCKETS`] buckets.
    pub width_ms: u64,
    /// Every bucket from the first run's start to the last attempt's start, empty ones included,
    /// in time order.
    pub items: Vec<Bucket>,
}

/// The runs that started in one bucket, and the failed attempts sent in it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Bucket {
    /// Bucket start (a multiple of the width since the Unix epoch), in the first run's offset.
    pub start: Option<DateTime<FixedOffset>>,
    /// Runs that started in it.
    pub runs: u64,
    /// Of those, runs that succeeded.
    pub succeeded: u64,
    /// Of those, runs that failed (`gave_up`, `stopped`, `deadline`, `error`).
    pub failed: u64,
    /// Failed attempts (every attempt but a success) sent in this bucket, whichever bucket
    /// their run started in, by status or error kind (`"503"`, `"reset"`).
    pub failed_attempts: BTreeMap<String, u64>,
    /// Time to success of its successful runs, ms (all zero without one).
    pub time_to_success: Percentiles,
}

impl Bucket {
    /// Succeeded over succeeded + failed runs, in [0, 1]; `None` without either (cancelled and
    /// unfinished runs are no evidence), as the report's overall success rate.
    pub fn success_share(&self) -> Option<f64> {
        let trials = self.succeeded + self.failed;
        (trials > 0).then(|| self.succeeded as f64 / trials as f64)
    }
}

/// The runs (sorted by start) in buckets.
pub fn buckets(runs: &[ObservedRun]) -> Buckets {
    let (Some(first), Some(last)) = (runs.first(), runs.last()) else {
        return Buckets::default();
    };
    // Up to the last attempt's start: a failed attempt counts in the bucket it was sent in.
    #[allow(
        clippy::cast_possible_truncation,
        reason = "an offset is ms within one run, far inside i64; `as` saturates anyway"
    )]
    let attempt_at = |run: &ObservedRun, a: &super::observed::ObservedAttempt| {
        run.start_unix_ms() + a.offset_ms.max(0.0).floor() as i64
    };
    let last_attempt = runs
        .iter()
        .filter_map(|r| r.attempts.last().map(|a| attempt_at(r, a)))
        .max()
        .unwrap_or(i64::MIN);
    let (from, to) = (
        first.start_unix_ms(),
        last.start_unix_ms()
            .max(first.start_unix_ms())
            .max(last_attempt),
    );
    let span = u64::try_from(to - from).unwrap_or(0);
    let width = WIDTHS_MS
        .into_iter()
        .find(|w| span / w < MAX_BUCKETS)
        .unwrap_or(WIDTHS_MS[WIDTHS_MS.len() - 1]);
    let w = i64::try_from(width).unwrap_or(i64::MAX);
    let base = from.div_euclid(w) * w;
    let count = usize::try_from((to - base) / w + 1).unwrap_or(1);
    let offset = *first.started_at.offset();
    let mut items: Vec<Bucket> = (0..count)
        .map(|i| Bucket {
            start: DateTime::from_timestamp_millis(base + w * i64::try_from(i).unwrap_or(0))
                .map(|t| t.with_timezone(&offset)),
            ..Bucket::default()
        })
        .collect();
    let mut tts: Vec<Vec<f64>> = vec![Vec::new(); count];
    let at = |unix_ms: i64| {
        usize::try_from((unix_ms - base) / w)
            .unwrap_or(0)
            .min(count - 1)
    };
    for run in runs {
        let i = at(run.start_unix_ms());
        let b = &mut items[i];
        b.runs += 1;
        b.succeeded += u64::from(run.succeeded());
        b.failed += u64::from(run.failed());
        for a in failed_attempts(run) {
            let sent_in = &mut items[at(attempt_at(run, a))];
            *sent_in.failed_attempts.entry(a.result.label()).or_default() += 1;
        }
        if run.succeeded() {
            tts[i].push(run.last_attempt_end_ms());
        }
    }
    for (b, values) in items.iter_mut().zip(tts) {
        b.time_to_success = Percentiles::of(values);
    }
    Buckets {
        width_ms: width,
        items,
    }
}

/// A run's failed attempts: all but the last of a run that succeeded, all of any other.
pub fn failed_attempts(run: &ObservedRun) -> &[super::observed::ObservedAttempt] {
    let n = run.attempts.len();
    &run.attempts[..if run.succeeded() {
        n.saturating_sub(1)
    } else {
        n
    }]
}
