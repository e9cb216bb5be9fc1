//! Frame timing shared by the frame benchmarks: each frame on the wall clock and on the
//! thread's CPU clock (Linux `/proc/thread-self/schedstat`), and a one-line report.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark program prints its figures"
)]
#![allow(dead_code)]

use std::time::Instant;

/// Prints `name`, the mean CPU time, and the wall-clock mean / p95 / max of `times`, ms.
pub fn report(name: &str, times: &[FrameTime]) {
    let n = times.len().max(1) as f64;
    let mut wall: Vec<f64> = times.iter().map(|t| t.wall_ms).collect();
    wall.sort_by(f64::total_cmp);
    let mean = wall.iter().sum::<f64>() / n;
    let p95 = wall
        .get((wall.len() * 95 / 100).min(wall.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0);
    let max = wall.last().copied().unwrap_or(0.0);
    let cpu = if times.iter().all(|t| t.cpu_ms.is_some()) {
        format!(
            "{:.2}",
            times.iter().filter_map(|t| t.cpu_ms).sum::<f64>() / n
        )
    } else {
        "n/a".to_owned()
    };
    println!("{name:<60} {cpu:>8} {mean:>8.2} {p95:>8.2} {max:>8.2}");
}

/// One frame's cost, ms: thread CPU time (when the OS reports it) and wall-clock time.
pub struct FrameTime {
    /// CPU time of the frame's thread, ms.
    pub cpu_ms: Option<f64>,
    /// Wall-clock time, ms.
    pub wall_ms: f64,
}

/// Measures one frame on both clocks.
pub struct FrameClock {
    cpu_ns: Option<u64>,
    wall: Instant,
}

impl FrameClock {
    /// Starts measuring.
    pub fn start() -> Self {
        FrameClock {
            cpu_ns: thread_cpu_ns(),
            wall: Instant::now(),
        }
    }

    /// The time since [`FrameClock::start`].
    pub fn stop(&self) -> FrameTime {
        let wall_ms = self.wall.elapsed().as_secs_f64() * 1000.0;
        let cpu_ms = match (self.cpu_ns, thread_cpu_ns()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / 1e6),
            _ => None,
        };
        FrameTime { cpu_ms, wall_ms }
    }
}

/// This thread's CPU time, ns (Linux `/proc/thread-self/schedstat`, first field).
pub fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A `/proc/self/status` field in KiB (Linux), if readable.
pub fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
