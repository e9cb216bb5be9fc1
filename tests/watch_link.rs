//! Watches driven through the link's command path (`CoreCommand::Watch`), as the window and
//! the CLI drive them, against the demo server on 127.0.0.1: every slot a run recorded under
//! one watch, each run's events passed on as a run of the face; Stop cancels the run in flight
//! (recorded) and leaves the watch paused.
//!
//! The slots are due on the wall clock (a watch notices a machine that slept), which tokio's
//! paused clock does not move, and the runs go to a real server: the intervals are real, and
//! short (100 ms). The waits on the clock itself are tested with the paused clock in
//! `watch_service`'s unit tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod core_support;
mod demo_support;

use demo_support::Demo;
use retryscope::model::{RequestSpec, RunEvent};
use retryscope::service::watch_service::{new_watch_id, read_watch};
use retryscope::service::{
    CoreCommand, CoreEvent, CoreLink, WatchCommand, WatchEvent, WatchPlan, WatchUpdate,
};
use retryscope::store::{HistoryStore, WatchState};
use std::time::{Duration, Instant};

fn plan(url: &str, count: u64) -> WatchPlan {
    WatchPlan {
        id: new_watch_id(),
        request: RequestSpec::get(url),
        profile: retryscope::profile::builtin("servicenow-exponential").unwrap(),
        secrets: Vec::new(),
        every_ms: 100,
        jitter: 0.0,
        count: Some(count),
        for_ms: None,
        body_cap: 1024,
    }
}

/// Every event the link passes on until `done` says so (at most 20 s).
fn events_until(link: &mut CoreLink, done: impl Fn(&CoreEvent) -> bool) -> Vec<CoreEvent> {
    let began = Instant::now();
    let mut seen = Vec::new();
    while began.elapsed() < Duration::from_secs(20) {
        match link.try_recv() {
            Some(event) => {
                let end = done(&event);
                seen.push(event);
                if end {
                    return seen;
                }
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    panic!("the watch did not end in 20 s; seen {seen:#?}");
}

fn watch_events(events: &[CoreEvent]) -> Vec<&WatchEvent> {
    events
        .iter()
        .filter_map(|e| match e {
            CoreEvent::Watch(WatchUpdate { event, .. }) => Some(event),
            _ => None,
        })
        .collect()
}

fn ended(event: &CoreEvent) -> bool {
    matches!(
        event,
        CoreEvent::Watch(WatchUpdate {
            event: WatchEvent::Ended(_) | WatchEvent::Failed(_),
            ..
        })
    )
}

#[test]
fn a_three_slot_watch_records_three_runs_under_one_id_each_shown_as_a_run() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let mut link = CoreLink::start(
        core_support::shared_core(),
        core_support::history_setup(dir.path()),
    );
    // A run the face starts itself takes an id from the same counter as the watch's runs.
    let own = link.next_run_id();
    let plan = plan(&demo.url("/status/200"), 3);
    let id = plan.id.clone();
    assert!(link.send(CoreCommand::Watch(WatchCommand::Start {
        plan: Box::new(plan),
        live: true,
    })));
    let events = events_until(&mut link, ended);

    let watch = watch_events(&events);
    assert!(matches!(watch[0], WatchEvent::Started(r) if r.id == id));
    assert_eq!(
        watch.last(),
        Some(&&WatchEvent::Ended(WatchState::Finished))
    );
    let started: Vec<u64> = watch
        .iter()
        .filter_map(|e| match e {
            WatchEvent::RunStarted { run_id, .. } => Some(*run_id),
            _ => None,
        })
        .collect();
    assert_eq!(started.len(), 3, "{watch:#?}");
    assert!(!started.contains(&own), "{started:?}");
    let finished: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            CoreEvent::Run(RunEvent::RunFinished { run_id, .. }) => Some(*run_id),
            _ => None,
        })
        .collect();
    assert_eq!(
        finished, started,
        "each run's events come as a run of the face"
    );
    let ran = watch
        .iter()
        .filter(|e| matches!(e, WatchEvent::Ran { .. }))
        .count();
    assert_eq!(ran, 3);

    let store = HistoryStore::open_in(dir.path()).unwrap();
    let (record, slots, runs) = read_watch(&store, &id).unwrap();
    assert_eq!(record.state, WatchState::Finished);
    assert_eq!(runs.len(), 3, "three runs recorded under watch {id}");
    assert!(runs.iter().all(retryscope::report::ObservedRun::succeeded));
    assert_eq!(slots.len(), 3);
}

#[test]
fn stop_cancels_the_run_in_flight_records_it_and_leaves_the_watch_paused() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let mut link = CoreLink::start(
        core_support::shared_core(),
        core_support::history_setup(dir.path()),
    );
    // The server never answers: the first slot's run is in flight when Stop comes.
    let plan = plan(&demo.url("/hang"), 50);
    let id = plan.id.clone();
    link.send(CoreCommand::Watch(WatchCommand::Start {
        plan: Box::new(plan),
        live: true,
    }));
    events_until(&mut link, |e| {
        matches!(e, CoreEvent::Run(RunEvent::AttemptStarted { .. }))
    });
    link.send(CoreCommand::Watch(WatchCommand::Stop(id.clone())));
    let events = events_until(&mut link, ended);
    assert_eq!(
        watch_events(&events).last(),
        Some(&&WatchEvent::Ended(WatchState::Paused))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, CoreEvent::Run(RunEvent::RunFinished { .. }))),
        "the run in flight ends (cancelled)"
    );

    let store = HistoryStore::open_in(dir.path()).unwrap();
    let (record, _slots, runs) = read_watch(&store, &id).unwrap();
    assert_eq!(record.state, WatchState::Paused);
    assert!(record.state.resumable());
    assert_eq!(runs.len(), 1, "the cancelled run is recorded");
    assert_eq!(record.next_slot, 1);
}

#[test]
fn a_link_without_a_history_refuses_a_watch_and_says_why() {
    let mut setup = core_support::history_setup(std::path::Path::new("/"));
    setup.data_dir = None;
    let mut link = CoreLink::start(core_support::shared_core(), setup);
    let plan = plan("http://127.0.0.1:9/", 3);
    link.send(CoreCommand::Watch(WatchCommand::Start {
        plan: Box::new(plan),
        live: true,
    }));
    let events = events_until(&mut link, ended);
    assert!(
        matches!(watch_events(&events)[..], [WatchEvent::Failed(p)] if p.contains("cannot watch")),
        "{events:#?}"
    );
}

#[test]
fn the_faces_cancel_reaches_a_watched_run_and_the_watch_goes_on() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let mut link = CoreLink::start(
        core_support::shared_core(),
        core_support::history_setup(dir.path()),
    );
    let plan = plan(&demo.url("/hang"), 1);
    let id = plan.id.clone();
    link.send(CoreCommand::Watch(WatchCommand::Start {
        plan: Box::new(plan),
        live: true,
    }));
    let events = events_until(&mut link, |e| {
        matches!(e, CoreEvent::Run(RunEvent::AttemptStarted { .. }))
    });
    let run_id = watch_events(&events)
        .iter()
        .find_map(|e| match e {
            WatchEvent::RunStarted { run_id, .. } => Some(*run_id),
            _ => None,
        })
        .unwrap();
    // The timeline's Cancel of that run, as for a run of its own.
    link.send(CoreCommand::Cancel(run_id));
    let events = events_until(&mut link, ended);
    assert_eq!(
        watch_events(&events).last(),
        Some(&&WatchEvent::Ended(WatchState::Finished)),
        "the watch ran its one slot to its end"
    );
    let store = HistoryStore::open_in(dir.path()).unwrap();
    let (_record, _slots, runs) = read_watch(&store, &id).unwrap();
    assert_eq!(runs.len(), 1);
    assert!(!runs[0].succeeded());
}
