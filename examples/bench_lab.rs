//! Speed of the strategy lab's contention simulator, and the figures of the
//! AWS Architecture Blog post's setup for BENCHMARKS.md.
//!
//! ```text
//! cargo run --release --example bench_lab            # all three parts
//! cargo run --release --example bench_lab -- sweep   # or: big, post
//! ```
//!
//! - `sweep`: N = 1…200 clients, the 7 lab strategies (the six standard ones with the post's
//!   base 5 ms and cap 2000 ms, plus the built-in `aws-standard` profile as "the user's"), one
//!   run per point, OCC server. Target: < 2 s on one core.
//! - `big`: 1,000 clients × 100 runs of full jitter, OCC server. Target: < 1 s on one core.
//! - `post`: 100 clients × 100 runs of no jitter, full, equal and decorrelated jitter (the
//!   post's figure), with the time it took.
//!
//! Wall-clock time of one pass on the calling thread (the simulator is single-threaded).

#![allow(
    clippy::print_stdout,
    reason = "a benchmark program prints its figures"
)]

use retryscope::sim::{Contender, ContentionSetup, POST_BASE_MS, POST_CAP_MS, contention, sweep};
use std::time::Instant;

fn main() {
    let only = std::env::args().nth(1);
    let wants = |part: &str| only.as_deref().is_none_or(|o| o == part);
    if wants("sweep") {
        let aws = retryscope::profile::builtin("aws-standard").unwrap_or_else(|| {
            retryscope::profile::builtin(retryscope::profile::DEFAULT_BUILTIN)
                .unwrap_or_else(|| std::process::exit(1))
        });
        let Ok(contenders) = Contender::lab(POST_BASE_MS, POST_CAP_MS, &aws) else {
            std::process::exit(1);
        };
        let mut setup = ContentionSetup::post();
        setup.runs = 1;
        let start = Instant::now();
        let points = sweep(&setup, &contenders, 1..=200, &mut |_, _| true).unwrap_or_default();
        let took = start.elapsed();
        let calls: f64 = points
            .iter()
            .flat_map(|p| p.results.iter().map(|r| r.total_calls))
            .sum();
        println!(
            "sweep N = 1…200 × {} strategies, 1 run each: {:.3} s ({calls:.0} calls simulated; target < 2 s)",
            contenders.len(),
            took.as_secs_f64()
        );
    }
    if wants("big") {
        let full = &Contender::standard(POST_BASE_MS, POST_CAP_MS)[1];
        let mut setup = ContentionSetup::post();
        setup.clients = 1000;
        setup.keep_load = false;
        let start = Instant::now();
        let r = contention(&setup, full);
        println!(
            "1,000 clients × 100 runs, full jitter: {:.3} s (mean {:.0} calls, {:.0} ms per run; target < 1 s)",
            start.elapsed().as_secs_f64(),
            r.total_calls,
            r.completion_ms
        );
    }
    if wants("post") {
        let setup = ContentionSetup::post();
        let start = Instant::now();
        println!(
            "the post's setup: 100 clients, mean of 100 runs, OCC, base 5 ms, cap 2000 ms, network N(10, 2) ms"
        );
        for c in Contender::standard(POST_BASE_MS, POST_CAP_MS) {
            let r = contention(&setup, &c);
            println!(
                "  {:<22} calls {:>8.1}   completion {:>8.1} ms   peak {:>6.0}/s   gave up {}",
                r.strategy, r.total_calls, r.completion_ms, r.peak_load, r.gave_up
            );
        }
        println!("  ({:.3} s)", start.elapsed().as_secs_f64());
    }
}
