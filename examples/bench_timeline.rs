//! Frame-time benchmark of the timeline view: one run of 10,000 attempts,
//! drawn for N frames; prints mean / p95 / max time per frame.
//!
//! ```text
//! cargo run --release --example bench_timeline -- [FRAMES] [ATTEMPTS]   # default 200, 10000
//! ```
//!
//! Two measurements per scenario:
//! - `harness step`: one `egui_kittest::Harness::step` (layout + AccessKit tree), the issue's
//!   yardstick (target ≤ 8 ms in release);
//! - `run + tessellate`: a plain `egui::Context::run_ui` plus tessellation, without AccessKit,
//!   which is what the window does each frame before the GPU upload.
//!
//! Each frame is timed on the wall clock (precise; includes any preemption on a busy machine)
//! and on the thread's CPU clock from `/proc/thread-self/schedstat` (Linux; some kernels count
//! it in scheduler ticks, so only its mean over many frames is meaningful). The `max` and `p95`
//! columns are wall-clock.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    reason = "a benchmark program prints its figures; its casts index percentiles and number synthetic runs from small counts"
)]

use chrono::DateTime;
use egui_kittest::Harness;
use retryscope::model::{OutcomeKind, Verdict};
use retryscope::testkit::EventScript;
use retryscope::testkit::{response, retry};
use retryscope::ui::timeline::RunsState;
use std::time::{Duration, Instant};

#[path = "support/frame_clock.rs"]
mod frame_clock;
use frame_clock::{FrameClock, FrameTime, report, status_kib};

/// Attempts in the benchmark run by default.
const ATTEMPTS: usize = 10_000;
/// Default frames per scenario.
const DEFAULT_FRAMES: usize = 200;
/// Simulated frame interval for the live scenario, ms.
const FRAME_MS: f64 = 16.0;

struct Screen {
    runs: RunsState,
    t0: Instant,
    now_ms: f64,
}

fn main() {
    let frames = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(DEFAULT_FRAMES);
    let attempts = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(ATTEMPTS)
        .max(1);
    println!("timeline frame times, {attempts} attempts, {frames} frames per scenario");
    println!(
        "{:<60} {:>8} {:>8} {:>8} {:>8}",
        "scenario", "cpu mean", "mean", "p95", "max"
    );
    for live in [false, true] {
        for select in [false, true] {
            let name = format!(
                "{}{}",
                if live {
                    "live (wait running)"
                } else {
                    "finished"
                },
                if select {
                    ", attempt selected, 1 MiB body"
                } else {
                    ""
                }
            );
            report(
                &format!("harness step: {name}"),
                &harness_frames(live, select, frames, attempts),
            );
            report(
                &format!("run + tessellate: {name}"),
                &context_frames(live, select, frames, attempts),
            );
        }
    }
    println!(
        "resident memory after the scenarios: VmRSS {} KiB, peak VmHWM {} KiB",
        status_kib("VmRSS").unwrap_or(0),
        status_kib("VmHWM").unwrap_or(0)
    );
}

/// Builds the run: `attempts` attempts of 503 (5 ms) with 20 ms waits, the last with a 1 MiB body,
/// then either a success or a running 2 s wait.
fn build(live: bool, select: bool, attempts: usize) -> Screen {
    let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00")
        .unwrap_or_else(|e| panic!("fixed timestamp parses: {e}"));
    let mut s = EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start);
    for _ in 0..attempts - 1 {
        s = s
            .attempt(
                response(503, &[("retry-after", "0")], "busy"),
                retry("503 is retryable"),
                5.0,
            )
            .wait(20, 20.4);
    }
    let big_body = format!(
        "{{\"items\": [{}]}}",
        vec!["\"0123456789abcdef\""; 55_000].join(", ")
    );
    let last = response(503, &[("content-type", "application/json")], &big_body);
    s = s.attempt(last, retry("503 is retryable"), 5.0);
    s = if live {
        s.schedule_wait(2000)
    } else {
        s.wait(20, 20.4)
            .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 5.0)
            .finish(OutcomeKind::Succeeded, "", Some(200))
    };
    let t0 = Instant::now();
    let mut runs = RunsState::default();
    runs.add_run(1, "GET /status/503".to_owned());
    for (event, ms) in s.timed() {
        runs.apply(event, t0 + Duration::from_secs_f64(ms / 1000.0));
    }
    if select {
        runs.select_attempt(attempts as u32);
    }
    Screen {
        runs,
        t0,
        now_ms: s.clock_ms() + 100.0,
    }
}

fn harness_frames(live: bool, select: bool, frames: usize, attempts: usize) -> Vec<FrameTime> {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_accessibility_check(false)
        .build_ui_state(
            |ui, s: &mut Screen| {
                let now = s.t0 + Duration::from_secs_f64(s.now_ms / 1000.0);
                let _ = s.runs.ui(ui, now);
            },
            build(live, select, attempts),
        );
    // Warm-up: fonts, galley caches, plot memory.
    for _ in 0..3 {
        harness.step();
    }
    harness.hover_at(egui::pos2(640.0, 160.0));
    (0..frames)
        .map(|_| {
            if live {
                harness.state_mut().now_ms += FRAME_MS;
            }
            let clock = FrameClock::start();
            harness.step();
            clock.stop()
        })
        .collect()
}

fn context_frames(live: bool, select: bool, frames: usize, attempts: usize) -> Vec<FrameTime> {
    let ctx = egui::Context::default();
    let mut screen = build(live, select, attempts);
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        events: vec![egui::Event::PointerMoved(egui::pos2(640.0, 160.0))],
        ..Default::default()
    };
    let frame = |screen: &mut Screen| {
        let now = screen.t0 + Duration::from_secs_f64(screen.now_ms / 1000.0);
        let mut output = ctx.run_ui(input(), |ui| {
            let _ = screen.runs.ui(ui, now);
        });
        // No GPU here: the font atlas upload is dropped on purpose.
        output.textures_delta.clear();
        let primitives = ctx.tessellate(output.shapes, output.pixels_per_point);
        std::hint::black_box(primitives);
    };
    for _ in 0..3 {
        frame(&mut screen);
    }
    (0..frames)
        .map(|_| {
            if live {
                screen.now_ms += FRAME_MS;
            }
            let clock = FrameClock::start();
            frame(&mut screen);
            clock.stop()
        })
        .collect()
}
