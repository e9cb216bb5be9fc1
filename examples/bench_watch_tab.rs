//! Frame-time benchmark of the Watches tab with a 24-hour watch at 10 s (8,640 slots): a
//! temporary history holding the watch (every 60th slot missed, every 7th run failed after 3 attempts with `Retry-After`, the others succeeded on attempt 1 or 2), the real
//! workbench (egui_kittest harness, 1280×900) with the tab's reader thread, the watch selected,
//! the pointer moving across the runs strip one step a frame (egui_plot's hover search runs on
//! every frame). Target: every frame ≤ 8 ms CPU (release). Also prints the window's resident
//! memory before the tab opens and with the watch shown (`/proc/self/status`, Linux).
//!
//! ```text
//! cargo run --release --example bench_watch_tab -- [SLOTS] [FRAMES]   # default 8640 300
//! ```

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    reason = "a benchmark program prints its figures; its casts number synthetic runs from small counts"
)]

use chrono::Duration as ChronoDuration;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::model::{
    AttemptOutcome, AttemptResult, AttemptRow, BodyPreview, OutcomeKind, RequestSpec,
    ResponseSummary, Timings, Verdict,
};
use retryscope::policy::WatchSchedule;
use retryscope::service::{Core, CoreLink, CoreOptions, LinkSetup};
use retryscope::store::{
    AttemptRecord, FinishedRun, HistoryStore, HistoryWrite, Missed, NewWatch, RunRecord, WatchSlot,
    WatchState,
};
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "support/frame_clock.rs"]
mod frame_clock;
use frame_clock::{FrameClock, report, status_kib};

const WATCH_ID: &str = "0000beef-0000-7000-8000-000000000001";
const EVERY_MS: i64 = 10_000;

/// The writes of the run of slot `k`, started at `at`.
fn run_writes(k: usize, at: chrono::DateTime<chrono::FixedOffset>, out: &mut Vec<HistoryWrite>) {
    let id = format!("{k:08x}-0000-7000-8000-{k:012x}");
    let url = "http://127.0.0.1:8080/outage".to_owned();
    out.push(HistoryWrite::RunStarted(Box::new(RunRecord {
        id: id.clone(),
        started_at: at,
        ended_at: None,
        app_version: "bench".into(),
        method: "GET".into(),
        url: url.clone(),
        request: RequestSpec::get(url.clone()),
        profile_name: "bench".into(),
        profile: Arc::new(serde_json::Value::Null),
        seed: k as u64,
        outcome: None,
        outcome_message: None,
        last_status: None,
        attempts: 0,
        elapsed_ms: None,
        batch_item_id: None,
        watch_id: Some(WATCH_ID.into()),
        attempt_started: None,
    })));
    let failed = k.is_multiple_of(7);
    let statuses: &[u16] = if failed {
        &[503, 503, 503]
    } else if k.is_multiple_of(3) {
        &[503, 200]
    } else {
        &[200]
    };
    for (n, &status) in statuses.iter().enumerate() {
        let mut row = AttemptRow::started(
            n as u32 + 1,
            "GET".into(),
            url.clone(),
            at,
            n as f64 * 1000.0,
        );
        row.result = Some(AttemptResult {
            timings: Timings {
                total_ms: 5.0 + (k % 13) as f64,
                ..Timings::default()
            },
            outcome: AttemptOutcome::Response(ResponseSummary {
                status,
                reason: String::new(),
                version: "HTTP/1.1".into(),
                headers: vec![("retry-after".into(), "1".into())],
                body: BodyPreview::default(),
            }),
            hops: Vec::new(),
            verdict: if status == 200 {
                Verdict::SUCCESS
            } else {
                Verdict::retry("503 is retryable")
            },
        });
        out.push(HistoryWrite::AttemptFinished(Box::new(AttemptRecord {
            run_id: id.clone(),
            row,
        })));
    }
    out.push(HistoryWrite::RunFinished(FinishedRun {
        run_id: id,
        ended_at: at + ChronoDuration::milliseconds(2100),
        outcome: if failed {
            OutcomeKind::GaveUp
        } else {
            OutcomeKind::Succeeded
        },
        message: "bench".into(),
        last_status: Some(statuses[statuses.len() - 1]),
        attempts: statuses.len() as u32,
        elapsed_ms: 2100.0,
    }));
}

/// Stores the watch of `slots` slots in `dir`.
fn fill(dir: &std::path::Path, slots: usize) -> Result<(), String> {
    let mut store = HistoryStore::open_in(dir).map_err(|e| e.to_string())?;
    let start = chrono::DateTime::parse_from_rfc3339("2026-11-01T00:00:00+01:00")
        .map_err(|e| e.to_string())?;
    let schedule = WatchSchedule {
        start_unix_ms: start.timestamp_millis(),
        every_ms: EVERY_MS as u64,
        jitter: 0.0,
        seed: 1,
        count: Some(slots as u64),
        until_unix_ms: None,
    };
    let claim = store
        .create_watch(&NewWatch {
            id: WATCH_ID.into(),
            request: RequestSpec::get("http://127.0.0.1:8080/outage"),
            has_secrets: false,
            profile_name: "bench".into(),
            profile: serde_json::Value::Null,
            schedule,
        })
        .map_err(|e| e.to_string())?;
    let (mut writes, mut recorded) = (Vec::new(), Vec::new());
    for k in 0..slots {
        let due = start + ChronoDuration::milliseconds(k as i64 * EVERY_MS);
        let missed = k % 60 == 59;
        if !missed {
            run_writes(k, due, &mut writes);
        }
        recorded.push(WatchSlot {
            slot: k as u64,
            due_unix_ms: due.timestamp_millis(),
            run_id: (!missed).then(|| format!("{k:08x}-0000-7000-8000-{k:012x}")),
            missed: missed.then_some(Missed::Late),
            run_deleted: false,
        });
    }
    store.apply_batch(&writes).map_err(|e| e.to_string())?;
    store
        .record_slots(WATCH_ID, &recorded)
        .map_err(|e| e.to_string())?;
    store
        .set_watch_state(WATCH_ID, WatchState::Finished)
        .map_err(|e| e.to_string())?;
    drop(claim);
    Ok(())
}

/// Frames until `done`, or 2 min; the time it took.
fn wait(
    h: &mut Harness<'_, WorkbenchState>,
    done: impl Fn(&Harness<'_, WorkbenchState>) -> bool,
) -> Duration {
    let start = Instant::now();
    while start.elapsed() < Duration::from_mins(2) && !done(h) {
        h.step();
        std::thread::sleep(Duration::from_millis(2));
    }
    start.elapsed()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let slots = args.next().and_then(|a| a.parse().ok()).unwrap_or(8640);
    let frames = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let Ok(dir) = tempfile::tempdir() else {
        eprintln!("cannot create a temporary folder");
        return;
    };
    let filled = Instant::now();
    if let Err(e) = fill(dir.path(), slots) {
        eprintln!("cannot fill the history: {e}");
        return;
    }
    println!(
        "a watch of {slots} slots written in {:.1} s",
        filled.elapsed().as_secs_f64()
    );
    let Ok(core) = Core::new(CoreOptions::workers(1)) else {
        eprintln!("cannot start the core");
        return;
    };
    let (link, _probe) = CoreLink::start_probed(
        &core,
        LinkSetup {
            waker: Arc::new(|| {}),
            data_dir: Some(dir.path().to_path_buf()),
            record_runs: false,
            body_cap: 0,
            batches: None,
            secrets: None,
        },
    );
    let state = WorkbenchState::new(WorkbenchSetup {
        link,
        dialogs: Box::new(ScriptedDialogs::default()),
        demo_base_url: Some("http://127.0.0.1:9".into()),
        library_dir: None,
        persisted: None,
    });
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 900.0))
        .with_accessibility_check(false)
        // The strip's key (● ✕) comes from a system font, as in the app.
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
    h.step();
    let rss_before = status_kib("VmRSS").unwrap_or(0);
    h.get_by_label("Watches").click();
    let short = &WATCH_ID[..13];
    let listed = wait(&mut h, |h| h.query_by_label(short).is_some());
    println!(
        "list on screen after {:.0} ms",
        listed.as_secs_f64() * 1000.0
    );
    h.get_by_label(short).click();
    let shown = wait(&mut h, |h| {
        h.query_by_label("Failures by status and error kind")
            .is_some()
    });
    println!(
        "watch read, figures computed and drawn after {:.0} ms",
        shown.as_secs_f64() * 1000.0
    );
    let rss_shown = status_kib("VmRSS").unwrap_or(0);
    println!(
        "resident memory: {rss_before} KiB before the tab opened, {rss_shown} KiB with the watch shown \
         (+{} KiB)",
        rss_shown.saturating_sub(rss_before)
    );
    let Some(strip) = h
        .query_by_label("Runs over time (height: attempts)")
        .map(|n| n.rect())
    else {
        eprintln!("the strip is not shown");
        return;
    };
    println!(
        "{:<60} {:>8} {:>8} {:>8} {:>8}",
        "scenario", "cpu mean", "mean", "p95", "max"
    );
    let sweep = |h: &mut Harness<'_, WorkbenchState>| -> Vec<frame_clock::FrameTime> {
        (0..frames)
            .map(|i| {
                let x = strip.left() + 60.0 + (i % 100) as f32 * 10.0;
                h.event(egui::Event::PointerMoved(egui::pos2(
                    x,
                    strip.bottom() + 70.0,
                )));
                let clock = FrameClock::start();
                h.step();
                clock.stop()
            })
            .collect()
    };
    let times = sweep(&mut h);
    report("frame with the pointer moving over the runs strip", &times);
    // The same window on the Timeline tab (empty): what the rest of the workbench costs per
    // frame, so a debug build's figures can be read as the tab's share.
    h.get_by_label("Timeline").click();
    h.step();
    report(
        "baseline: same window, Timeline tab instead",
        &sweep(&mut h),
    );
    let worst = times
        .iter()
        .filter_map(|t| t.cpu_ms)
        .fold(0.0_f64, f64::max);
    println!("largest frame CPU time: {worst:.2} ms");
    println!(
        "resident memory at the end: VmRSS {} KiB, peak VmHWM {} KiB",
        status_kib("VmRSS").unwrap_or(0),
        status_kib("VmHWM").unwrap_or(0)
    );
}
