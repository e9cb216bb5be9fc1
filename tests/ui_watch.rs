//! The Watches tab, driven as a user would: a watch recorded by `retryscope watch` against the
//! demo server into a temporary data folder, read by the tab's own reader thread; the list, the
//! breakdown of the selected watch, a run opened in the timeline, and the what-if.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod core_support;
mod demo_support;
mod ui_support;

use demo_support::{Demo, retryscope};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use retryscope::service::CoreLink;
use retryscope::store::{HistoryStore, WatchRecord};
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::WorkbenchState;
use ui_support::harness_sized;

/// Runs frames until neither the Watches tab nor the History panel waits on a reply.
fn settle(h: &mut Harness<'_, WorkbenchState>) {
    ui_support::settle_until(h, "the Watches tab", |s| {
        s.watches.is_idle() && s.history.is_idle()
    });
}

/// A watch of up to 4 runs at 250 ms (`--for 1s`: a long schedule text) recorded by `retryscope watch` (default profile) into a
/// new data folder; the first hit answers 429 with `Retry-After: 0`, every later one 200, so
/// the first run takes two attempts and the others one.
fn recorded_watch(demo: &Demo) -> (tempfile::TempDir, WatchRecord) {
    let dir = tempfile::tempdir().unwrap();
    let url = demo.url("/retry-after?value=0&status=429&times=1");
    retryscope(dir.path())
        .args(["watch", "--every", "250ms", "--for", "1s", &url])
        .assert()
        .code(0);
    let store = HistoryStore::open_in(dir.path()).unwrap();
    let watch = store.watches(10).unwrap().remove(0);
    // A slot of a loaded machine may be missed (never sent late): count what was recorded.
    assert!(watch.runs >= 1);
    (dir, watch)
}

/// The window on the data folder `dir` at `size`, its Watches tab open and `watch` selected.
fn watch_selected_at(
    dir: &std::path::Path,
    watch: &WatchRecord,
    size: [f32; 2],
) -> Harness<'static, WorkbenchState> {
    watch_selected_with(dir, watch, size, ScriptedDialogs::default())
}

/// [`watch_selected_at`], the file dialogs answering with `dialogs`.
fn watch_selected_with(
    dir: &std::path::Path,
    watch: &WatchRecord,
    size: [f32; 2],
    dialogs: ScriptedDialogs,
) -> Harness<'static, WorkbenchState> {
    let (link, _probe) = CoreLink::start_probed(
        core_support::shared_core(),
        core_support::history_setup(dir),
    );
    let state = ui_support::workbench_on_with(link, None, dialogs);
    let mut h = harness_sized(state, size);
    h.run();
    h.get_by_label("Watches").click();
    settle(&mut h);
    h.get_by_label(&watch.id[..13]).click();
    settle(&mut h);
    h
}

/// [`watch_selected_at`] 1280×900.
fn watch_selected(dir: &std::path::Path, watch: &WatchRecord) -> Harness<'static, WorkbenchState> {
    watch_selected_at(dir, watch, [1280.0, 900.0])
}

#[test]
fn a_recorded_watch_is_listed_broken_down_and_its_run_opens_in_the_timeline() {
    let demo = Demo::start();
    let (dir, watch) = recorded_watch(&demo);
    let runs = watch.runs;
    // A small window: the list's row is wider than the tab.
    let mut h = watch_selected_at(dir.path(), &watch, [1000.0, 800.0]);
    assert!(
        h.query_by_label(&watch.id[..13]).is_some(),
        "the watch is listed"
    );
    assert!(
        h.query_by_label(&format!(
            "{}, {} missed",
            retryscope::model::counted(runs, "run", "runs"),
            watch.missed
        ))
        .is_some()
    );
    assert!(h.query_by_label("100.0 % success").is_some());
    // Nothing of the tab reaches under the policy panel: a wide list row scrolls on its own.
    let strip = h.get_by_label("Runs over time (height: attempts)").rect();
    // The policy panel's left edge, or the window's right edge when the panel is folded away.
    let limit = h
        .query_by_label("Retry policy")
        .map_or(1000.0, |n| n.rect().left());
    assert!(
        strip.right() <= limit,
        "the strip ends at {} but the tab at {limit}",
        strip.right(),
    );
    assert!(
        h.query_by_label("status 429").is_some(),
        "failed attempts by status"
    );
    assert!(h.query_by_label("failed attempts: 1").is_some());
    assert!(
        h.query_by_label("retry-after").is_some(),
        "delay headers seen"
    );
    assert_eq!(
        h.query_all_by_label_contains(" · succeeded · 1 attempt")
            .count() as u64,
        runs - 1
    );

    h.get_by_label_contains(" · succeeded · 2 attempts").click();
    settle(&mut h);
    assert!(
        h.query_by_label_contains("from history, ").is_some(),
        "the run opens read-only in the timeline"
    );
    let id = h.state().runs.selected().unwrap();
    assert!(h.state().runs.is_read_only(id));
    let attempts = h.state().runs.timeline(id).unwrap().attempts().len();
    assert_eq!(attempts, 2);
}

#[test]
fn compare_ranks_the_ticked_profiles_with_the_watch_own_marked_current() {
    let demo = Demo::start();
    let (dir, watch) = recorded_watch(&demo);
    let mut h = watch_selected(dir.path(), &watch);
    // The watch ran the default built-in: it is the current one, not offered again.
    let own = retryscope::profile::DEFAULT_BUILTIN;
    assert!(
        h.query_by_label(&format!(
            "{} — built-in {own}, this watch's profile (current)",
            watch.profile_name
        ))
        .is_some()
    );
    assert!(
        h.query_by_label(&format!("{} — built-in {own}", watch.profile_name))
            .is_none(),
        "the watch's own built-in has no checkbox of its own"
    );
    // A built-in beside the ones ticked at first.
    h.get_by_label_contains("built-in curl-retry")
        .scroll_to_me();
    h.run();
    h.get_by_label_contains("built-in curl-retry").click();
    h.run();
    h.get_by_label("Compare").scroll_to_me();
    h.run();
    h.get_by_label("Compare").click();
    settle(&mut h);
    assert!(
        h.query_by_label_contains(&format!("what-if over {} recorded run", watch.runs))
            .is_some()
    );
    assert!(
        h.query_by_label("attempts/run").is_some(),
        "the table's header"
    );
    // The watch ran the default built-in, which is not ticked: it is put in, marked current.
    let current: Vec<String> = h
        .query_all_by_label_contains(" — current")
        .filter_map(|n| n.accesskit_node().value())
        .collect();
    assert_eq!(current, [format!("{} — current", watch.profile_name)]);
    // A long name is cut to its column in the table (egui shows it whole on hover); its
    // accessible text is whole.
    let envoy = "envoy-route (Envoy route retry policy (defaults, retry_on 5xx))";
    let cell = h.get_by_label(envoy).rect();
    assert!(cell.width() <= 261.0, "{cell:?}");
    for id in [
        "aws-standard (",
        "azure-sdk (",
        "envoy-route (",
        "curl-retry (",
    ] {
        assert!(h.query_by_label_contains(id).is_some(), "{id} is ranked");
    }
    assert!(h.query_by_label("rank").is_some());
    assert!(
        h.query_by_label("The current profile's band as the samples thin out:")
            .is_some()
    );
    assert!(
        h.query_by_label_contains("between two recorded attempts is unknown")
            .is_some(),
        "the assumptions are stated"
    );
    // A reload brings the watch's runs again: the table replayed over the old ones goes.
    h.get_by_label("Reload watches").scroll_to_me();
    h.run();
    h.get_by_label("Reload watches").click();
    settle(&mut h);
    assert!(
        h.query_by_label("attempts/run").is_none(),
        "no table over the runs before the reload"
    );
    assert!(h.query_by_label("Compare").is_some());
}

#[test]
fn a_watch_with_no_finished_run_reads_n_a_not_zero_percent() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    // Killed while its only run waits on a server that never answers: the run is unfinished,
    // no evidence either way.
    let _ = retryscope(dir.path())
        .args([
            "watch",
            "--every",
            "10s",
            "--count",
            "1",
            &demo.url("/hang"),
        ])
        .timeout(std::time::Duration::from_secs(2))
        .output();
    let store = HistoryStore::open_in(dir.path()).unwrap();
    let watch = store.watches(10).unwrap().remove(0);
    let h = watch_selected(dir.path(), &watch);
    assert!(
        h.query_by_label_contains("success n/a (no run finished)")
            .is_some(),
        "the breakdown's rate"
    );
    assert!(
        h.query_by_label_contains("success rate n/a (no run finished) · time to success n/a")
            .is_some(),
        "the charts' line"
    );
    assert!(h.query_by_label_contains("0.0 %").is_none());
}

#[test]
fn the_report_of_the_selected_watch_is_written_through_the_save_dialog() {
    let demo = Demo::start();
    let (dir, watch) = recorded_watch(&demo);
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("ticket");
    let mut h = watch_selected_with(
        dir.path(),
        &watch,
        [1280.0, 900.0],
        ScriptedDialogs::new([Some(path.clone())]),
    );
    let json = path.with_extension("json");
    // The format picked beside the button: JSON, to read the figures back.
    h.get_by_label("Report format").click();
    h.run();
    h.get_by_label("JSON").click();
    h.run();
    h.get_by_label("Report of this watch…").click();
    for _ in 0..2000 {
        h.run();
        if json.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let text = std::fs::read_to_string(&json).expect("the report is written");
    let figures: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(figures["runs"]["total"], watch.runs);
    assert_eq!(
        figures["watch"]["id"],
        watch.id.as_str(),
        "a watch's report names its watch"
    );
}
