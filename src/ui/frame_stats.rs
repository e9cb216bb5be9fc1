//! Frame statistics for the startup and idle benchmarks (BENCHMARKS.md).
//!
//! Enabled by the environment variable `RETRYSCOPE_FRAME_STATS=1`: every frame prints one line
//! `frame N at T ms` to stderr, T being ms since the window was requested (the first line is the
//! launch-to-first-frame time). Off by default; costs nothing then.

use std::time::Instant;

/// Counts frames and reports them on stderr.
pub struct FrameStats {
    since: Instant,
    frames: u64,
}

impl FrameStats {
    /// Stats starting now, when `RETRYSCOPE_FRAME_STATS` is set to `1`.
    pub fn from_env(since: Instant) -> Option<Self> {
        (std::env::var("RETRYSCOPE_FRAME_STATS").as_deref() == Ok("1"))
            .then_some(Self { since, frames: 0 })
    }

    /// Records one frame.
    #[allow(clippy::print_stderr)]
    pub fn frame(&mut self) {
        self.frames += 1;
        eprintln!(
            "frame {} at {:.1} ms",
            self.frames,
            self.since.elapsed().as_secs_f64() * 1000.0
        );
    }
}
