//! Frame-time benchmark of the Batch tab with 100,000 queued items: a
//! temporary data folder with one batch of 100,000 `pending` items queued in one transaction,
//! the real workbench (egui_kittest harness, 1280×800) with the batch service's thread, the
//! batch opened in the tab and its table scrolled by the mouse wheel one frame at a time. The
//! table is virtualised (only the rows on screen are drawn) and paged (one 200-row page held,
//! asked for off the frame, one request in flight at a time so the newest position wins).
//! Target: every frame ≤ 8 ms CPU (release).
//!
//! ```text
//! cargo run --release --example bench_batch_tab -- [ITEMS] [FRAMES]   # default 100000 300
//! ```
//!
//! Prints the time to queue the items, the first page's latency, and per-frame CPU mean and
//! wall-clock mean / p95 / max of the frame thread for a slow scroll (3 rows a frame) and a
//! fling (about 100 rows a frame, a new page every other frame), then the same window with the
//! Timeline tab shown instead as a baseline; those items are never sent. Last, a second batch of
//! as many items is worked against the core's demo server (concurrency 8) while the window draws
//! a frame every 16 ms: the frame's CPU time with a batch running (target ≤ 8 ms).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark program prints its figures"
)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::model::{BatchOptions, BatchRequest, RequestSpec};
use retryscope::service::CoreLink;
use retryscope::service::{BatchSetup, Core, CoreOptions, LinkSetup};
use retryscope::store::{BatchQueue, MemorySecretStore};
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "support/frame_clock.rs"]
mod frame_clock;
use frame_clock::{FrameClock, report};

/// Default items in the batch.
const DEFAULT_ITEMS: u64 = 100_000;
/// Default frames per scenario.
const DEFAULT_FRAMES: usize = 300;

/// Frames until `done` holds three frames running, or 60 s.
fn wait_for(h: &mut Harness<'_, WorkbenchState>, done: &dyn Fn(&WorkbenchState) -> bool) {
    let start = Instant::now();
    let mut calm = 0;
    while start.elapsed() < Duration::from_mins(1) {
        h.step();
        if done(h.state()) {
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

/// `frames` frames, each after a wheel scroll of `delta` points over the table.
fn scroll(
    h: &mut Harness<'_, WorkbenchState>,
    frames: usize,
    delta: f32,
) -> Vec<frame_clock::FrameTime> {
    (0..frames)
        .map(|_| {
            h.event(egui::Event::PointerMoved(egui::pos2(800.0, 600.0)));
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
    let items = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(DEFAULT_ITEMS);
    let frames = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(DEFAULT_FRAMES);
    let Ok(dir) = tempfile::tempdir() else {
        eprintln!("cannot create a temporary folder");
        return;
    };
    let secrets = Arc::new(MemorySecretStore::new());
    let profile = retryscope::ui::profile_library::fallback_default_profile();
    let queued = Instant::now();
    let batch_id = {
        let Ok(mut queue) = BatchQueue::open_in(dir.path(), secrets.clone()) else {
            eprintln!("cannot open the batch queue");
            return;
        };
        let list: Vec<BatchRequest> = (0..items)
            .map(|i| BatchRequest {
                name: (i % 3 == 0).then(|| format!("item {i}")),
                request: RequestSpec::get(format!("http://127.0.0.1:9/status/200?n={i}")),
                profile: None,
                source_line: Some(i + 1),
            })
            .collect();
        match queue.create(
            Some("bench.jsonl"),
            &profile,
            &BatchOptions::default(),
            &list,
        ) {
            Ok(id) => id,
            Err(e) => {
                eprintln!("cannot queue the items: {e}");
                return;
            }
        }
    };
    println!(
        "{items} items queued in one transaction in {:.1} s",
        queued.elapsed().as_secs_f64()
    );
    let Ok(core) = Core::new(CoreOptions {
        threads: retryscope::service::Threads::Workers(2),
        demo: true,
    }) else {
        eprintln!("cannot start the core");
        return;
    };
    let Some(demo) = core.demo_base_url() else {
        eprintln!("the demo server did not start");
        return;
    };
    let running_id = {
        let Ok(mut queue) = BatchQueue::open_in(dir.path(), secrets.clone()) else {
            eprintln!("cannot open the batch queue");
            return;
        };
        let list: Vec<BatchRequest> = (0..items)
            .map(|i| BatchRequest {
                name: None,
                request: RequestSpec::get(format!("{demo}/status/200?n={i}")),
                profile: None,
                source_line: Some(i + 1),
            })
            .collect();
        let options = BatchOptions {
            concurrency: 8,
            ..BatchOptions::default()
        };
        match queue.create(Some("running.jsonl"), &profile, &options, &list) {
            Ok(id) => id,
            Err(e) => {
                eprintln!("cannot queue the items: {e}");
                return;
            }
        }
    };
    let mut setup = LinkSetup {
        waker: std::sync::Arc::new(|| {}),
        data_dir: Some(dir.path().to_path_buf()),
        record_runs: false,
        body_cap: 0,
        batches: None,
        secrets: None,
    };
    setup.batches = Some(BatchSetup {
        importer: retryscope::ui::batch::list_importer(),
        secrets,
        profiles: retryscope::service::library_lookup(None),
    });
    let (link, _probe) = CoreLink::start_probed(&core, setup);
    let mut state = WorkbenchState::new(WorkbenchSetup {
        link,
        dialogs: Box::new(ScriptedDialogs::default()),
        demo_base_url: Some("http://127.0.0.1:9".into()),
        library_dir: None,
        persisted: None,
    });
    state.show_batch(true);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_accessibility_check(false)
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
    wait_for(&mut h, &|s| s.batch.batches().is_some());
    if !h.state_mut().batch.open_batch(&batch_id) {
        eprintln!("the batch is not listed");
        return;
    }
    wait_for(&mut h, &|s| s.batch.is_idle());
    println!(
        "list of batches and first page (200 rows) on screen after {:.0} ms; {} items",
        first.elapsed().as_secs_f64() * 1000.0,
        h.state().batch.counts().total()
    );
    println!(
        "{:<60} {:>8} {:>8} {:>8} {:>8}",
        "scenario", "cpu mean", "mean", "p95", "max"
    );
    let slow = scroll(&mut h, frames, 60.0);
    report("frame while scrolling 3 rows a frame", &slow);
    let fling = scroll(&mut h, frames, 2000.0);
    report("frame while flinging ~100 rows a frame (paging)", &fling);
    h.state_mut().show_batch(false);
    h.step();
    let baseline = scroll(&mut h, frames, 60.0);
    report(
        "baseline: same window, Timeline tab instead of Batch",
        &baseline,
    );
    let worst = slow
        .iter()
        .chain(&fling)
        .filter_map(|t| t.cpu_ms)
        .fold(0.0_f64, f64::max);
    println!("largest frame CPU time: {worst:.2} ms");
    h.state_mut().show_batch(true);
    if !h.state_mut().batch.open_batch(&running_id) {
        eprintln!("the running batch is not listed");
        return;
    }
    wait_for(&mut h, &|s| s.batch.is_idle());
    h.get_by_label("Start").click();
    let started = Instant::now();
    let running: Vec<_> = (0..frames)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(16));
            let clock = FrameClock::start();
            h.step();
            clock.stop()
        })
        .collect();
    let done = h.state().batch.counts();
    report(
        &format!("frame every 16 ms while a batch of {items} runs (concurrency 8)"),
        &running,
    );
    println!(
        "{} of {items} items ended in the {:.1} s measured; largest frame CPU time: {:.2} ms",
        done.finished(),
        started.elapsed().as_secs_f64(),
        running
            .iter()
            .filter_map(|t| t.cpu_ms)
            .fold(0.0_f64, f64::max)
    );
    h.get_by_label("Pause").click();
    h.step();
}
