//! Frame-time benchmark of editing a heavy profile: a `custom`
//! profile with 1000 retries whose script is edited on every frame, key by key, in the real
//! workbench. The compile check, the problems (with the script's dry run) and the preview
//! simulation run on the analysis worker; the frame only submits the new value and draws the
//! last finished analysis. Target: every frame ≤ 8 ms CPU (release).
//!
//! ```text
//! cargo run --release --example bench_editing -- [FRAMES]   # default 300
//! ```
//!
//! Prints per-frame CPU mean and wall-clock mean / p95 / max of the frame thread, the largest
//! frame CPU time, and how many analyses finished while typing (the worker skips the ones a
//! newer keystroke made stale).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark program prints its figures"
)]

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::model::Strategy;
use retryscope::service::CoreLink;
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::profile_library::{CurrentProfile, ProfileSource, fallback_default_profile};
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[path = "support/frame_clock.rs"]
mod frame_clock;
use frame_clock::{FrameClock, report};

/// Default frames (one keystroke each).
const DEFAULT_FRAMES: usize = 300;
/// Retries of the benchmark profile.
const RETRIES: u32 = 1000;

const SCRIPT: &str = "fn get_delay(ctx) {\n    let d = 100 * ctx.retry;\n    if d > 60000 { d = 60000; }\n    d\n}\n";

fn main() {
    let frames = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(DEFAULT_FRAMES);
    let (engine, _probe) = CoreLink::probe();
    let mut state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::default()),
        demo_base_url: Some("http://127.0.0.1:9".into()),
        library_dir: None,
        persisted: None,
    });
    let mut profile = fallback_default_profile();
    profile.name = "custom, 1000 retries".into();
    profile.max_retries = Some(RETRIES);
    profile.backoff.strategy = Strategy::Custom;
    profile.backoff.script = Some(SCRIPT.into());
    state.profile.current = CurrentProfile {
        source: ProfileSource::Unsaved,
        profile,
        saved: None,
    };
    let finished = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&finished);
    state.analyse_in_background(Arc::new(move || {
        counter.fetch_add(1, Ordering::Relaxed);
    }));
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_accessibility_check(false)
        .build_ui_state(
            |ui, s: &mut WorkbenchState| {
                let ctx = ui.ctx().clone();
                s.logic(&ctx);
                s.ui(ui);
            },
            state,
        );
    // Let the first analysis land so the script editor and a full preview are on screen.
    let start = Instant::now();
    while finished.load(Ordering::Relaxed) == 0 && start.elapsed() < Duration::from_mins(2) {
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    let first = start.elapsed();
    h.step();
    h.get_by_label("Script").focus();
    h.step();
    h.key_press_modifiers(Modifiers::COMMAND, Key::End);
    h.step();
    h.get_by_label("Script").type_text("// ");
    h.step();
    let before = finished.load(Ordering::Relaxed);
    let typed = "editing a thousand retries ";
    let times: Vec<_> = (0..frames)
        .map(|i| {
            let c = typed.chars().nth(i % typed.len()).unwrap_or('x');
            h.get_by_label("Script").type_text(&c.to_string());
            let clock = FrameClock::start();
            h.step();
            clock.stop()
        })
        .collect();
    let during = finished.load(Ordering::Relaxed) - before;
    // After the last keystroke: how long until the analysis of the final value is on screen.
    let stopped = Instant::now();
    while !h.state().preview().is_current() && stopped.elapsed() < Duration::from_mins(2) {
        h.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    let settled = stopped.elapsed();
    println!(
        "editing a custom profile with {RETRIES} retries, {frames} frames, one keystroke each"
    );
    println!(
        "first analysis (compile, validate + dry run, preview) took {:.0} ms on the worker",
        first.as_secs_f64() * 1000.0
    );
    println!(
        "{:<60} {:>8} {:>8} {:>8} {:>8}",
        "scenario", "cpu mean", "mean", "p95", "max"
    );
    report(
        "frame while typing into the script (analysis on the worker)",
        &times,
    );
    let worst_cpu = times
        .iter()
        .filter_map(|t| t.cpu_ms)
        .fold(0.0_f64, f64::max);
    println!(
        "largest frame CPU time: {worst_cpu:.2} ms; analyses finished while typing: {during} \
         (older ones are abandoned); the final value's analysis was on screen {:.0} ms after the \
         last keystroke",
        settled.as_secs_f64() * 1000.0
    );
    let typed_len = h
        .state()
        .profile
        .current
        .profile
        .backoff
        .script
        .as_deref()
        .map_or(0, str::len);
    assert!(
        typed_len >= SCRIPT.len() + frames,
        "every keystroke reached the script"
    );
}
