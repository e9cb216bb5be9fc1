//! Frame-time benchmark of the History panel with 100,000 runs: a temporary
//! history filled in one transaction, the real workbench (egui_kittest harness, 1280×800) with
//! the panel's reader thread, scrolled by the mouse wheel one frame at a time. The list is
//! virtualised (only the rows on screen are drawn) and paged (a 200-row window around them is
//! held, asked for off the frame). Target: every frame ≤ 8 ms CPU (release).
//!
//! ```text
//! cargo run --release --example bench_history -- [RUNS] [FRAMES]   # default 100000 300
//! ```
//!
//! Prints the time to fill the database, its size, the first list's latency, and per-frame CPU
//! mean and wall-clock mean / p95 / max of the frame thread for a slow scroll (3 rows a frame)
//! and a fling (about 100 rows a frame, a new page every other frame), then the same window
//! with the Timeline tab shown instead as a baseline.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    reason = "a benchmark program prints its figures; its casts index percentiles and number synthetic runs from small counts"
)]

use chrono::Duration as ChronoDuration;
use egui_kittest::Harness;
use retryscope::model::{
    AttemptOutcome, AttemptResult, AttemptRow, BodyPreview, OutcomeKind, RequestSpec,
    ResponseSummary, Timings, Verdict,
};
use retryscope::service::CoreLink;
use retryscope::service::{Core, CoreOptions, LinkSetup};
use retryscope::store::{AttemptRecord, FinishedRun, HistoryStore, HistoryWrite, RunRecord};
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
use std::time::{Duration, Instant};

#[path = "support/frame_clock.rs"]
mod frame_clock;
use frame_clock::{FrameClock, report};

/// Default runs in the database.
const DEFAULT_RUNS: usize = 100_000;
/// Default frames per scenario.
const DEFAULT_FRAMES: usize = 300;

/// The writes of run `i`: started, one 503 attempt, one 200 attempt, finished.
fn run_writes(i: usize, profile: &std::sync::Arc<serde_json::Value>, out: &mut Vec<HistoryWrite>) {
    let base =
        chrono::DateTime::parse_from_rfc3339("2026-11-01T08:00:00+01:00").unwrap_or_default();
    let started_at = base + ChronoDuration::seconds(i as i64 * 20);
    let id = format!("{i:08x}-0000-7000-8000-{i:012x}");
    let url = format!("http://127.0.0.1:8080/status/503?times=1&n={i}");
    let method = if i.is_multiple_of(7) { "POST" } else { "GET" };
    out.push(HistoryWrite::RunStarted(Box::new(RunRecord {
        id: id.clone(),
        started_at,
        ended_at: None,
        app_version: "bench".into(),
        method: method.into(),
        url: url.clone(),
        request: RequestSpec::get(url.clone()),
        profile_name: "servicenow-exponential".into(),
        profile: std::sync::Arc::clone(profile),
        seed: i as u64,
        outcome: None,
        outcome_message: None,
        last_status: None,
        attempts: 0,
        elapsed_ms: None,
        batch_item_id: None,
        watch_id: None,
        attempt_started: None,
    })));
    for (n, status, verdict) in [
        (1, 503, Verdict::retry("503 is retryable")),
        (2, 200, Verdict::SUCCESS),
    ] {
        let timings = Timings {
            total_ms: 4.0 + (i % 13) as f64,
            ..Timings::default()
        };
        let mut row = AttemptRow::started(
            n,
            method.into(),
            url.clone(),
            started_at,
            if n == 1 { 0.0 } else { 1010.0 },
        );
        row.result = Some(AttemptResult {
            timings,
            outcome: AttemptOutcome::Response(ResponseSummary {
                status,
                reason: String::new(),
                version: "HTTP/1.1".into(),
                headers: vec![("content-type".into(), "text/plain".into())],
                body: BodyPreview {
                    bytes: b"ok".to_vec(),
                    total_bytes: 2,
                    truncated: false,
                },
            }),
            hops: Vec::new(),
            verdict,
        });
        out.push(HistoryWrite::AttemptFinished(Box::new(AttemptRecord {
            run_id: id.clone(),
            row,
        })));
    }
    let outcome = if i.is_multiple_of(5) {
        OutcomeKind::GaveUp
    } else {
        OutcomeKind::Succeeded
    };
    out.push(HistoryWrite::RunFinished(FinishedRun {
        run_id: id,
        ended_at: started_at + ChronoDuration::milliseconds(1020),
        outcome,
        message: "bench".into(),
        last_status: Some(200),
        attempts: 2,
        elapsed_ms: 1020.0 + (i % 97) as f64,
    }));
}

/// Frames until the panel has its first page, or 60 s.
fn wait_idle(h: &mut Harness<'_, WorkbenchState>) {
    let start = Instant::now();
    let mut calm = 0;
    while start.elapsed() < Duration::from_mins(1) {
        h.step();
        if h.state().history.is_idle() && h.state().history.total().is_some() {
            calm += 1;
            if calm == 3 {
                return;
            }
        } else {
            calm = 0;
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// `frames` frames, each after a wheel scroll of `delta` points over the list.
fn scroll(
    h: &mut Harness<'_, WorkbenchState>,
    frames: usize,
    delta: f32,
) -> Vec<frame_clock::FrameTime> {
    (0..frames)
        .map(|_| {
            h.event(egui::Event::PointerMoved(egui::pos2(800.0, 500.0)));
            h.event(egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Point,
                delta: egui::vec2(0.0, -delta),
                phase: egui::TouchPhase::Move,
                modifiers: egui::Modifiers::NONE,
                source: egui::MouseWheelSource::Unknown,
            });
            let clock = FrameClock::start();
            h.step();
            clock.stop()
        })
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let runs = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(DEFAULT_RUNS);
    let frames = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(DEFAULT_FRAMES);
    let Ok(dir) = tempfile::tempdir() else {
        eprintln!("cannot create a temporary folder");
        return;
    };
    let profile = std::sync::Arc::new(
        serde_json::to_value(retryscope::ui::profile_library::fallback_default_profile())
            .unwrap_or_default(),
    );
    let filled = Instant::now();
    {
        let Ok(mut store) = HistoryStore::open_in(dir.path()) else {
            eprintln!("cannot open the history");
            return;
        };
        let mut writes = Vec::with_capacity(runs * 4);
        for i in 0..runs {
            run_writes(i, &profile, &mut writes);
        }
        if let Err(e) = store.apply_batch(&writes) {
            eprintln!("cannot fill the history: {e}");
            return;
        }
        println!(
            "{runs} runs (2 attempts each) written in one transaction in {:.1} s; database {}",
            filled.elapsed().as_secs_f64(),
            retryscope::ui::history::format_bytes(store.file_size())
        );
    }
    let Ok(core) = Core::new(CoreOptions::workers(1)) else {
        eprintln!("cannot start the core");
        return;
    };
    let (link, _probe) = CoreLink::start_probed(
        &core,
        LinkSetup {
            waker: std::sync::Arc::new(|| {}),
            data_dir: Some(dir.path().to_path_buf()),
            record_runs: false,
            body_cap: 0,
            batches: None,
            secrets: None,
        },
    );
    let mut state = WorkbenchState::new(WorkbenchSetup {
        link,
        dialogs: Box::new(ScriptedDialogs::default()),
        demo_base_url: Some("http://127.0.0.1:9".into()),
        library_dir: None,
        persisted: None,
    });
    state.show_history(true);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_accessibility_check(false)
        // The sort arrows (↓ ↑) come from a system font, as in the app.
        .with_context_setup(|ctx| {
            retryscope::ui::fonts::install_fallback_fonts(ctx);
        })
        .build_ui_state(
            |ui, s: &mut WorkbenchState| {
                let ctx = ui.ctx().clone();
                s.logic(&ctx);
                s.ui(ui);
            },
            state,
        );
    let first = Instant::now();
    wait_idle(&mut h);
    println!(
        "first page (count + 200 rows) on screen after {:.0} ms; {} runs listed",
        first.elapsed().as_secs_f64() * 1000.0,
        h.state().history.total().unwrap_or(0)
    );
    println!(
        "{:<60} {:>8} {:>8} {:>8} {:>8}",
        "scenario", "cpu mean", "mean", "p95", "max"
    );
    let slow = scroll(&mut h, frames, 60.0);
    report("frame while scrolling 3 rows a frame", &slow);
    let fling = scroll(&mut h, frames, 2000.0);
    report("frame while flinging ~100 rows a frame (paging)", &fling);
    // The same window without the panel (the timeline tab, empty): what the rest of the
    // workbench costs per frame, so a debug build's figures can be read as the panel's share.
    h.state_mut().show_history(false);
    h.step();
    let baseline = scroll(&mut h, frames, 60.0);
    report(
        "baseline: same window, Timeline tab instead of History",
        &baseline,
    );
    let worst = slow
        .iter()
        .chain(&fling)
        .filter_map(|t| t.cpu_ms)
        .fold(0.0_f64, f64::max);
    println!("largest frame CPU time: {worst:.2} ms");
}
