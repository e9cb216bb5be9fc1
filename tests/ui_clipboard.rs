//! The system clipboard from the timeline (egui_kittest, no window): what each Copy button and
//! Ctrl+C on a table row put into the frame's `OutputCommand::CopyText`, which eframe's
//! `clipboard` feature hands to the X11 / Wayland clipboard.

use chrono::{DateTime, FixedOffset};
use egui::OutputCommand;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use retryscope::model::{OutcomeKind, Verdict};
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

/// Attempt 1: 503 with a secret `set-cookie`, wait 1 s; attempt 2: 200 after 0.42 ms.
fn harness() -> Harness<'static, Screen> {
    let script = EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start())
        .attempt(
            response(
                503,
                &[("content-type", "text/plain"), ("set-cookie", "sid=abc123")],
                "busy",
            ),
            retry("503 is retryable"),
            12.0,
        )
        .wait(1000, 1003.0)
        .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 0.42)
        .finish(
            OutcomeKind::Succeeded,
            "succeeded on attempt 2 after 1.0 s",
            Some(200),
        );
    let t0 = Instant::now();
    let mut runs = RunsState::default();
    runs.add_run(1, "GET /status/503".into());
    for (event, ms) in script.timed() {
        runs.apply(event, t0 + Duration::from_secs_f64(ms / 1000.0));
    }
    let screen = Screen {
        runs,
        now: t0 + Duration::from_secs(10),
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 1000.0))
        .build_ui_state(
            |ui, s: &mut Screen| {
                let _ = s.runs.ui(ui, s.now);
                // As the workbench does once per frame.
                retryscope::ui::copied_toast::show(ui.ctx());
            },
            screen,
        );
    h.run();
    h
}

/// Texts the last frame put on the clipboard.
fn copied(h: &Harness<'_, Screen>) -> Vec<String> {
    h.output()
        .platform_output
        .commands
        .iter()
        .filter_map(|c| match c {
            OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// Clicks the widget labelled `label` and returns what that frame copied. `step` (not `run`):
/// the click lands in the last frame of the step, whose output is the one kept.
fn click_and_copy(h: &mut Harness<'static, Screen>, label: &str) -> Vec<String> {
    h.get_by_label(label).click();
    h.step();
    let texts = copied(h);
    h.run();
    texts
}

fn select_attempt(h: &mut Harness<'static, Screen>, label: &str) {
    h.get_by_label(label).click();
    h.run();
}

#[test]
fn copy_as_text_puts_the_whole_run_on_the_clipboard() {
    let mut h = harness();
    assert!(h.query_by_label_contains("Copied").is_none(), "no note yet");
    let texts = click_and_copy(&mut h, "Copy as text");
    assert_eq!(texts.len(), 1, "{texts:?}");
    h.get_by_label("Copied the run as text (secrets masked)");
    let expected = h.state().runs.timeline(1).expect("run 1 exists").to_text();
    assert_eq!(texts[0], expected);
    assert!(
        texts[0].contains("0.42 ms"),
        "sub-ms durations: {}",
        texts[0]
    );
}

#[test]
fn detail_pane_copies_a_header_the_body_and_the_explanation() {
    let mut h = harness();
    select_attempt(&mut h, "#1");
    assert_eq!(
        click_and_copy(&mut h, "Copy header content-type"),
        vec!["content-type: text/plain".to_owned()]
    );
    assert_eq!(click_and_copy(&mut h, "Copy body"), vec!["busy".to_owned()]);
    assert_eq!(
        click_and_copy(&mut h, "Copy explanation"),
        vec!["retry 1: fixed 1000 ms = 1000 ms".to_owned()]
    );
    h.get_by_label("Copied the explanation of retry 1");
}

#[test]
fn secret_headers_are_shown_and_copied_masked() {
    let mut h = harness();
    select_attempt(&mut h, "#1");
    assert!(h.query_by_label("sid=abc123").is_none(), "masked on screen");
    assert_eq!(
        click_and_copy(&mut h, "Copy header set-cookie"),
        vec!["set-cookie: ***".to_owned()]
    );
    h.get_by_label("Copied header set-cookie (secrets masked)");
    let whole = click_and_copy(&mut h, "Copy attempt");
    assert_eq!(
        whole,
        vec![
            "Attempt 1 · GET http://127.0.0.1:8080/status/503\n\
             started 2026-11-30 14:00:00.000 +01:00\n\
             HTTP/1.1 503 Service Unavailable\n\
             verdict: retry: 503 is retryable\n\
             headers 10 ms · total 12 ms\n\
             headers:\n  content-type: text/plain\n  set-cookie: ***\n\
             body:\nbusy\n\
             wait 1 before attempt 2: planned 1000 ms, actual 1003 ms\n\
             retry 1: fixed 1000 ms = 1000 ms\n"
                .to_owned()
        ]
    );

    // Masked at the source: the window never holds the value, so nothing can show it.
    assert!(h.query_by_label("Show set-cookie").is_none());
    h.get_by_label("Copied attempt 1 as text (secrets masked)");
}

#[test]
fn ctrl_c_copies_the_selected_table_row() {
    let mut h = harness();
    // Nothing selected: Copy does nothing.
    h.event(egui::Event::Copy);
    h.step();
    assert!(copied(&h).is_empty());

    select_attempt(&mut h, "#2");
    // What egui-winit sends for Ctrl+C (Cmd+C on macOS).
    h.event(egui::Event::Copy);
    h.step();
    assert_eq!(
        copied(&h),
        vec!["#2\t14:00:01.015+01\t0.42 ms\t200 (success)\t2 B\t\t\t".to_owned()]
    );
    h.run();

    select_attempt(&mut h, "#1");
    h.event(egui::Event::Copy);
    h.step();
    assert_eq!(
        copied(&h),
        vec![
            "#1\t14:00:00.000+01\t12 ms\t503 (retry: 503 is retryable)\t4 B\t1000 ms\t1003 ms\t\
             retry 1: fixed 1000 ms = 1000 ms"
                .to_owned()
        ]
    );
}
