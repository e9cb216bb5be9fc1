//! The one core under both faces: every run a link to the core starts is recorded in the
//! history (attempts included, secrets masked), a history that cannot be opened leaves runs
//! going unrecorded with a reason, and the window's layer never touches SQLite itself.

#![allow(clippy::unwrap_used)]

mod core_support;
mod engine_support;

use engine_support::fixed;
use retryscope::demo::DemoServer;
use retryscope::model::{KeyValue, OutcomeKind, RequestSpec, RunEvent};
use retryscope::service::{CoreCommand, CoreEvent, CoreLink};
use retryscope::store::{HistoryStore, RunFilter};
use std::time::{Duration, Instant};

/// A link on the shared core that records its runs in `data_dir`'s history.
fn recording_link(data_dir: &std::path::Path) -> CoreLink {
    let mut setup = core_support::history_setup(data_dir);
    (setup.record_runs, setup.body_cap) = (true, 1024);
    CoreLink::start(core_support::shared_core(), setup)
}

/// Drains `engine` until run `id` finishes (10 s at most); returns its outcome.
fn wait_finished(engine: &mut CoreLink, id: u64) -> OutcomeKind {
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs(10) {
        match engine.try_recv() {
            Some(CoreEvent::Run(RunEvent::RunFinished {
                run_id, outcome, ..
            })) if run_id == id => return outcome.kind,
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    panic!("run {id} did not finish within 10 s");
}

#[test]
fn a_run_started_through_the_service_is_in_the_history_with_its_attempts() {
    let demo_rt = tokio::runtime::Runtime::new().unwrap();
    let server = demo_rt.block_on(DemoServer::start(0)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut engine = recording_link(dir.path());
    assert!(engine.offer().recording);
    assert_eq!(engine.offer().history_problem, None);
    let mut spec = RequestSpec::get(server.url("/status/503?times=1"));
    spec.headers.push(KeyValue::new("X-Note", "VARSECRET42"));
    let id = engine.next_run_id();
    assert!(engine.send(CoreCommand::Start {
        run_id: id,
        spec,
        profile: fixed(10, 3),
        seed: Some(5),
        // A secret variable's value that ended up in a plain header.
        secrets: vec!["VARSECRET42".into()],
    }));
    // The UI sees the event as sent (it masks what it shows itself).
    assert_eq!(wait_finished(&mut engine, id), OutcomeKind::Succeeded);

    // Committed before RunFinished reached the UI: a reader sees the whole run now.
    let store = HistoryStore::open_in(dir.path()).unwrap();
    let runs = store.list(&RunFilter::default()).unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].outcome, Some(OutcomeKind::Succeeded));
    assert_eq!(runs[0].seed, 5);
    let stored = store.run(&runs[0].id).unwrap().unwrap();
    let statuses: Vec<_> = stored
        .fold
        .attempts
        .iter()
        .filter_map(retryscope::model::AttemptRow::short_label)
        .collect();
    assert_eq!(statuses, ["503", "200"]);
    let wait = stored.fold.attempts[0].wait.as_ref().unwrap();
    assert_eq!(wait.planned_ms, 10);
    assert!(wait.actual_ms.is_some() && !wait.interrupted);
    let request = serde_json::to_string(&stored.run.request).unwrap();
    assert!(!request.contains("VARSECRET42"), "{request}");
    drop(engine);
}

#[test]
fn a_history_that_cannot_open_leaves_runs_unrecorded_with_a_reason() {
    let demo_rt = tokio::runtime::Runtime::new().unwrap();
    let server = demo_rt.block_on(DemoServer::start(0)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A file where the data folder should be.
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, "x").unwrap();
    let mut engine = recording_link(&blocker);
    assert!(!engine.offer().recording);
    let problem = engine.offer().history_problem.clone().unwrap();
    assert!(problem.starts_with("runs are not recorded"), "{problem}");
    let id = engine.next_run_id();
    assert!(engine.send(CoreCommand::Start {
        run_id: id,
        spec: RequestSpec::get(server.url("/status/200")),
        profile: fixed(10, 0),
        seed: None,
        secrets: Vec::new(),
    }));
    assert_eq!(wait_finished(&mut engine, id), OutcomeKind::Succeeded);
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_ui_layer_never_imports_rusqlite_or_owns_a_runtime() {
    let mut files = Vec::new();
    rust_files(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ui"),
        &mut files,
    );
    assert!(files.len() > 10, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for banned in ["rusqlite", "tokio::runtime::Builder"] {
            assert!(
                !text.contains(banned),
                "{} mentions {banned}",
                file.display()
            );
        }
    }
}

/// A finished one-attempt run `n` of `GET http://127.0.0.1:9/n{n}` started `n` s after a base.
fn sample_run(n: i64) -> Vec<retryscope::store::HistoryWrite> {
    use retryscope::store::{FinishedRun, HistoryWrite, RunRecord};
    let base = chrono::DateTime::parse_from_rfc3339("2026-11-01T08:00:00+01:00").unwrap();
    let id = format!("{n:08x}-0000-7000-8000-000000000000");
    let url = format!("http://127.0.0.1:9/n{n}");
    vec![
        HistoryWrite::RunStarted(Box::new(RunRecord {
            id: id.clone(),
            started_at: base + chrono::Duration::seconds(n),
            ended_at: None,
            app_version: "test".into(),
            method: if n % 2 == 0 { "GET" } else { "POST" }.into(),
            url: url.clone(),
            request: RequestSpec::get(url),
            profile_name: "p".into(),
            profile: serde_json::Value::Null.into(),
            seed: 1,
            outcome: None,
            outcome_message: None,
            last_status: None,
            attempts: 0,
            elapsed_ms: None,
            batch_item_id: None,
            watch_id: None,
            attempt_started: None,
        })),
        HistoryWrite::RunFinished(FinishedRun {
            run_id: id,
            ended_at: base + chrono::Duration::seconds(n + 1),
            outcome: if n % 3 == 0 {
                OutcomeKind::GaveUp
            } else {
                OutcomeKind::Succeeded
            },
            message: "done".into(),
            last_status: Some(200),
            attempts: 1,
            elapsed_ms: n as f64,
        }),
    ]
}

#[test]
fn the_history_reader_pages_filters_and_answers_the_latest_page_only() {
    use retryscope::service::{HistoryReply, HistoryRequest, Retention};
    use retryscope::store::{RunQuery, RunSort};
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open_in(dir.path()).unwrap();
    let writes: Vec<_> = (0..60).flat_map(sample_run).collect();
    store.apply_batch(&writes).unwrap();
    assert_eq!(store.count_runs(&RunQuery::default()).unwrap(), 60);
    let posts = RunQuery {
        method: Some("post".into()),
        sort: RunSort::Elapsed,
        descending: false,
        ..RunQuery::default()
    };
    assert_eq!(store.count_runs(&posts).unwrap(), 30);
    let page = store.page_runs(&posts, 2, 3).unwrap();
    let urls: Vec<_> = page.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "http://127.0.0.1:9/n5",
            "http://127.0.0.1:9/n7",
            "http://127.0.0.1:9/n9"
        ]
    );
    assert!(store.file_size() > 0);
    drop(store);

    let mut service = CoreLink::start(
        core_support::shared_core(),
        core_support::history_setup(dir.path()),
    );
    let idle = service.sender();
    // Three pages sent at once: those the worker finds queued together are answered only for
    // the last of them; the last one sent is always answered.
    for text in ["n1", "n2", "n3"] {
        assert!(service.send(CoreCommand::History(HistoryRequest::Page {
            query: RunQuery {
                url_contains: text.into(),
                ..RunQuery::default()
            },
            offset: 0,
            limit: 50,
        })));
    }
    let began = Instant::now();
    while !idle.queries_idle() && began.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut pages = Vec::new();
    while let Some(reply) = service.try_recv() {
        if let CoreEvent::History(HistoryReply::Page { query, total, .. }) = reply {
            pages.push((query.url_contains, total));
        }
    }
    assert!(!pages.is_empty() && pages.len() <= 3, "{pages:?}");
    // `n3` matches n3 and n30–n39.
    assert_eq!(pages.last(), Some(&("n3".to_owned(), 11)));

    assert!(
        service.send(CoreCommand::History(HistoryRequest::Retain(Retention {
            keep_days: None,
            keep_runs: Some(10),
        })))
    );
    let began = Instant::now();
    while !idle.queries_idle() && began.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(matches!(
        service.try_recv(),
        Some(CoreEvent::History(HistoryReply::Retained(50)))
    ));
    let left = HistoryStore::open_in(dir.path())
        .unwrap()
        .list(&RunFilter::default())
        .unwrap();
    assert_eq!(left.len(), 10);
    assert_eq!(left[0].url, "http://127.0.0.1:9/n59", "the newest are kept");
}
