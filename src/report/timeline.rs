//! A recorded run as the timeline plot `history export --format png` draws
//! ([`crate::interop::TimelinePlot`]), so the report's runs look like every other timeline.

use super::observed::{AttemptResult, ObservedRun};
use crate::interop::{PlotAttempt, PlotClass, PlotWait, TimelinePlot};

/// The plot of `run`: its attempts (a network error purple; a status green when it ended the
/// run with success, amber when a retry followed, red when it ended the run otherwise) and the
/// gaps between them as waits (the report's input keeps the measured gap, so planned and
/// measured are the same). `title` is shown above it (mask it first).
pub fn timeline_plot(run: &ObservedRun, title: &str) -> TimelinePlot {
    let n = run.attempts.len();
    let attempts = run.attempts.iter().enumerate().map(|(i, a)| {
        let last = i + 1 == n;
        PlotAttempt {
            number: u32::try_from(i + 1).unwrap_or(u32::MAX),
            start_ms: a.offset_ms,
            duration_ms: Some(a.duration_ms),
            class: match a.result {
                AttemptResult::Error(_) => PlotClass::NetworkError,
                AttemptResult::Status(_) if !last => PlotClass::Retryable,
                AttemptResult::Status(_) if run.succeeded() => PlotClass::Success,
                AttemptResult::Status(_) => PlotClass::Stopped,
            },
            label: a.result.label(),
        }
    });
    let waits = run.attempts.windows(2).enumerate().map(|(i, pair)| {
        let start = pair[0].offset_ms + pair[0].duration_ms;
        let gap = (pair[1].offset_ms - start).max(0.0);
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a gap of at most days in ms, non-negative"
        )]
        PlotWait {
            after_attempt: u32::try_from(i + 1).unwrap_or(u32::MAX),
            start_ms: start,
            planned_ms: gap.round() as u64,
            measured_ms: Some(gap),
        }
    });
    TimelinePlot {
        title: title.to_owned(),
        attempts: attempts.collect(),
        waits: waits.collect(),
    }
}
