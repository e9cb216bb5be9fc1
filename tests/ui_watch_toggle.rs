//! The Watch toggle under Send, driven as a user would: the schedule typed key by key, Watch
//! pressed, the watching state and the slot's run in the timeline, Stop pressed (the watch
//! recorded `paused`); a schedule the CLI would refuse shows why and starts nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod core_support;
mod demo_support;
mod ui_support;

use demo_support::Demo;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::service::{CoreCommand, CoreLink};
use retryscope::store::{HistoryStore, WatchState};
use retryscope::ui::workbench::WorkbenchState;
use ui_support::{harness_sized, type_into};

/// Runs frames until `done` holds (the core answers between frames); panics naming `what`
/// after 10 s.
fn frames_until(
    h: &mut Harness<'_, WorkbenchState>,
    what: &str,
    done: impl Fn(&Harness<'_, WorkbenchState>) -> bool,
) {
    let began = std::time::Instant::now();
    while began.elapsed() < std::time::Duration::from_secs(10) {
        h.run();
        if done(h) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{what} did not happen in 10 s");
}

/// A workbench on a link over a fresh history whose composer watches `path` of the demo
/// server every `every` for `length` (typed key by key), once the toggle shows `watching`.
fn watching(
    demo: &Demo,
    path: &str,
    (every, length): (&str, &str),
    watching: &str,
) -> (Harness<'static, WorkbenchState>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let link = CoreLink::start(
        core_support::shared_core(),
        core_support::history_setup(dir.path()),
    );
    let mut h = harness_sized(ui_support::workbench_on(link, None), [1280.0, 900.0]);
    h.run();
    type_into(&mut h, "URL", &demo.url(path));
    type_into(&mut h, "every", every);
    type_into(&mut h, "for", length);
    h.get_by_label("Watch").click();
    frames_until(&mut h, watching, |h| {
        h.query_by_label_contains(watching).is_some()
    });
    (h, dir)
}

#[test]
fn watch_starts_a_watch_of_the_request_shows_its_run_and_stop_pauses_it() {
    let demo = Demo::start();
    // The server never answers: slot 1's run is in flight while the watch is looked at.
    let (mut h, dir) = watching(&demo, "/hang", ("1s", "1h"), "Watching: slot 1 of 3600");
    assert!(
        h.query_by_label("Watch").is_none(),
        "the toggle shows the watch"
    );
    // Stop comes first: the status text after it changes length without moving it.
    let stop = h.get_by_label("Stop").rect();
    let status = h.get_by_label_contains("Watching: slot").rect();
    assert!(stop.right() <= status.left(), "{stop:?} then {status:?}");
    assert!(h.state().live_work().watch, "the quit guard would ask");
    // The slot starts before its run does: its run's tab comes with the run's first event.
    frames_until(&mut h, "the slot's run in the timeline", |h| {
        h.query_by_label_contains("GET /hang · watch slot 1")
            .is_some()
    });

    h.get_by_label("Stop").click();
    frames_until(&mut h, "the watch's end", |h| {
        h.query_by_label_contains("paused: carry it on with")
            .is_some()
    });
    assert!(h.query_by_label("Watch").is_some(), "the toggle is back");
    assert!(!h.state().live_work().watch);

    let store = HistoryStore::open_in(dir.path()).unwrap();
    let watch = store.watches(10).unwrap().remove(0);
    assert_eq!(watch.state, WatchState::Paused);
    assert_eq!(
        watch.runs, 1,
        "the cancelled run is recorded under the watch"
    );
    assert!(watch.url.ends_with("/hang"));

    // The Watches tab was read again when the watch ended: it lists it.
    h.get_by_label("Watches").click();
    ui_support::settle_until(&mut h, "the Watches tab", |s| s.watches.is_idle());
    assert!(h.query_by_label(&watch.id[..13]).is_some(), "listed");
}

#[test]
fn a_bad_schedule_shows_why_beside_the_fields_and_starts_nothing() {
    let (state, probe) = ui_support::workbench();
    let mut h = harness_sized(state, [1280.0, 900.0]);
    h.run();
    for (every, problem) in [
        ("50ms", "must be at least 100ms"),
        ("abc", "expected a duration such as 200ms"),
    ] {
        type_into(&mut h, "every", every);
        assert!(
            h.query_by_label_contains(problem).is_some(),
            "{every}: {problem}"
        );
        h.get_by_label("Watch").click();
        h.run();
        let commands = probe.drain_commands();
        assert!(
            !commands.iter().any(|c| matches!(c, CoreCommand::Watch(_))),
            "{every}: {commands:?}"
        );
        assert!(h.query_by_label_contains("Watching").is_none());
    }
    // An empty interval says what to type.
    h.get_by_label("every").focus();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run();
    h.key_press(egui::Key::Backspace);
    h.run();
    assert!(
        h.query_by_label("every: type a duration such as 30s")
            .is_some()
    );
    type_into(&mut h, "every", "30s");
    type_into(&mut h, "for", "0s");
    assert!(h.query_by_label_contains("must be longer than 0").is_some());
    type_into(&mut h, "for", "8h");
    assert!(h.query_by_label_contains("must be").is_none());
    h.get_by_label("Watch").click();
    h.run();
    let commands = probe.drain_commands();
    assert!(
        commands.iter().any(|c| matches!(c, CoreCommand::Watch(_))),
        "a good schedule starts a watch: {commands:?}"
    );
}

#[test]
fn quitting_with_a_watch_running_asks_and_leaves_the_watch_paused() {
    let demo = Demo::start();
    let (mut h, dir) = watching(&demo, "/status/200", ("200ms", "8h"), "Watching: slot");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Q);
    h.run();
    assert!(h.state().quit.is_asking());
    assert!(h.query_by_label_contains("1 watch is running").is_some());
    assert!(h.query_by_label_contains("The watch is paused").is_some());

    // Closing the window stops the link to the core, as `on_exit` does.
    assert!(h.state_mut().stop_core(std::time::Duration::from_secs(5)));
    let store = HistoryStore::open_in(dir.path()).unwrap();
    let watch = store.watches(10).unwrap().remove(0);
    assert_eq!(watch.state, WatchState::Paused, "resumable with --resume");
}

#[test]
fn resume_in_the_watches_tab_carries_a_paused_watch_on_live_in_the_timeline() {
    let demo = Demo::start();
    // The server never answers: each slot's run is in flight until Stop.
    let (mut h, dir) = watching(&demo, "/hang", ("1s", "1h"), "Watching: slot 1 of 3600");
    h.get_by_label("Stop").click();
    frames_until(&mut h, "the pause", |h| {
        h.query_by_label_contains("paused: carry it on with")
            .is_some()
    });
    let id = HistoryStore::open_in(dir.path())
        .unwrap()
        .watches(10)
        .unwrap()[0]
        .id
        .clone();

    h.get_by_label("Watches").click();
    ui_support::settle_until(&mut h, "the Watches tab", |s| s.watches.is_idle());
    h.get_by_label(&id[..13]).click();
    ui_support::settle_until(&mut h, "the watch", |s| s.watches.is_idle());
    assert!(h.query_by_label("This watch is paused.").is_some());
    let runs_before = h.state().runs.len();
    h.get_by_label("Resume").click();
    frames_until(&mut h, "the resumed watch's next run", |h| {
        h.state().runs.len() > runs_before && h.query_by_label_contains("Watching: slot").is_some()
    });
    assert!(h.state().live_work().watch, "the quit guard would ask");
    assert!(
        (2..100).any(|k| h
            .query_by_label_contains(&format!("GET /hang · watch slot {k}"))
            .is_some()),
        "its next slot's run is a run of the timeline"
    );
    // The toggle shows it as a watch started here: Stop pauses it again.
    h.get_by_label("Stop").click();
    frames_until(&mut h, "the second pause", |h| {
        h.query_by_label_contains("paused: carry it on with")
            .is_some()
            && !h.state().live_work().watch
    });
    let store = HistoryStore::open_in(dir.path()).unwrap();
    let watch = store.watch(&id).unwrap();
    assert_eq!(watch.state, WatchState::Paused);
    assert_eq!(
        watch.runs, 2,
        "one run before the pause, one after the resume"
    );
}
