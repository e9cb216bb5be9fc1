//! egui_kittest tests of the phase waterfall in the detail pane and the phases tooltip of the
//! table's duration cell, from recorded events with measured phases.

use chrono::{DateTime, FixedOffset};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use retryscope::model::{ConnectionUse, OutcomeKind, RunEvent, Timings, Verdict};
use retryscope::testkit::EventScript;
use retryscope::testkit::{response, retry};
use retryscope::ui::timeline::RunsState;
use std::time::{Duration, Instant};

struct Screen {
    runs: RunsState,
    now: Instant,
}

fn start() -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("valid rfc3339")
}

/// Attempt 1 on a new connection (DNS, connect, wait, download), attempt 2 on the same
/// connection kept alive (reused).
fn script() -> EventScript {
    let new_connection = Timings {
        resolve_ms: Some(0.4),
        connection: ConnectionUse::New,
        connect_start_ms: Some(0.5),
        connect_ms: Some(1.5),
        headers_ms: Some(9.0),
        total_ms: 12.0,
        ..Timings::default()
    };
    let reused = Timings {
        resolve_ms: Some(0.3),
        connection: ConnectionUse::Reused,
        headers_ms: Some(5.0),
        total_ms: 6.0,
        ..Timings::default()
    };
    EventScript::new(1, "GET", "http://localhost:8080/status/503", start())
        .start_attempt()
        .finish_attempt_timed(
            response(503, &[], "busy"),
            retry("503 is retryable"),
            new_connection,
        )
        .wait(100, 101.0)
        .start_attempt()
        .finish_attempt_timed(response(200, &[], "ok"), Verdict::SUCCESS, reused)
        .finish(OutcomeKind::Succeeded, "succeeded on attempt 2", Some(200))
}

fn harness() -> Harness<'static, Screen> {
    let t0 = Instant::now();
    let mut runs = RunsState::default();
    for (event, ms) in script().timed() {
        if let RunEvent::RunStarted { run_id, .. } = &*event {
            runs.add_run(*run_id, "GET /status/503".into());
        }
        runs.apply(event, t0 + Duration::from_secs_f64(ms / 1000.0));
    }
    let state = Screen {
        runs,
        now: t0 + Duration::from_secs(10),
    };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, s: &mut Screen| {
                let _ = s.runs.ui(ui, s.now);
            },
            state,
        );
    harness.run();
    harness
}

#[test]
fn the_detail_pane_shows_the_waterfall_of_a_new_connection() {
    let mut harness = harness();
    assert!(
        harness.query_by_label("Phases").is_none(),
        "nothing selected"
    );
    harness.get_by_label("#1").click();
    harness.run();
    harness.get_by_label("Phases");
    harness.get_by_label("DNS");
    harness.get_by_label("connect");
    harness.get_by_label("send + wait (TTFB)");
    harness.get_by_label("download");
    harness.get_by_label("1.5 ms");
    harness.get_by_label("connect bar from 0.50 ms to 2.0 ms");
    assert!(harness.query_by_label("connection reused").is_none());
}

#[test]
fn a_reused_connection_reads_reused_not_zero() {
    let mut harness = harness();
    harness.get_by_label("#2").click();
    harness.run();
    harness.get_by_label("Phases");
    harness.get_by_label("connection reused");
    harness.get_by_label("reused");
    assert!(
        harness.query_by_label("connect").is_none(),
        "no connect row for a reused connection"
    );
}

#[test]
fn the_duration_cell_lists_the_phases_on_hover() {
    let mut harness = harness();
    harness.get_by_label("12 ms").hover();
    for _ in 0..20 {
        harness.step();
    }
    harness.run();
    harness.get_by_label_contains("phases of attempt 1");
    harness.get_by_label_contains("connect  1.5 ms");
}

#[test]
fn a_split_tls_handshake_has_its_own_row_and_an_unsplit_one_says_connect_plus_tls() {
    let split = Timings {
        connection: ConnectionUse::New,
        connect_start_ms: Some(0.0),
        connect_ms: Some(4.0),
        tls_ms: Some(3.0),
        headers_ms: Some(8.0),
        total_ms: 9.0,
        ..Timings::default()
    };
    let unsplit = Timings {
        tls_ms: None,
        tls_in_connect: true,
        ..split
    };
    let script = EventScript::new(1, "GET", "https://localhost:8443/status/503", start())
        .start_attempt()
        .finish_attempt_timed(response(503, &[], "busy"), retry("503 is retryable"), split)
        .wait(100, 101.0)
        .start_attempt()
        .finish_attempt_timed(response(200, &[], "ok"), Verdict::SUCCESS, unsplit)
        .finish(OutcomeKind::Succeeded, "succeeded on attempt 2", Some(200));
    let t0 = Instant::now();
    let mut runs = RunsState::default();
    for (event, ms) in script.timed() {
        if let RunEvent::RunStarted { run_id, .. } = &*event {
            runs.add_run(*run_id, "GET /status/503".into());
        }
        runs.apply(event, t0 + Duration::from_secs_f64(ms / 1000.0));
    }
    runs.select_attempt(1);
    let state = Screen { runs, now: t0 };
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, s: &mut Screen| {
                let _ = s.runs.ui(ui, s.now);
            },
            state,
        );
    harness.run();
    harness.get_by_label("connect");
    harness.get_by_label("TLS");
    harness.get_by_label("3.0 ms");
    harness.get_by_label("#2").click();
    harness.run();
    harness.get_by_label("connect + TLS");
    harness.get_by_label_contains("measured as one");
}
