//! Pure geometry of the Gantt plot: attempt and wait spans on a time axis (ms since run start),
//! culled to the visible range and merged where they are closer than a pixel.

use super::run_timeline::Timeline;
use crate::model::{AttemptClass, AttemptRow};
use std::ops::Range;
use std::time::Instant;

/// What a span is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpanKind {
    /// One or more attempts of one class (lane "attempts").
    Attempt(AttemptClass),
    /// One or more finished waits (lane "waits"), drawn at their measured length.
    Wait,
    /// The wait in progress, drawn at its planned length.
    PlannedWait,
    /// A wait the run ended during (cancel, deadline), drawn at the length it lasted; its
    /// tooltip gives the planned length.
    CutWait,
}

/// One bar of the plot, possibly standing for several adjacent attempts or waits.
#[derive(Debug, Clone, PartialEq)]
pub struct GanttSpan {
    /// Kind (lane and colour).
    pub kind: SpanKind,
    /// Start, ms since run start.
    pub start_ms: f64,
    /// End, ms since run start (≥ `start_ms`).
    pub end_ms: f64,
    /// Attempt rows covered (indices into `Timeline::attempts`).
    pub rows: Range<usize>,
    /// Planned ms for a single wait (its label); `None` for attempts and merged waits.
    pub planned_ms: Option<u64>,
}

/// Spans of rows that overlap `visible` (ms range, `None` = everything), with neighbours of
/// the same kind merged when the gap between them is below `merge_ms` (about one pixel).
/// An attempt in flight and a running wait end at `now_ms` / their planned end.
pub fn spans(
    timeline: &Timeline,
    visible: Option<(f64, f64)>,
    merge_ms: f64,
    now_ms: f64,
) -> Vec<GanttSpan> {
    let rows = timeline.attempts();
    let range = visible_rows(rows, visible, now_ms);
    let mut attempts: Vec<GanttSpan> = Vec::new();
    let mut waits: Vec<GanttSpan> = Vec::new();
    for index in range {
        let row = &rows[index];
        let end = row.end_offset_ms().unwrap_or(now_ms.max(row.offset_ms));
        push_merged(
            &mut attempts,
            GanttSpan {
                kind: SpanKind::Attempt(row.class()),
                start_ms: row.offset_ms,
                end_ms: end,
                rows: index..index + 1,
                planned_ms: None,
            },
            merge_ms,
        );
        if let Some(w) = &row.wait {
            let (kind, length) = match w.actual_ms {
                Some(actual) if w.interrupted => (SpanKind::CutWait, actual),
                Some(actual) => (SpanKind::Wait, actual),
                None => (SpanKind::PlannedWait, w.planned_ms as f64),
            };
            push_merged(
                &mut waits,
                GanttSpan {
                    kind,
                    start_ms: w.offset_ms,
                    end_ms: w.offset_ms + length,
                    rows: index..index + 1,
                    planned_ms: Some(w.planned_ms),
                },
                merge_ms,
            );
        }
    }
    attempts.extend(waits);
    attempts
}

/// Rows whose attempt or wait overlaps `visible` (rows are in time order).
fn visible_rows(rows: &[AttemptRow], visible: Option<(f64, f64)>, now_ms: f64) -> Range<usize> {
    let Some((lo, hi)) = visible else {
        return 0..rows.len();
    };
    let row_end = |r: &AttemptRow| {
        let attempt_end = r.end_offset_ms().unwrap_or(now_ms);
        let wait_end = r.wait.as_ref().map_or(attempt_end, |w| {
            w.offset_ms + w.actual_ms.unwrap_or(w.planned_ms as f64)
        });
        attempt_end.max(wait_end)
    };
    let first = rows.partition_point(|r| row_end(r) < lo);
    let last = rows.partition_point(|r| r.offset_ms <= hi);
    first..last.max(first)
}

fn push_merged(spans: &mut Vec<GanttSpan>, next: GanttSpan, merge_ms: f64) {
    if let Some(last) = spans.last_mut()
        && last.kind == next.kind
        && !matches!(next.kind, SpanKind::PlannedWait | SpanKind::CutWait)
        && next.start_ms - last.end_ms < merge_ms
        && next.end_ms - last.start_ms < merge_ms * 4.0
    {
        last.end_ms = last.end_ms.max(next.end_ms);
        last.rows.end = next.rows.end;
        last.planned_ms = None;
        return;
    }
    spans.push(next);
}

/// The row under plot x `x_ms`: the last attempt that started at or before it (its wait
/// follows it), or the first row when `x_ms` is before everything.
pub fn row_at(timeline: &Timeline, x_ms: f64) -> Option<usize> {
    let rows = timeline.attempts();
    if rows.is_empty() {
        return None;
    }
    Some(
        rows.partition_point(|r| r.offset_ms <= x_ms)
            .saturating_sub(1),
    )
}

/// The x extent the plot should include: 0 to the later of what was measured, `now` (while
/// running) and the planned end of a running wait, ms.
pub fn extent_ms(timeline: &Timeline, now: Instant) -> f64 {
    let mut end = timeline.measured_end_ms();
    if timeline.is_active() {
        end = end.max(timeline.offset_at(now).unwrap_or(0.0));
        if let Some(w) = timeline.current_wait() {
            end = end.max(w.offset_ms + w.planned_ms as f64);
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{OutcomeKind, Verdict};
    use crate::testkit::EventScript;
    use crate::testkit::{response, retry};
    use chrono::DateTime;

    /// `n` attempts of 10 ms, each followed by a 90 ms wait, then a success; folded at `t0`.
    fn run(n: usize) -> (Timeline, Instant) {
        let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00+00:00").expect("rfc3339");
        let mut s = EventScript::new(1, "GET", "http://127.0.0.1:1/x", start);
        for _ in 0..n {
            s = s
                .attempt(response(503, &[], ""), retry("503 is retryable"), 10.0)
                .wait(90, 90.0);
        }
        let s = s
            .attempt(response(200, &[], ""), Verdict::SUCCESS, 10.0)
            .finish(OutcomeKind::Succeeded, "", Some(200));
        let t0 = Instant::now();
        let mut tl = Timeline::new(1, "x");
        for (e, ms) in s.timed() {
            tl.apply(e, t0 + std::time::Duration::from_secs_f64(ms / 1000.0));
        }
        (tl, t0)
    }

    #[test]
    fn sparse_runs_get_one_span_per_attempt_and_wait() {
        let (tl, _) = run(2);
        let all = spans(&tl, None, 1.0, 0.0);
        let kinds: Vec<SpanKind> = all.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            vec![
                SpanKind::Attempt(AttemptClass::Retryable),
                SpanKind::Attempt(AttemptClass::Retryable),
                SpanKind::Attempt(AttemptClass::Success),
                SpanKind::Wait,
                SpanKind::Wait,
            ]
        );
        assert_eq!((all[1].start_ms, all[1].end_ms), (100.0, 110.0));
        assert_eq!(
            (all[3].start_ms, all[3].end_ms, all[3].planned_ms),
            (10.0, 100.0, Some(90))
        );
    }

    #[test]
    fn a_wait_the_run_ended_during_is_a_cut_wait_of_the_time_it_lasted() {
        let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00+00:00").expect("rfc3339");
        let script = EventScript::new(1, "GET", "http://127.0.0.1:1/x", start)
            .attempt(response(503, &[], ""), retry("503 is retryable"), 10.0)
            .schedule_wait(5000)
            .idle(1200.0)
            .finish(
                OutcomeKind::Cancelled,
                "cancelled while waiting before retry 1",
                Some(503),
            );
        let mut tl = Timeline::new(1, "x");
        let t0 = Instant::now();
        for (e, ms) in script.timed() {
            tl.apply(e, t0 + std::time::Duration::from_secs_f64(ms / 1000.0));
        }
        let all = spans(&tl, None, 1.0, 0.0);
        let cut: Vec<&GanttSpan> = all.iter().filter(|s| s.kind == SpanKind::CutWait).collect();
        assert_eq!(cut.len(), 1, "{all:?}");
        assert_eq!(cut[0].planned_ms, Some(5000));
        assert!(
            (cut[0].end_ms - cut[0].start_ms - 1200.0).abs() < 1.0,
            "{:?}",
            cut[0]
        );
        assert!(
            !all.iter()
                .any(|s| matches!(s.kind, SpanKind::Wait | SpanKind::PlannedWait))
        );
    }

    #[test]
    fn dense_runs_merge_and_cull() {
        let (tl, _) = run(10_000);
        // 1,000,000 ms on ~1000 px: 1000 ms a pixel; attempts merge into a few spans.
        let all = spans(&tl, None, 1000.0, 0.0);
        assert!(all.len() < 1000, "{} spans", all.len());
        let covered: usize = all
            .iter()
            .filter(|s| matches!(s.kind, SpanKind::Attempt(_)))
            .map(|s| s.rows.len())
            .sum();
        assert_eq!(covered, 10_001, "every attempt is in some span");
        // Zoomed to 1 s around 500 s: only the rows there, unmerged at 1 ms a pixel.
        let zoomed = spans(&tl, Some((500_000.0, 501_000.0)), 1.0, 0.0);
        assert!(zoomed.len() <= 24, "{} spans", zoomed.len());
        // Rows are kept whole: a span may lie up to one 100 ms cycle outside the range.
        assert!(
            zoomed
                .iter()
                .all(|s| s.end_ms >= 499_900.0 && s.start_ms <= 501_100.0)
        );
    }

    #[test]
    fn row_at_picks_the_attempt_that_started_before_x() {
        let (tl, _) = run(3);
        assert_eq!(row_at(&tl, -5.0), Some(0));
        assert_eq!(row_at(&tl, 50.0), Some(0));
        assert_eq!(row_at(&tl, 100.0), Some(1));
        assert_eq!(row_at(&tl, 10_000.0), Some(3));
    }
}
