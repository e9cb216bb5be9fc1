//! The strategy lab's plot data as CSV ([`CsvText`]: RFC 4180, a header row). Pure text; the
//! UI copies it.

use super::csv_cell::CsvText;
use crate::sim::{ContentionResult, Distribution, SweepPoint};

/// One row per retry: `retry,reached,wait_min,wait_p5,wait_p50,wait_p95,wait_max,
/// wait_bound_min,wait_bound_max,cumulative_min,cumulative_p5,cumulative_p50,cumulative_p95,
/// cumulative_max,cumulative_bound_min,cumulative_bound_max` (ms; a bound the formula does not
/// give is an empty cell).
pub fn distribution_csv(d: &Distribution) -> String {
    let mut csv = CsvText::new();
    csv.row(
        "retry,reached,wait_min,wait_p5,wait_p50,wait_p95,wait_max,wait_bound_min,wait_bound_max,\
         cumulative_min,cumulative_p5,cumulative_p50,cumulative_p95,cumulative_max,\
         cumulative_bound_min,cumulative_bound_max"
            .split(','),
    );
    let pair = |b: Option<(f64, f64)>| {
        b.map_or([String::new(), String::new()], |(l, h)| {
            [l, h].map(|v| v.to_string())
        })
    };
    for r in &d.retries {
        let (w, c) = (r.wait, r.cumulative);
        let [wait_low, wait_high] = pair(r.wait_bounds);
        let [cumulative_low, cumulative_high] = pair(r.cumulative_bounds);
        csv.row([
            r.retry.to_string(),
            r.reached.to_string(),
            w.min.to_string(),
            w.p5.to_string(),
            w.p50.to_string(),
            w.p95.to_string(),
            w.max.to_string(),
            wait_low,
            wait_high,
            c.min.to_string(),
            c.p5.to_string(),
            c.p50.to_string(),
            c.p95.to_string(),
            c.max.to_string(),
            cumulative_low,
            cumulative_high,
        ]);
    }
    csv.finish()
}

/// One row per (N, strategy): `clients,strategy,label,total_calls,completion_ms,gave_up,
/// peak_load,mean_load` (loads in calls a second).
///
/// ```
/// use retryscope::sim::{ContentionResult, SweepPoint};
/// let r = ContentionResult { strategy: "full_jitter".into(), label: "full jitter".into(),
///     clients: 2, total_calls: 3.5, ..Default::default() };
/// let csv = retryscope::interop::sweep_csv(&[SweepPoint { clients: 2, results: vec![r] }]);
/// assert_eq!(csv.lines().nth(1), Some("2,full_jitter,full jitter,3.5,0,0,0,0"));
/// ```
pub fn sweep_csv(points: &[SweepPoint]) -> String {
    let mut csv = CsvText::new();
    csv.row(
        "clients,strategy,label,total_calls,completion_ms,gave_up,peak_load,mean_load".split(','),
    );
    for p in points {
        for r in &p.results {
            csv.row([
                p.clients.to_string(),
                r.strategy.clone(),
                r.label.clone(),
                r.total_calls.to_string(),
                r.completion_ms.to_string(),
                r.gave_up.to_string(),
                r.peak_load.to_string(),
                r.mean_load.to_string(),
            ]);
        }
    }
    csv.finish()
}

/// Server load over time: `time_ms` (the start of each bucket), then one column per strategy
/// (calls a second, mean over the runs; empty past a strategy's last bucket).
pub fn load_csv(results: &[ContentionResult]) -> String {
    let mut csv = CsvText::new();
    csv.row(std::iter::once("time_ms").chain(results.iter().map(|r| r.strategy.as_str())));
    let rows = results.iter().map(|r| r.load.len()).max().unwrap_or(0);
    let bucket = results.first().map_or(10.0, |r| r.bucket_ms);
    for i in 0..rows {
        let loads = results
            .iter()
            .map(|r| r.load.get(i).map(ToString::to_string).unwrap_or_default());
        csv.row(std::iter::once((i as f64 * bucket).to_string()).chain(loads));
    }
    csv.finish()
}
