//! The strategy lab's plot data as CSV (RFC 4180: comma-separated, a header row, `\n` line
//! ends; text cells quoted). Pure text; the UI copies it.

use crate::sim::{ContentionResult, Distribution, SweepPoint};
use std::fmt::Write as _;

/// One row per retry: `retry,reached,wait_min,wait_p5,wait_p50,wait_p95,wait_max,
/// wait_bound_min,wait_bound_max,cumulative_min,cumulative_p5,cumulative_p50,cumulative_p95,
/// cumulative_max,cumulative_bound_min,cumulative_bound_max` (ms; a bound the formula does not
/// give is an empty cell).
pub fn distribution_csv(d: &Distribution) -> String {
    let mut out = String::from(
        "retry,reached,wait_min,wait_p5,wait_p50,wait_p95,wait_max,wait_bound_min,wait_bound_max,\
         cumulative_min,cumulative_p5,cumulative_p50,cumulative_p95,cumulative_max,\
         cumulative_bound_min,cumulative_bound_max\n",
    );
    let pair =
        |b: Option<(f64, f64)>| b.map_or_else(|| ",".to_owned(), |(l, h)| format!("{l},{h}"));
    for r in &d.retries {
        let (w, c) = (r.wait, r.cumulative);
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.retry,
            r.reached,
            w.min,
            w.p5,
            w.p50,
            w.p95,
            w.max,
            pair(r.wait_bounds),
            c.min,
            c.p5,
            c.p50,
            c.p95,
            c.max,
            pair(r.cumulative_bounds),
        );
    }
    out
}

/// One row per (N, strategy): `clients,strategy,label,total_calls,completion_ms,gave_up,
/// peak_load,mean_load` (loads in calls a second).
///
/// ```
/// use retryscope::sim::{ContentionResult, SweepPoint};
/// let r = ContentionResult { strategy: "full_jitter".into(), label: "full jitter".into(),
///     clients: 2, total_calls: 3.5, ..Default::default() };
/// let csv = retryscope::interop::sweep_csv(&[SweepPoint { clients: 2, results: vec![r] }]);
/// assert_eq!(csv.lines().nth(1), Some("2,full_jitter,\"full jitter\",3.5,0,0,0,0"));
/// ```
pub fn sweep_csv(points: &[SweepPoint]) -> String {
    let mut out = String::from(
        "clients,strategy,label,total_calls,completion_ms,gave_up,peak_load,mean_load\n",
    );
    for p in points {
        for r in &p.results {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{}",
                p.clients,
                r.strategy,
                quoted(&r.label),
                r.total_calls,
                r.completion_ms,
                r.gave_up,
                r.peak_load,
                r.mean_load
            );
        }
    }
    out
}

/// Server load over time: `time_ms` (the start of each bucket), then one column per strategy
/// (calls a second, mean over the runs; empty past a strategy's last bucket).
pub fn load_csv(results: &[ContentionResult]) -> String {
    let mut out = String::from("time_ms");
    for r in results {
        out.push(',');
        out.push_str(&r.strategy);
    }
    out.push('\n');
    let rows = results.iter().map(|r| r.load.len()).max().unwrap_or(0);
    let bucket = results.first().map_or(10.0, |r| r.bucket_ms);
    for i in 0..rows {
        let _ = write!(out, "{}", i as f64 * bucket);
        for r in results {
            out.push(',');
            if let Some(v) = r.load.get(i) {
                let _ = write!(out, "{v}");
            }
        }
        out.push('\n');
    }
    out
}

/// A text cell in double quotes, inner quotes doubled.
fn quoted(text: &str) -> String {
    format!(
        "\"{}\"",
        super::csv_cell::formula_safe(text).replace('"', "\"\"")
    )
}
