//! What `run` shows on a terminal while a response body has been downloading for more than a
//! second (`  body: 12.3 MiB received in 4 s (3.1 MiB/s) …`), after the attempt's open timeline
//! line, so a slow or huge body is never a silent wait; it is erased before the line goes on.

use crate::engine::BodySink;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the line is redrawn.
pub const TICK: Duration = Duration::from_millis(500);

/// How long a body downloads before the line appears.
const SHOWN_AFTER: Duration = Duration::from_secs(1);

/// Counts the body being received: when it began and how many bytes have arrived. A
/// [`BodySink`] on its own (`run` without `-o`), or fed by [`super::body_spool::BodySpool`].
#[derive(Debug, Default)]
pub struct BodyMeter {
    state: Mutex<(Option<Instant>, u64)>,
}

impl BodyMeter {
    fn state(&self) -> std::sync::MutexGuard<'_, (Option<Instant>, u64)> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// How long the body being received has been arriving and how many bytes have, while one
    /// is; `None` between bodies.
    pub fn progress(&self) -> Option<(Duration, u64)> {
        let (since, bytes) = *self.state();
        since.map(|since| (since.elapsed(), bytes))
    }
}

impl BodySink for BodyMeter {
    fn begin(&self, _attempt: u32) {
        *self.state() = (Some(Instant::now()), 0);
    }

    fn chunk(&self, bytes: &[u8]) {
        self.state().1 += bytes.len() as u64;
    }

    fn end(&self, _complete: bool) {
        self.state().0 = None;
    }
}

/// The progress line's state: on only when stderr is a terminal and the timeline is shown.
#[derive(Debug)]
pub struct DownloadProgress {
    meter: Option<Arc<BodyMeter>>,
    shown: bool,
}

impl DownloadProgress {
    /// Reads `meter`; shows nothing unless `wanted` (text timeline, not `-s`) and stderr is a
    /// terminal.
    pub fn new(meter: Option<Arc<BodyMeter>>, wanted: bool) -> Self {
        let on = wanted && std::io::stderr().is_terminal();
        Self {
            meter: meter.filter(|_| on),
            shown: false,
        }
    }

    /// Whether the line may ever show (the caller's timer runs only then).
    pub fn wanted(&self) -> bool {
        self.meter.is_some()
    }

    /// Redraws the line when a body has been arriving for more than a second.
    pub fn show(&mut self) {
        let Some((elapsed, bytes)) = self.meter.as_ref().and_then(|m| m.progress()) else {
            return;
        };
        if elapsed < SHOWN_AFTER {
            return;
        }
        let line = progress_text(elapsed, bytes);
        // Our own text, no input in it, written raw: erase the last one (from the cursor to the
        // end of the line), save the cursor, write, and return to it, so the timeline line goes
        // on where it stood.
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\x1b[K\x1b7{line}\x1b8");
        let _ = err.flush();
        self.shown = true;
    }

    /// Erases the line, if shown, so the next timeline line starts clean.
    pub fn clear(&mut self) {
        if std::mem::take(&mut self.shown) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\x1b[K");
            let _ = err.flush();
        }
    }
}

/// `  body: 12.3 MiB received in 4 s (3.1 MiB/s) …`.
fn progress_text(elapsed: Duration, bytes: u64) -> String {
    let ms = u64::try_from(elapsed.as_millis())
        .unwrap_or(u64::MAX)
        .max(1);
    let rate = bytes.saturating_mul(1000) / ms;
    format!(
        "  body: {} received in {} s ({}/s) …",
        crate::model::units::format_bytes(bytes),
        elapsed.as_secs(),
        crate::model::units::format_bytes(rate)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meter_counts_the_body_being_received_and_the_line_says_it() {
        let meter = BodyMeter::default();
        assert!(meter.progress().is_none());
        meter.begin(1);
        meter.chunk(&[0; 1024]);
        meter.chunk(&[0; 512]);
        assert_eq!(meter.progress().map(|p| p.1), Some(1536));
        meter.end(true);
        assert!(meter.progress().is_none(), "between bodies");
        assert_eq!(
            progress_text(Duration::from_secs(4), 4 * 1024 * 1024),
            "  body: 4 MiB received in 4 s (1 MiB/s) …"
        );
    }
}
