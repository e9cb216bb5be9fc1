//! egui_kittest tests of the timeline views: a `RunsState` built from recorded events, drawn
//! with a pinned `now`, queried and clicked through AccessKit labels.

use chrono::{DateTime, FixedOffset};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use retryscope::model::{OutcomeKind, Verdict};
use retryscope::testkit::EventScript;
use retryscope::testkit::{response, retry};
use retryscope::ui::timeline::{RunsState, TimelineAction};
use std::time::{Duration, Instant};

/// What the harness drives: the runs, the pinned clock, and every action returned.
struct Screen {
    runs: RunsState,
    now: Instant,
    actions: Vec<TimelineAction>,
}

fn start() -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("valid rfc3339")
}

fn at(t0: Instant, ms: f64) -> Instant {
    t0 + Duration::from_secs_f64(ms / 1000.0)
}

/// Run 1: 503 (with `x-attempt: one`), wait 1 s, 503 (with `x-attempt: two`), then either a
/// running 2 s wait or a 200 and the end.
fn script(finished: bool) -> EventScript {
    let s = EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start())
        .attempt(
            response(503, &[("x-attempt", "one")], "busy"),
            retry("503 is retryable"),
            12.0,
        )
        .wait(1000, 1003.0)
        .attempt(
            response(
                503,
                &[("x-attempt", "two"), ("retry-after", "2")],
                r#"{"error":"busy"}"#,
            ),
            retry("503 is retryable"),
            9.0,
        );
    if finished {
        s.wait(2000, 2001.0)
            .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 11.0)
            .finish(
                OutcomeKind::Succeeded,
                "succeeded on attempt 3 after 3.0 s",
                Some(200),
            )
    } else {
        s.schedule_wait(2000)
    }
}

fn screen(scripts: &[&EventScript], now_ms: f64) -> (Screen, Instant) {
    let t0 = Instant::now();
    let mut runs = RunsState::default();
    for s in scripts {
        for (event, ms) in s.timed() {
            if let retryscope::model::RunEvent::RunStarted { run_id, .. } = &*event {
                runs.add_run(*run_id, format!("GET /run/{run_id}"));
            }
            runs.apply(event, at(t0, ms));
        }
    }
    let screen = Screen {
        runs,
        now: at(t0, now_ms),
        actions: Vec::new(),
    };
    (screen, t0)
}

fn harness(state: Screen) -> Harness<'static, Screen> {
    harness_sized(state, egui::vec2(1280.0, 800.0))
}

fn harness_sized(state: Screen, size: egui::Vec2) -> Harness<'static, Screen> {
    Harness::builder().with_size(size).build_ui_state(
        |ui, s: &mut Screen| {
            let actions = s.runs.ui(ui, s.now);
            s.actions.extend(actions);
        },
        state,
    )
}

#[test]
fn retry_now_is_enabled_only_during_a_wait_and_returns_skip_wait() {
    // 500 ms into the 2 s wait that began at 1024 ms.
    let (state, _) = screen(&[&script(false)], 1524.0);
    let mut harness = harness(state);
    harness.run();
    harness.get_by_label("Next attempt in 1.5 s");
    let retry_now = harness.get_by_label("Retry now");
    assert!(!retry_now.accesskit_node().is_disabled());
    retry_now.click();
    harness.run();
    assert_eq!(harness.state().actions, vec![TimelineAction::SkipWait(1)]);

    harness.get_by_label("Cancel").click();
    harness.run();
    assert_eq!(
        harness.state().actions,
        vec![TimelineAction::SkipWait(1), TimelineAction::Cancel(1)]
    );
}

#[test]
fn finished_run_shows_banner_and_disables_controls() {
    let (state, _) = screen(&[&script(true)], 10_000.0);
    let mut harness = harness(state);
    harness.run();
    harness.get_by_label("Succeeded on attempt 3 after 3.0 s");
    assert!(
        harness
            .get_by_label("Retry now")
            .accesskit_node()
            .is_disabled()
    );
    assert!(
        harness
            .get_by_label("Cancel")
            .accesskit_node()
            .is_disabled()
    );
    harness.get_by_label("Retry now").click();
    harness.run();
    assert!(harness.state().actions.is_empty());
    harness.get_by_label("Copy as text");
    harness.get_by_label_contains("Run 1 · GET /run/1 · succeeded");
}

#[test]
fn in_flight_run_shows_live_status() {
    let s = EventScript::new(1, "GET", "http://127.0.0.1:8080/slow", start()).start_attempt();
    let (state, _) = screen(&[&s], 300.0);
    let mut harness = harness(state);
    harness.run();
    harness.get_by_label("Attempt 1 in flight…");
    assert!(
        harness
            .get_by_label("Retry now")
            .accesskit_node()
            .is_disabled()
    );
    assert!(
        !harness
            .get_by_label("Cancel")
            .accesskit_node()
            .is_disabled()
    );
}

#[test]
fn selecting_attempt_two_shows_its_headers() {
    let (state, _) = screen(&[&script(true)], 10_000.0);
    let mut harness = harness(state);
    harness.run();
    assert!(
        harness.query_by_label("two").is_none(),
        "no attempt selected yet"
    );
    harness.get_by_label("#2").click();
    harness.run();
    harness.get_by_label("Attempt 2");
    harness.get_by_label("HTTP/1.1 503 Service Unavailable");
    harness.get_by_label("x-attempt");
    harness.get_by_label("two");
    harness.get_by_label("retry-after");
    assert!(
        harness.query_by_label("one").is_none(),
        "attempt 1's headers are not shown"
    );
    // The JSON body is pretty-printed, one line per row.
    harness.get_by_label("  \"error\": \"busy\"");
}

#[test]
fn tabs_switch_between_overlapping_runs() {
    let second = EventScript::new(2, "GET", "http://127.0.0.1:8080/status/500", start())
        .attempt(response(500, &[], ""), retry("500 is retryable"), 4.0)
        .schedule_wait(3000);
    let (state, _) = screen(&[&script(true), &second], 1000.0);
    let mut harness = harness(state);
    harness.run();
    assert_eq!(harness.state().runs.selected(), Some(2));
    harness.get_by_label_contains("Run 2 · GET /run/2 · waiting");
    harness
        .get_by_label_contains("Run 1 · GET /run/1 · succeeded")
        .click();
    harness.run();
    assert_eq!(harness.state().runs.selected(), Some(1));
    harness.get_by_label("Succeeded on attempt 3 after 3.0 s");
    harness
        .get_by_label_contains("Run 2 · GET /run/2 · waiting")
        .click();
    harness.run();
    assert_eq!(harness.state().runs.selected(), Some(2));
    harness.get_by_label("Retry now").click();
    harness.run();
    assert_eq!(harness.state().actions, vec![TimelineAction::SkipWait(2)]);
}

#[test]
fn five_hundred_attempts_render() {
    let mut s = EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start());
    for _ in 0..499 {
        s = s
            .attempt(response(503, &[], ""), retry("503 is retryable"), 5.0)
            .wait(20, 20.5);
    }
    let s = s
        .attempt(response(200, &[], ""), Verdict::SUCCESS, 5.0)
        .finish(
            OutcomeKind::Succeeded,
            "succeeded on attempt 500 after 12.7 s",
            Some(200),
        );
    let (state, _) = screen(&[&s], 20_000.0);
    let mut harness = harness(state);
    harness.run();
    harness.get_by_label("Succeeded on attempt 500 after 12.7 s");
    // Only the rows in view are laid out.
    assert!(harness.query_by_label("#1").is_some());
    assert!(harness.query_by_label("#400").is_none());
}

#[test]
fn clicking_the_plot_selects_the_attempt_under_the_pointer() {
    let (state, _) = screen(&[&script(true)], 10_000.0);
    let mut harness = harness(state);
    harness.run();
    assert!(harness.query_by_label("Attempt 3").is_none());
    let plot = harness.get_by_label("Timeline plot").rect();
    // The run spans 0…3036 ms; attempt 3 starts at 3025 ms, at the right edge of the data.
    let pos = egui::pos2(plot.right() - plot.width() * 0.03, plot.center().y);
    harness.event(egui::Event::PointerMoved(pos));
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.run();
    }
    harness.get_by_label("Attempt 3");
    harness.get_by_label("HTTP/1.1 200 OK");
}

#[test]
fn detail_pane_shows_network_errors_and_binary_bodies() {
    use retryscope::model::{AttemptOutcome, BodyPreview, ErrorKind, ResponseSummary};
    use retryscope::testkit::net_error;
    let binary = AttemptOutcome::Response(ResponseSummary {
        status: 200,
        reason: "OK".to_owned(),
        version: "HTTP/2".to_owned(),
        headers: vec![("content-type".to_owned(), "image/png".to_owned())],
        body: BodyPreview {
            bytes: vec![0x89, b'P', b'N', b'G', 0, 0xff],
            total_bytes: 6,
            truncated: false,
        },
    });
    let s = EventScript::new(1, "GET", "http://127.0.0.1:8080/img", start())
        .attempt(
            net_error(ErrorKind::Reset, "connection reset by peer"),
            retry("reset is retryable"),
            3.0,
        )
        .wait(100, 100.0)
        .attempt(binary, Verdict::SUCCESS, 4.0)
        .finish(OutcomeKind::Succeeded, "", Some(200));
    let (state, _) = screen(&[&s], 1_000.0);
    let mut harness = harness(state);
    harness.run();
    harness.get_by_label("Succeeded on attempt 2 after 0.1 s");
    harness.get_by_label("#1").click();
    harness.run();
    harness.get_by_label("network error: reset");
    harness.get_by_label("connection reset by peer");
    harness.get_by_label("verdict: retry: reset is retryable");
    harness.get_by_label("#2").click();
    harness.run();
    harness.get_by_label("HTTP/2 200 OK");
    harness.get_by_label("binary body of 6 B (6 bytes): hex dump of the first 6 bytes");
    harness.get_by_label_contains("00000000  89 50 4e 47 00 ff");
}

#[test]
fn narrow_layout_puts_the_detail_below_the_table() {
    // The app shell flanks the timeline with side panels: about 600 points are left.
    let (state, _) = screen(&[&script(true)], 10_000.0);
    let mut harness = harness_sized(state, egui::vec2(600.0, 800.0));
    harness.run();
    harness.get_by_label("#2").click();
    harness.run();
    let row = harness.get_by_label("#2").rect();
    let heading = harness.get_by_label("Attempt 2").rect();
    assert!(
        heading.top() > row.bottom(),
        "detail {heading:?} below row {row:?}"
    );
    harness.get_by_label("x-attempt");
    harness.get_by_label("Retry now");
}

#[test]
fn the_result_cell_tells_the_verdict_on_hover() {
    let (state, _) = screen(&[&script(true)], 10_000.0);
    let mut harness = harness(state);
    harness.run();
    assert!(
        harness.query_by_label("Verdict").is_none(),
        "the verdict is no longer a column"
    );
    harness
        .query_all_by_label("503")
        .next()
        .expect("a 503 result cell")
        .hover();
    // Tooltips show after a short delay.
    for _ in 0..20 {
        harness.step();
    }
    harness.run();
    harness.get_by_label_contains("verdict: retry: 503 is retryable");
}

#[test]
fn every_column_fits_the_centre_of_a_1280_point_window() {
    // 1280 points minus the side panels (300 + 330) and their margins.
    let (state, _) = screen(&[&script(false)], 1524.0);
    let mut harness = harness_sized(state, egui::vec2(630.0, 800.0));
    harness.run();
    for title in [
        "#",
        "Start",
        "Duration",
        "Result",
        "Size",
        "Wait\nplanned",
        "Wait\nmeasured",
        "Explanation",
    ] {
        let rect = harness.get_by_label(title).rect();
        assert!(rect.right() <= 630.0, "{title:?} at {rect:?} is off-screen");
    }
    // Compact start (ms and offset), planned and measured wait, and the countdown.
    harness.get_by_label("14:00:00.000+01");
    harness.get_by_label("1000 ms");
    harness.get_by_label("1003 ms");
    harness.get_by_label("1.5 s left");
}

#[test]
fn clicking_any_cell_of_a_row_selects_its_attempt() {
    let (state, _) = screen(&[&script(true)], 10_000.0);
    let mut harness = harness(state);
    harness.run();
    assert!(harness.query_by_label("Attempt 2").is_none());
    // The Result cell of attempt 2, not the `#` cell.
    harness
        .query_all_by_label("503")
        .nth(1)
        .expect("attempt 2's result cell")
        .click();
    harness.run();
    harness.get_by_label("Attempt 2");
}

/// The explanation column is cut with an ellipsis in the table; the selected row's detail shows
/// the whole explanation, wrapped.
#[test]
fn the_selected_rows_detail_shows_the_whole_explanation() {
    let (state, _) = screen(&[&script(true)], 10_000.0);
    let mut harness = harness_sized(state, egui::vec2(800.0, 600.0));
    harness.run();
    assert!(
        harness
            .query_by_label("retry 1: fixed 1000 ms = 1000 ms")
            .is_none(),
        "no attempt selected yet: the whole text is not shown"
    );
    harness.get_by_label("#1").click();
    harness.run();
    harness.get_by_label("retry 1: fixed 1000 ms = 1000 ms");
}

/// Below the table (the window's usual layout), the response gets the space: the table keeps
/// what its three rows need (no empty rows) and the attempt's detail starts right under them.
#[test]
fn the_detail_pane_gets_the_space_the_rows_do_not_need() {
    let (state, _) = screen(&[&script(true)], 10_000.0);
    let mut harness = harness_sized(state, egui::vec2(600.0, 800.0));
    harness.run();
    harness.get_by_label("#1").click();
    harness.run();
    let last_row = harness.get_by_label("#3").rect();
    let heading = harness.get_by_label("Attempt 1").rect();
    assert!(
        heading.top() > last_row.bottom(),
        "{heading:?} {last_row:?}"
    );
    assert!(
        heading.top() - last_row.bottom() < 60.0,
        "{} points of empty table between the last row and the detail",
        heading.top() - last_row.bottom()
    );
}

#[test]
fn the_detail_pane_opens_at_the_size_it_was_left() {
    use retryscope::ui::persistence::DetailPaneSize;
    // Narrow: the pane below the table, left at 250 points tall by an earlier window.
    let (mut state, _) = screen(&[&script(true)], 10_000.0);
    state.runs.detail = DetailPaneSize {
        width: None,
        height: Some(250.0),
    };
    let mut narrow = harness_sized(state, egui::vec2(600.0, 800.0));
    narrow.run();
    narrow.get_by_label("#1").click();
    narrow.run();
    let heading = narrow.get_by_label("Attempt 1").rect();
    assert!(
        (800.0 - heading.top() - 250.0).abs() < 20.0,
        "the pane's top at {} for a 250-point pane in 800",
        heading.top()
    );
    let kept = narrow.state().runs.detail.height.expect("the size is kept");
    assert!((kept - 250.0).abs() < 1.0, "{kept}");

    // Wide: the pane right of the table keeps its width the same way.
    let (mut state, _) = screen(&[&script(true)], 10_000.0);
    state.runs.detail.width = Some(420.0);
    let mut wide = harness(state);
    wide.run();
    let kept = wide.state().runs.detail.width.expect("the size is kept");
    assert!((kept - 420.0).abs() < 1.0, "{kept}");
}
