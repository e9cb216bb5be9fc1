//! A what-if result as text, the same figures in `retryscope whatif`'s table and the Watches
//! tab's *What-if* grid: durations and shares by [`duration_text`] and [`percent_text`].

use super::whatif::{CandidateEstimate, ResolutionRow, WhatIfResult};
use crate::report::{duration_text, percent_text};
use std::fmt::Write as _;

/// The column titles of [`cells`].
pub const WHATIF_COLUMNS: [&str; 9] = [
    "rank",
    "profile",
    "success",
    "band",
    "p50",
    "p95",
    "p99",
    "attempts/run",
    "deadline",
];

/// The two lines above the table: runs, samples, sampling interval and seed; the recorded
/// success share with its 95 % interval.
pub fn summary_lines(r: &WhatIfResult) -> [String; 2] {
    [
        format!(
            "what-if over {} ({} attempts as samples, a run every {}), seed {}",
            crate::model::counted(r.runs, "recorded run", "recorded runs"),
            r.samples,
            duration_text(r.sampling_interval_ms),
            r.seed
        ),
        format!(
            "recorded: {} succeeded (95 % interval {} – {})",
            percent_text(r.recorded.value),
            percent_text(r.recorded.low),
            percent_text(r.recorded.high)
        ),
    ]
}

/// One candidate's row under [`WHATIF_COLUMNS`]: rank, the name it was given (with the
/// profile's name when they differ), success share, sampling band, time-to-success p50/p95/p99,
/// attempts per run, deadline hits (`—` for the times when no replayed run succeeded).
pub fn cells(c: &CandidateEstimate) -> [String; 9] {
    let name = if c.id == c.name || c.id == "recorded" {
        c.name.clone()
    } else {
        format!("{} ({})", c.id, c.name)
    };
    [
        c.rank.to_string(),
        name,
        percent_text(c.success.value),
        format!(
            "{} – {}",
            percent_text(c.band.low),
            percent_text(c.band.high)
        ),
        percentile_text(&c.time_to_success, c.time_to_success.p50_ms),
        percentile_text(&c.time_to_success, c.time_to_success.p95_ms),
        percentile_text(&c.time_to_success, c.time_to_success.p99_ms),
        format!("{:.2}", c.attempts_per_run),
        c.deadline_hits.to_string(),
    ]
}

/// `ms` of `p` as a duration, or `—` when no replayed run succeeded (no time to read).
fn percentile_text(p: &crate::report::Percentiles, ms: f64) -> String {
    if p.count == 0 {
        "—".to_owned()
    } else {
        duration_text(ms)
    }
}

/// One resolution row: `a run every    40 s: 75.0 % (band 50.0 % – 75.0 %)`.
pub fn resolution_text(row: &ResolutionRow) -> String {
    format!(
        "a run every {:>8}: {} (band {} – {})",
        duration_text(row.sampling_interval_ms),
        percent_text(row.success_share),
        percent_text(row.band.low),
        percent_text(row.band.high)
    )
}

/// What the current mark stands for: `the recorded runs' profile`, or `the newest run's profile
/// (the runs were recorded under 3 profiles)` when they were recorded under several.
fn current_text(r: &WhatIfResult) -> String {
    if r.recorded_profiles > 1 {
        format!(
            "the newest run's profile (the runs were recorded under {} profiles)",
            r.recorded_profiles
        )
    } else {
        "the recorded runs' profile".to_owned()
    }
}

/// The ranked table (the current profile marked `*`, a name wider than its 36 terminal columns
/// cut with `…`), the resolution lines of the current profile and the assumptions, as `retryscope
/// whatif` prints them; a `warning:` line under the summary when the runs are mixed
/// ([`WhatIfResult::warning`]).
pub fn table(r: &WhatIfResult) -> String {
    let mut t = String::new();
    let [runs, recorded] = summary_lines(r);
    let _ = writeln!(t, "{runs}\n{recorded}");
    if let Some(warning) = &r.warning {
        let _ = writeln!(t, "warning: {warning}");
    }
    t.push('\n');
    let c = WHATIF_COLUMNS;
    let _ = writeln!(
        t,
        "{:<4}  {:<36} {:>8}  {:>17}  {:>8} {:>8} {:>8}  {:>12}  {:>8}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
    );
    for e in &r.candidates {
        let [rank, name, success, band, p50, p95, p99, attempts, deadline] = cells(e);
        let name = crate::model::quote::fit_columns(&name, 36);
        let mark = if e.current { "*" } else { " " };
        let _ = writeln!(
            t,
            "{mark}{rank:>3}  {name} {success:>8}  {band:>17}  {p50:>8} {p95:>8} {p99:>8}  {attempts:>12}  {deadline:>8}"
        );
    }
    if let Some(current) = r.candidates.iter().find(|c| c.current) {
        let _ = write!(t, "\n* {}.", current_text(r));
        if current.resolution.is_empty() {
            t.push('\n');
        } else {
            let _ = writeln!(t, " Its band as the samples thin out:");
        }
        for row in &current.resolution {
            let _ = writeln!(t, "  {}", resolution_text(row));
        }
    }
    t.push_str("\nassumptions:\n");
    for a in &r.assumptions {
        let _ = writeln!(t, "- {a}");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Percentiles, Proportion};

    #[test]
    fn no_success_shows_no_time_and_no_empty_band_heading() {
        let estimate = CandidateEstimate {
            rank: 1,
            id: "recorded".into(),
            name: "p".into(),
            current: true,
            success: Proportion::wilson(0, 3),
            band: crate::sim::whatif::Band::default(),
            time_to_success: Percentiles::default(),
            attempts: 12,
            attempts_per_run: 4.0,
            deadline_hits: 0,
            outcomes: std::collections::BTreeMap::new(),
            resolution: Vec::new(),
        };
        let row = cells(&estimate);
        assert_eq!(row[4..7], ["—", "—", "—"]);
        let result = WhatIfResult {
            format: String::new(),
            seed: 1,
            runs: 3,
            samples: 12,
            sampling_interval_ms: 10_000.0,
            recorded: Proportion::wilson(0, 3),
            recorded_profiles: 1,
            recorded_endpoints: 1,
            warning: None,
            assumptions: Vec::new(),
            candidates: vec![estimate],
        };
        let text = table(&result);
        assert!(text.contains("\n* the recorded runs' profile.\n"), "{text}");
        assert!(!text.contains("thin out"), "{text}");
    }
}
