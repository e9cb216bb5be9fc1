//! The History panel, driven as a user would: a temporary history with a few runs, the panel's
//! real reader thread; filter by typing, open a run read-only, re-run, delete, compare.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod core_support;
mod demo_support;
mod ui_support;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::model::{KeyValue, OutcomeKind, RequestSpec, RetryProfile, Verdict};
use retryscope::service::{CoreCommand, CoreLink, CoreProbe};
use retryscope::store::{HistoryRecorder, HistoryStore, RunFilter};
use retryscope::testkit::EventScript;
use retryscope::testkit::{response, retry};
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::WorkbenchState;
use std::time::Duration;
use ui_support::{DEMO, harness_sized, type_into};

/// Records a run of `GET url` (503, wait 100 ms, 200; or 503 then give up when `fails`) under
/// `profile`, with `headers` on the request.
fn seed_run(
    store: &mut HistoryStore,
    url: &str,
    profile: &RetryProfile,
    headers: &[(&str, &str)],
    fails: bool,
) {
    let mut spec = RequestSpec::get(url);
    for (n, v) in headers {
        spec.headers.push(KeyValue::new(*n, *v));
    }
    let mut recorder = HistoryRecorder::new(&spec, profile, Vec::new(), 1024);
    let start = chrono::Local::now().fixed_offset();
    let script = EventScript::new(1, "GET", url, start)
        .attempt(response(503, &[], "busy"), retry("503 is retryable"), 12.0)
        .wait(100, 100.5);
    let script = if fails {
        script
            .attempt(
                response(503, &[], "busy"),
                Verdict::Stop {
                    reason: "max retries".into(),
                },
                9.0,
            )
            .finish(
                OutcomeKind::GaveUp,
                "gave up after 2 attempts (503)",
                Some(503),
            )
    } else {
        script
            .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 8.0)
            .finish(OutcomeKind::Succeeded, "succeeded on attempt 2", Some(200))
    };
    for (event, _) in script.events() {
        if let Some(w) = recorder.fold(event) {
            store.apply(&w).unwrap();
        }
    }
    // Distinct start times, so the order is fixed.
    std::thread::sleep(Duration::from_millis(3));
}

/// A workbench whose History panel reads `dir`'s history (its runs observed by the probe).
fn workbench_over(dir: &std::path::Path, dialogs: ScriptedDialogs) -> (WorkbenchState, CoreProbe) {
    let core = core_support::shared_core();
    let (link, probe) = CoreLink::start_probed(core, core_support::history_setup(dir));
    (ui_support::workbench_on_with(link, None, dialogs), probe)
}

struct Fixture {
    dir: tempfile::TempDir,
    harness: Harness<'static, WorkbenchState>,
    probe: retryscope::service::CoreProbe,
}

/// A workbench with the History panel shown, on a history holding `alpha` (gave up), `beta`
/// (succeeded, with an Authorization header) and `gamma` (succeeded).
fn fixture(size: [f32; 2]) -> Fixture {
    fixture_with(size, ScriptedDialogs::default())
}

/// [`fixture`] whose save dialog answers as `dialogs` says.
fn fixture_with(size: [f32; 2], dialogs: ScriptedDialogs) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let (mut state, probe) = workbench_over(dir.path(), dialogs);
    let profile = state.profile.current.profile.clone();
    let mut store = HistoryStore::open_in(dir.path()).unwrap();
    seed_run(
        &mut store,
        &format!("{DEMO}/status/503?run=alpha"),
        &profile,
        &[],
        true,
    );
    seed_run(
        &mut store,
        &format!("{DEMO}/status/503?run=beta"),
        &profile,
        &[("Authorization", "Bearer SECRETBETA")],
        false,
    );
    seed_run(
        &mut store,
        &format!("{DEMO}/status/503?run=gamma"),
        &profile,
        &[],
        false,
    );
    drop(store);
    state.show_history(true);
    let mut harness = harness_sized(state, size);
    settle(&mut harness);
    Fixture {
        dir,
        harness,
        probe,
    }
}

/// Runs frames until the History panel has no request in flight (5 s at most).
fn settle(h: &mut Harness<'_, WorkbenchState>) {
    ui_support::settle_until(h, "the history panel", |s| s.history.is_idle());
}

fn url(name: &str) -> String {
    format!("{DEMO}/status/503?run={name}")
}

/// The URL cell of run `name` in a narrow window (800×600): method and path.
fn narrow_cell(name: &str) -> String {
    format!("GET /status/503?run={name}")
}

#[test]
fn the_list_filters_as_the_url_text_is_typed_key_by_key() {
    let mut f = fixture([1280.0, 800.0]);
    let h = &mut f.harness;
    assert_eq!(h.state().history.total(), Some(3));
    assert!(h.query_by_label(&url("alpha")).is_some());
    type_into(h, "URL contains", "run=be");
    settle(h);
    assert_eq!(h.state().history.total(), Some(1));
    assert!(h.query_by_label(&url("beta")).is_some());
    assert!(h.query_by_label(&url("alpha")).is_none());
    // The stored request never held the secret; the list shows the masked URL only.
    assert!(h.query_by_label_contains("SECRETBETA").is_none());
}

#[test]
fn opening_a_run_shows_its_attempts_read_only_in_the_timeline() {
    let mut f = fixture([1280.0, 800.0]);
    let h = &mut f.harness;
    h.get_by_label(&url("alpha")).click();
    h.run();
    h.get_by_label("Open").click();
    settle(h);
    assert!(!h.state().history_shown(), "the timeline shows");
    assert!(
        h.query_by_label_contains("from history, ").is_some(),
        "marked read-only"
    );
    assert!(h.query_by_label("Cancel").is_none());
    assert!(h.query_by_label("Retry now").is_none());
    let id = h.state().runs.selected().unwrap();
    assert!(h.state().runs.is_read_only(id));
    let timeline = h.state().runs.timeline(id).unwrap();
    let results: Vec<String> = timeline
        .attempts()
        .iter()
        .map(retryscope::model::AttemptRow::result_label)
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].contains("503"), "{results:?}");
    assert_eq!(
        timeline.finished().map(|f| f.banner.kind),
        Some(OutcomeKind::GaveUp)
    );
}

#[test]
fn delete_asks_first_then_removes_the_run() {
    let mut f = fixture([1280.0, 800.0]);
    let h = &mut f.harness;
    h.get_by_label(&url("gamma")).click();
    h.run();
    h.get_by_label("Delete…").click();
    h.run();
    h.get_by_label("Keep it").click();
    settle(h);
    assert_eq!(h.state().history.total(), Some(3));
    h.get_by_label("Delete…").click();
    h.run();
    h.get_by_label("Delete run").click();
    settle(h);
    assert_eq!(h.state().history.total(), Some(2));
    assert!(h.query_by_label(&url("gamma")).is_none());
    let left = HistoryStore::open_in(f.dir.path())
        .unwrap()
        .list(&RunFilter::default())
        .unwrap();
    assert_eq!(left.len(), 2);
    assert!(left.iter().all(|r| !r.url.contains("gamma")));
}

#[test]
fn two_marked_runs_compare_side_by_side() {
    let mut f = fixture([1280.0, 800.0]);
    let h = &mut f.harness;
    h.get_by_label(&url("alpha")).click();
    h.run();
    h.get_by_label("Mark for compare").click();
    h.run();
    h.get_by_label(&url("gamma")).click();
    h.run();
    h.get_by_label("Mark for compare").click();
    h.run();
    h.get_by_label("Compare").click();
    settle(h);
    assert!(h.query_by_label("Comparison plot").is_some());
    assert!(h.query_by_label("A measured").is_some());
    assert!(h.query_by_label("B status").is_some());
    // A gave up on 503, B succeeded with 200 on attempt 2; both waited 100 ms after attempt 1.
    assert_eq!(h.query_all_by_label("503").count(), 3);
    assert_eq!(h.query_all_by_label("200").count(), 1);
    assert_eq!(h.query_all_by_label("100 ms").count(), 2);
    h.get_by_label("Back to the list").click();
    settle(h);
    assert!(h.query_by_label(&url("beta")).is_some());
}

#[test]
fn rerun_sends_the_recorded_request_with_its_seed_and_refuses_a_masked_secret() {
    let mut f = fixture([800.0, 600.0]);
    let h = &mut f.harness;
    h.get_by_label(&narrow_cell("gamma")).click();
    h.run();
    h.get_by_label("Same seed").click();
    h.get_by_label("Re-run").click();
    settle(h);
    let starts: Vec<_> = f
        .probe
        .drain_commands()
        .into_iter()
        .filter_map(|c| match c {
            CoreCommand::Start { spec, seed, .. } => Some((spec.url, seed)),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [(url("gamma"), Some(7))]);

    // beta's Authorization was masked when recorded: not sent, the field is named.
    h.state_mut().show_history(true);
    settle(h);
    h.get_by_label(&narrow_cell("beta")).click();
    h.run();
    h.get_by_label("Re-run").click();
    settle(h);
    assert!(f.probe.drain_commands().is_empty());
    let (is_error, text) = h.state().status().cloned().unwrap();
    assert!(is_error);
    assert!(
        text.contains("the header Authorization was masked"),
        "{text}"
    );
    assert_eq!(h.state().request.composer.draft.url, url("beta"));
}

#[test]
fn rerun_of_the_request_in_the_composer_refills_its_secret_from_the_composer() {
    let dir = tempfile::tempdir().unwrap();
    let (mut state, probe) = workbench_over(dir.path(), ScriptedDialogs::default());
    // The composer holds the request that was recorded, with its live token.
    state.request.composer.draft.url = url("delta");
    state
        .request
        .composer
        .draft
        .headers
        .push(KeyValue::new("Authorization", "Bearer LIVETOKEN"));
    let spec = state
        .request
        .composer
        .draft
        .to_spec(&retryscope::model::Variables::default(), "u")
        .unwrap();
    let profile = state.profile.current.profile.clone();
    let mut store = HistoryStore::open_in(dir.path()).unwrap();
    let mut recorder = HistoryRecorder::new(&spec, &profile, Vec::new(), 1024);
    let start = chrono::Local::now().fixed_offset();
    let script = EventScript::new(1, "GET", &url("delta"), start)
        .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 5.0)
        .finish(OutcomeKind::Succeeded, "succeeded", Some(200));
    for (event, _) in script.events() {
        if let Some(w) = recorder.fold(event) {
            store.apply(&w).unwrap();
        }
    }
    let stored = store.list(&RunFilter::default()).unwrap();
    let recorded = serde_json::to_string(&stored[0].request).unwrap();
    assert!(!recorded.contains("LIVETOKEN"), "{recorded}");
    drop(store);
    state.show_history(true);
    let mut h = harness_sized(state, [1280.0, 800.0]);
    settle(&mut h);
    h.get_by_label(&url("delta")).click();
    h.run();
    h.get_by_label("Re-run").click();
    settle(&mut h);
    let sent: Vec<_> = probe
        .drain_commands()
        .into_iter()
        .filter_map(|c| match c {
            CoreCommand::Start { spec, .. } => Some(spec),
            _ => None,
        })
        .collect();
    assert_eq!(sent.len(), 1, "{:?}", h.state().status());
    let auth = sent[0]
        .headers
        .iter()
        .find(|h| h.name == "Authorization")
        .map(|h| h.value.as_str());
    assert_eq!(auth, Some("Bearer LIVETOKEN"));
}

#[test]
fn newest_first_by_default_and_a_header_click_sorts_by_that_column() {
    let mut f = fixture([1280.0, 800.0]);
    let h = &mut f.harness;
    let y = |h: &Harness<'_, WorkbenchState>, name: &str| h.get_by_label(&url(name)).rect().top();
    assert!(y(h, "gamma") < y(h, "beta") && y(h, "beta") < y(h, "alpha"));
    h.get_by_role_and_label(Role::Button, "URL").click();
    settle(h);
    assert!(y(h, "alpha") < y(h, "beta") && y(h, "beta") < y(h, "gamma"));
    // Again: the other way round.
    h.get_by_role_and_label(Role::Button, "URL ↑").click();
    settle(h);
    assert!(y(h, "gamma") < y(h, "beta") && y(h, "beta") < y(h, "alpha"));
    // Filter by outcome: alpha is the only one that gave up.
    h.get_by_role_and_label(Role::ComboBox, "Outcome").click();
    h.run();
    h.get_by_label("gave_up").click();
    settle(h);
    assert_eq!(h.state().history.total(), Some(1));
    assert!(h.query_by_label(&url("alpha")).is_some());
}

#[test]
fn the_date_range_filters_and_a_bad_date_is_named() {
    let mut f = fixture([800.0, 600.0]);
    let h = &mut f.harness;
    type_into(h, "From", "2999-01-01");
    settle(h);
    assert_eq!(h.state().history.total(), Some(0));
    type_into(h, "From", "2000-01-01");
    settle(h);
    assert_eq!(h.state().history.total(), Some(3));
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    type_into(h, "To", &today);
    settle(h);
    assert_eq!(
        h.state().history.total(),
        Some(3),
        "the last day is included"
    );
    type_into(h, "To", "soon");
    settle(h);
    assert!(
        h.query_by_label_contains("To: `soon` is not a date")
            .is_some()
    );
    assert_eq!(h.state().history.total(), Some(3), "a bad bound is ignored");
}

#[test]
fn filters_and_sort_survive_a_restart() {
    let mut f = fixture([1280.0, 800.0]);
    let h = &mut f.harness;
    h.get_by_role_and_label(Role::Button, "URL").click();
    settle(h);
    type_into(h, "URL contains", "run=be");
    settle(h);
    // Through the JSON eframe stores, then a new window from it.
    let json = serde_json::to_string(&h.state().to_persisted()).unwrap();
    let persisted = serde_json::from_str(&json).unwrap();
    let core = core_support::shared_core();
    let (link, _probe) = CoreLink::start_probed(core, core_support::history_setup(f.dir.path()));
    let mut state = ui_support::workbench_on(link, Some(persisted));
    state.show_history(true);
    let mut restored = harness_sized(state, [1280.0, 800.0]);
    settle(&mut restored);
    assert_eq!(restored.state().history.filters.url, "run=be");
    assert_eq!(
        restored.state().history.filters.sort,
        retryscope::store::RunSort::Url
    );
    assert_eq!(restored.state().history.total(), Some(1));
    assert!(restored.query_by_label(&url("beta")).is_some());
    assert!(
        restored.query_by_label("URL ↑").is_some(),
        "the sort arrow shows on URL"
    );
}

#[test]
fn the_url_filter_finds_non_ascii_text_in_a_run_recorded_against_the_demo_server() {
    let demo = demo_support::Demo::start();
    let dir = tempfile::tempdir().unwrap();
    for city in ["ünï", "x"] {
        assert_cmd::Command::cargo_bin("retryscope")
            .unwrap()
            .env("RETRYSCOPE_KEYRING", "memory")
            .env("RETRYSCOPE_DATA_DIR", dir.path())
            .timeout(Duration::from_secs(30))
            .args(["run", "--no-body"])
            .arg(demo.server.url(&format!("/status/200?city={city}")))
            .assert()
            .code(0);
    }
    let (mut state, _probe) = workbench_over(dir.path(), ScriptedDialogs::default());
    state.show_history(true);
    let mut h = harness_sized(state, [1280.0, 800.0]);
    settle(&mut h);
    assert_eq!(h.state().history.total(), Some(2));
    // The row shows the URL as stored: percent-encoded.
    let stored = demo.server.url("/status/200?city=%C3%BCn%C3%AF");
    assert!(h.query_by_label(&stored).is_some());
    type_into(&mut h, "URL contains", "city=ünï");
    settle(&mut h);
    assert_eq!(h.state().history.total(), Some(1));
    assert!(h.query_by_label(&stored).is_some());
    type_into(&mut h, "URL contains", "%c3%bc");
    settle(&mut h);
    assert_eq!(h.state().history.total(), Some(1));
    type_into(&mut h, "URL contains", "ünïx");
    settle(&mut h);
    assert_eq!(h.state().history.total(), Some(0));
}

#[test]
fn the_outcome_filter_offers_running_as_the_rows_show_it() {
    let mut f = fixture([1280.0, 800.0]);
    // A run this (live) process leaves open: listed as `running`.
    let delta = url("delta");
    let mut store = HistoryStore::open_in(f.dir.path()).unwrap();
    let spec = RequestSpec::get(&delta);
    let profile = f.harness.state().profile.current.profile.clone();
    let mut recorder = HistoryRecorder::new(&spec, &profile, Vec::new(), 1024);
    let started = retryscope::model::RunEvent::RunStarted {
        run_id: 9,
        seed: 1,
        profile: "p".into(),
        method: "GET".into(),
        url: delta.clone(),
        started_at: chrono::Local::now().fixed_offset(),
        tls_unverified: false,
    };
    store.apply(&recorder.fold(&started).unwrap()).unwrap();
    drop(store);
    let h = &mut f.harness;
    h.get_by_label("Refresh").click();
    settle(h);
    assert_eq!(h.state().history.total(), Some(4));
    h.get_by_role_and_label(Role::ComboBox, "Outcome").click();
    h.run();
    h.get_by_role_and_label(Role::Button, "running").click();
    settle(h);
    assert_eq!(h.state().history.total(), Some(1));
    assert!(h.query_by_label(&delta).is_some());
    assert!(h.query_by_label(&url("alpha")).is_none());
    assert_eq!(
        h.state().history.filters.outcome,
        Some(retryscope::store::OutcomeFilter::Running)
    );
}

/// Runs frames until the status line tells of a report (10 s at most: the store actor writes
/// it); returns it.
fn report_status(h: &mut Harness<'_, WorkbenchState>) -> (bool, String) {
    for _ in 0..1000 {
        h.run();
        if let Some(status) = h.state().status()
            && (status.1.starts_with("Report of") || status.1.starts_with("No report"))
        {
            return status.clone();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no report status; status: {:?}", h.state().status());
}

#[test]
fn report_writes_the_html_report_of_the_runs_the_filters_select() {
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("ticket");
    let mut f = fixture_with([1280.0, 800.0], ScriptedDialogs::new([Some(path.clone())]));
    let h = &mut f.harness;
    type_into(h, "URL contains", "status/503");
    h.get_by_role_and_label(Role::ComboBox, "Outcome").click();
    h.run();
    h.get_by_role_and_label(Role::Button, "gave_up").click();
    settle(h);
    assert_eq!(h.state().history.total(), Some(1));
    h.get_by_label("Report…").click();
    h.run();
    // The outcome filter has no counterpart in a report's selection: the dialog says so.
    assert!(
        h.query_by_label_contains("Not applied: Outcome gave_up")
            .is_some()
    );
    h.get_by_role_and_label(Role::ComboBox, "Outcome").click();
    h.run();
    h.get_by_role_and_label(Role::Button, "any").click();
    settle(h);
    let listed = h.state().history.total().unwrap();
    assert_eq!(listed, 3);
    assert!(h.query_by_label_contains("Not applied").is_none());
    assert!(h.query_by_label_contains("url `status/503`").is_some());
    assert!(h.query_by_label("Format").is_some());
    h.get_by_label("Save report…").click();
    let html = path.with_extension("html");
    let (is_error, text) = report_status(h);
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        format!("Report of {listed} runs written to {}", html.display())
    );
    let page = std::fs::read_to_string(&html).expect("the report was written");
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..80]);
    assert!(
        page.contains(&format!(
            "data-figure=\"runs.total\" data-value=\"{listed}\""
        )),
        "the page's run count is the panel's"
    );
    assert!(page.contains("status/503"), "the selection is named");
    assert!(!page.contains("SECRETBETA"), "secrets stay masked");
    assert!(page.contains("***"));
}

#[test]
fn report_of_no_runs_writes_nothing_and_says_so() {
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("empty.html");
    let mut f = fixture_with([1280.0, 800.0], ScriptedDialogs::new([Some(path.clone())]));
    let h = &mut f.harness;
    type_into(h, "URL contains", "nothing-like-this");
    settle(h);
    assert_eq!(h.state().history.total(), Some(0));
    h.get_by_label("Report…").click();
    h.run();
    h.get_by_label("Save report…").click();
    let (is_error, text) = report_status(h);
    assert!(is_error);
    assert!(text.contains("no runs selected"), "{text}");
    assert!(text.contains("nothing was written"), "{text}");
    assert!(!path.exists());
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

/// At 800×600 every control above the list (filters and actions) and in the retention footer
/// is whole inside the window.
#[test]
fn every_toolbar_control_is_whole_at_800x600() {
    let mut f = fixture([800.0, 600.0]);
    let h = &mut f.harness;
    // A run selected, so the actions are enabled as a user sees them.
    h.get_by_label(&narrow_cell("gamma")).click();
    settle(h);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(800.0, 600.0));
    let mut clipped = Vec::new();
    for label in [
        "URL contains",
        "Method",
        "Outcome",
        "From",
        "To",
        "Refresh",
        "Open",
        "Re-run",
        "Same seed",
        "Mark for compare",
        "Compare",
        "Delete…",
        retryscope::ui::history::REPORT_LABEL,
        "Keep days",
        "Keep runs",
        "Apply retention",
    ] {
        for node in h.query_all_by_label(label) {
            let rect = node.rect();
            if !window.contains_rect(rect) {
                clipped.push(format!("{label} {rect:?}"));
            }
        }
    }
    assert!(clipped.is_empty(), "cut off at 800×600: {clipped:?}");
}
