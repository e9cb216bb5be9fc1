//! A loaded watch as what the tab draws: plot points, row texts and the report's figures, made
//! once per load so a frame allocates nothing in proportion to the runs.

use crate::report::{Figures, ObservedRun, outcome_id, time_text};
use crate::store::{WatchRecord, WatchSlot};
use egui_plot::PlotPoint;

/// A watch ready to draw. Plot x is seconds since the watch's first slot.
pub struct PreparedWatch {
    /// The watch.
    pub watch: WatchRecord,
    /// The report's figures of its runs.
    pub figures: Figures,
    /// Runs in start order: (x, run id, row text `#3 · 12:00:01 · gave_up · 3 attempts`).
    pub runs: Vec<(f64, String, String)>,
    /// One point per run, (x, attempts), by outcome: succeeded, failed, neither (cancelled or
    /// unfinished).
    pub strip: [Vec<PlotPoint>; 3],
    /// Missed slots, (due x, 0).
    pub missed: Vec<PlotPoint>,
    /// Success rate per bucket, (bucket middle x, %), buckets with a finished run only.
    pub success_rate: Vec<PlotPoint>,
    /// Time to success per bucket, (bucket middle x, ms): p50 and p95.
    pub time_to_success: [Vec<PlotPoint>; 2],
    /// The x range every plot spans (the first slot, every run and missed slot, every bucket
    /// edge to edge), so their axes line up.
    pub x_span: (f64, f64),
    /// The runs themselves, the what-if's evidence (shared with its worker).
    pub observed: std::sync::Arc<Vec<ObservedRun>>,
}

impl PreparedWatch {
    /// Prepares `watch` with its `slots`, `runs` (start order) and their `figures`.
    pub fn new(
        watch: WatchRecord,
        slots: &[WatchSlot],
        runs: Vec<ObservedRun>,
        figures: Figures,
    ) -> Self {
        let origin = watch.schedule.start_unix_ms;
        let x = |unix_ms: i64| (unix_ms - origin) as f64 / 1000.0;
        let slot_of: std::collections::HashMap<&str, u64> = slots
            .iter()
            .filter_map(|s| Some((s.run_id.as_deref()?, s.slot + 1)))
            .collect();
        let mut strip: [Vec<PlotPoint>; 3] = Default::default();
        let mut rows = Vec::with_capacity(runs.len());
        for run in &runs {
            let at = x(run.start_unix_ms());
            let class = if run.succeeded() {
                0
            } else if run.failed() {
                1
            } else {
                2
            };
            strip[class].push(PlotPoint::new(at, f64::from(run.attempts_made)));
            let slot = slot_of
                .get(run.id.as_str())
                .map_or_else(String::new, |k| format!("#{k} · "));
            let n = run.attempts_made;
            rows.push((
                at,
                run.id.clone(),
                format!(
                    "{slot}{} · {} · {}",
                    time_text(&run.started_at),
                    outcome_id(run.outcome),
                    crate::model::counted(u64::from(n), "attempt", "attempts")
                ),
            ));
        }
        let missed = slots
            .iter()
            .filter(|s| s.missed.is_some())
            .map(|s| PlotPoint::new(x(s.due_unix_ms), 0.0))
            .collect();
        let mut success_rate = Vec::new();
        let mut time_to_success: [Vec<PlotPoint>; 2] = Default::default();
        let width_s = figures.buckets.width_ms as f64 / 1000.0;
        let mut x_span = (0.0_f64, 0.0_f64);
        for p in strip.iter().flatten().chain(&missed) {
            x_span = (x_span.0.min(p.x), x_span.1.max(p.x));
        }
        for b in &figures.buckets.items {
            let Some(start) = b.start else { continue };
            let from = x(start.timestamp_millis());
            x_span = (x_span.0.min(from), x_span.1.max(from + width_s));
            let at = from + width_s / 2.0;
            if b.succeeded + b.failed > 0 {
                let rate = b.succeeded as f64 / (b.succeeded + b.failed) as f64;
                success_rate.push(PlotPoint::new(at, 100.0 * rate));
            }
            if b.time_to_success.count > 0 {
                time_to_success[0].push(PlotPoint::new(at, b.time_to_success.p50_ms));
                time_to_success[1].push(PlotPoint::new(at, b.time_to_success.p95_ms));
            }
        }
        Self {
            watch,
            figures,
            runs: rows,
            strip,
            missed,
            success_rate,
            time_to_success,
            x_span,
            observed: std::sync::Arc::new(runs),
        }
    }
}

/// The id of the run of `runs` (start order, as [`PreparedWatch::runs`]) that started nearest
/// to `x`.
pub fn run_near(runs: &[(f64, String, String)], x: f64) -> Option<&str> {
    let i = runs.partition_point(|r| r.0 < x);
    [i.checked_sub(1), Some(i)]
        .into_iter()
        .flatten()
        .filter_map(|i| runs.get(i))
        .min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs()))
        .map(|r| r.1.as_str())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_run_nearest_a_click_is_found_on_either_side() {
        let runs = vec![
            (0.0, "a".into(), String::new()),
            (10.0, "b".into(), String::new()),
        ];
        let near = |x| super::run_near(&runs, x);
        assert_eq!(
            [near(-3.0), near(4.0), near(6.0), near(99.0)],
            [Some("a"), Some("a"), Some("b"), Some("b")]
        );
        assert_eq!(super::run_near(&[], 1.0), None);
    }
}
