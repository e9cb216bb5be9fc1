//! The batch runner against the demo server: a mixed batch of 1,000 items ends with the right
//! state per item (each run recorded in the history and naming its item), assertions name the
//! one that failed, pause leaves the batch resumable, cancel ends it, and an item's secrets are
//! sent but never stored in the database.

#![allow(clippy::unwrap_used)]

mod engine_support;

use engine_support::fixed;
use retryscope::demo::DemoServer;
use retryscope::model::{
    BatchEvent, BatchItemState, BatchOptions, BatchRequest, KeyValue, RequestSpec, ResponseMatcher,
    RetryProfile, StatusSet,
};
use retryscope::service::{BatchControl, BatchRunner, batch_item_id, open_history_writer};
use retryscope::store::{
    BatchItemRecord, BatchQueue, HistoryStore, MemorySecretStore, RunFilter, SECRETS_LOST,
    SecretStore,
};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::mpsc;

fn item(url: String) -> BatchRequest {
    BatchRequest {
        name: None,
        request: RequestSpec::get(url),
        profile: None,
        source_line: None,
    }
}

fn all_items(queue: &BatchQueue, id: &str) -> Vec<BatchItemRecord> {
    queue.items(id, None, 0, 1_000_000).unwrap()
}

struct Setup {
    runtime: tokio::runtime::Runtime,
    server: DemoServer,
    dir: tempfile::TempDir,
    secrets: Arc<MemorySecretStore>,
}

fn setup() -> Setup {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(DemoServer::start(0)).unwrap();
    Setup {
        runtime,
        server,
        dir: tempfile::tempdir().unwrap(),
        secrets: Arc::new(MemorySecretStore::new()),
    }
}

impl Setup {
    /// A runner over a store actor of its own (closed when the runner is done).
    fn runner(&self) -> BatchRunner {
        let secrets: Arc<dyn SecretStore> = self.secrets.clone();
        BatchRunner::new(open_history_writer(self.dir.path()).unwrap(), secrets)
    }

    fn queue(&self) -> BatchQueue {
        let store: Arc<dyn SecretStore> = self.secrets.clone();
        BatchQueue::open_in(self.dir.path(), store).unwrap()
    }

    fn create(
        &self,
        profile: &RetryProfile,
        options: &BatchOptions,
        items: &[BatchRequest],
    ) -> String {
        self.queue()
            .create(Some("test"), profile, options, items)
            .unwrap()
    }

    /// Runs the batch to its end with history recording; returns the events seen.
    fn run(&self, id: &str, control: BatchControl) -> Vec<BatchEvent> {
        let writer = open_history_writer(self.dir.path()).unwrap();
        let secrets: Arc<dyn SecretStore> = self.secrets.clone();
        let runner = BatchRunner::new(Arc::clone(&writer), secrets).body_cap(4096);
        let (tx, mut rx) = mpsc::channel(100_000);
        self.runtime.block_on(runner.run(id, control, tx)).unwrap();
        Arc::try_unwrap(writer).unwrap().close().unwrap();
        let mut events = Vec::new();
        while let Ok(e) = rx.try_recv() {
            events.push(e);
        }
        events
    }
}

fn data_dir_runs(dir: &Path) -> Vec<retryscope::store::RunRecord> {
    HistoryStore::open_in(dir)
        .unwrap()
        .list(&RunFilter::default())
        .unwrap()
}

#[test]
fn a_mixed_batch_of_1000_items_ends_with_the_right_state_per_item() {
    let s = setup();
    let items: Vec<BatchRequest> = (0..1000)
        .map(|i| {
            item(match i % 4 {
                0 => s.server.url(&format!("/status/200?key=ok{i}")),
                1 => s.server.url(&format!("/sequence?codes=503,200&key=seq{i}")),
                2 => s.server.url(&format!("/status/404?key=nf{i}")),
                _ => s.server.url(&format!("/reset?n={i}")),
            })
        })
        .collect();
    let options = BatchOptions {
        concurrency: 8,
        ..BatchOptions::default()
    };
    let id = s.create(&fixed(1, 2), &options, &items);
    let events = s.run(&id, BatchControl::new());

    let queue = s.queue();
    let stored = all_items(&queue, &id);
    assert_eq!(stored.len(), 1000);
    for it in &stored {
        let what = format!("{it:?}");
        match it.position % 4 {
            0 => {
                assert_eq!(it.state, BatchItemState::Done, "{what}");
                assert_eq!((it.attempts, it.last_status), (1, Some(200)), "{what}");
            }
            1 => {
                assert_eq!(it.state, BatchItemState::Done, "{what}");
                assert_eq!((it.attempts, it.last_status), (2, Some(200)), "{what}");
                assert!(
                    it.reason
                        .as_deref()
                        .unwrap()
                        .starts_with("succeeded on attempt 2"),
                    "the run banner's words: {what}"
                );
            }
            2 => {
                assert_eq!(it.state, BatchItemState::Error, "{what}");
                assert_eq!((it.attempts, it.last_status), (1, Some(404)), "{what}");
            }
            _ => {
                assert_eq!(it.state, BatchItemState::Error, "{what}");
                assert_eq!(it.attempts, 3, "max retries 2: {what}");
                assert_eq!(it.error_kind.as_deref(), Some("reset"), "{what}");
                assert!(
                    it.reason
                        .as_deref()
                        .unwrap()
                        .starts_with("gave up after 3 attempts"),
                    "{what}"
                );
            }
        }
        assert!(it.started_at.is_some() && it.ended_at.is_some(), "{what}");
    }
    let counts = queue.counts(&id).unwrap();
    assert_eq!(
        (counts.done, counts.error, counts.pending, counts.running),
        (500, 500, 0, 0)
    );

    // Every item's run is in the history, naming its item; the item names its run.
    let runs = data_dir_runs(s.dir.path());
    assert_eq!(runs.len(), 1000);
    let by_id: HashMap<&str, &retryscope::store::RunRecord> =
        runs.iter().map(|r| (r.id.as_str(), r)).collect();
    for it in &stored {
        let run = by_id[it.run_id.as_deref().unwrap()];
        assert_eq!(
            run.batch_item_id.as_deref(),
            Some(batch_item_id(&id, it.position).as_str())
        );
        assert_eq!(run.attempts, it.attempts);
    }

    // The server saw exactly what the states say: 1 + 2 + 1 + 3 requests per four items.
    assert_eq!(s.server.log().len(), 250 * (1 + 2 + 1 + 3));

    // Events: started, one start and one finish per item, finished last.
    assert!(matches!(
        events.first(),
        Some(BatchEvent::BatchStarted { .. })
    ));
    assert!(matches!(
        events.last(),
        Some(BatchEvent::BatchFinished { stopped: false, .. })
    ));
    let finished = events
        .iter()
        .filter(|e| matches!(e, BatchEvent::ItemFinished { .. }))
        .count();
    assert_eq!(finished, 1000);
}

#[test]
fn a_failed_assertion_makes_the_item_an_error_naming_it() {
    let s = setup();
    let items = vec![
        item(s.server.url("/job?ready_after=0&key=a")),
        item(s.server.url("/job?ready_after=5&key=b")),
        item(s.server.url("/status/201?key=c")),
        item(s.server.url("/status/404?key=d")),
    ];
    let options = BatchOptions {
        assertions: vec![
            ResponseMatcher {
                status: Some(StatusSet::parse_list("200").unwrap()),
                ..ResponseMatcher::default()
            },
            ResponseMatcher {
                json_pointer: Some("/state".into()),
                equals: Some(serde_json::json!("done")),
                ..ResponseMatcher::default()
            },
        ],
        ..BatchOptions::default()
    };
    let id = s.create(&fixed(1, 0), &options, &items);
    s.run(&id, BatchControl::new());
    let stored = all_items(&s.queue(), &id);
    assert_eq!(stored[0].state, BatchItemState::Done, "{:?}", stored[0]);
    assert_eq!(stored[1].state, BatchItemState::Error);
    let reason = stored[1].reason.clone().unwrap();
    assert!(
        reason.starts_with("assertion --expect-json /state=\"done\" failed: "),
        "{reason}"
    );
    assert!(reason.contains("pending"), "{reason}");
    assert_eq!(stored[2].state, BatchItemState::Error);
    assert!(
        stored[2]
            .reason
            .as_deref()
            .unwrap()
            .starts_with("assertion --expect-status 200 failed: status 201, expected one of 200"),
        "{:?}",
        stored[2]
    );
    // A 404 the profile does not retry ends the run "not retryable"; the assertion it fails is
    // said after the run's words.
    assert_eq!(stored[3].state, BatchItemState::Error);
    assert_eq!(
        stored[3].reason.as_deref(),
        Some(
            "404 is not retryable; assertion --expect-status 200 failed: status 404, expected one of 200"
        )
    );
}

#[test]
fn pause_leaves_the_batch_resumable_and_resume_sends_no_done_item_again() {
    let s = setup();
    let items: Vec<BatchRequest> = (0..12)
        .map(|i| item(s.server.url(&format!("/slow?ms=300&n={i}"))))
        .collect();
    let options = BatchOptions {
        concurrency: 2,
        ..BatchOptions::default()
    };
    let id = s.create(&fixed(1, 0), &options, &items);
    let control = BatchControl::new();
    // Pause once two items have finished.
    let runner = s.runner().body_cap(4096);
    let (tx, mut rx) = mpsc::channel(1000);
    let pauser = control.clone();
    let summary = s.runtime.block_on(async move {
        let task = tokio::spawn(async move { runner.run(&id.clone(), control, tx).await });
        let mut done = 0;
        while let Some(e) = rx.recv().await {
            if matches!(
                e,
                BatchEvent::ItemFinished {
                    state: BatchItemState::Done,
                    ..
                }
            ) {
                done += 1;
                if done == 2 {
                    pauser.pause();
                }
            }
        }
        task.await.unwrap().unwrap()
    });
    assert!(summary.stopped);
    assert_eq!(summary.counts.running, 0, "nothing is left running");
    assert!(
        summary.counts.done >= 2 && summary.counts.pending >= 8,
        "{summary:?}"
    );
    let id = s.queue().list(1).unwrap()[0].id.clone();
    let done_before: Vec<u64> = all_items(&s.queue(), &id)
        .iter()
        .filter(|i| i.state == BatchItemState::Done)
        .map(|i| i.position)
        .collect();

    s.run(&id, BatchControl::new());
    let stored = all_items(&s.queue(), &id);
    assert!(
        stored.iter().all(|i| i.state == BatchItemState::Done),
        "{stored:?}"
    );
    let log = s.server.log();
    for p in done_before {
        let hits = log
            .iter()
            .filter(|e| e.path.ends_with(&format!("&n={p}")))
            .count();
        assert_eq!(
            hits, 1,
            "item {p} was done before the pause and never sent again"
        );
    }
}

#[test]
fn cancel_ends_every_unfinished_item_cancelled() {
    let s = setup();
    let items: Vec<BatchRequest> = (0..6)
        .map(|i| item(s.server.url(&format!("/slow?ms=2000&n={i}"))))
        .collect();
    let id = s.create(&fixed(1, 0), &BatchOptions::default(), &items);
    let control = BatchControl::new();
    let canceller = control.clone();
    let runner = s.runner();
    let (tx, mut rx) = mpsc::channel(1000);
    let summary = s.runtime.block_on(async move {
        let task = tokio::spawn(async move { runner.run(&id.clone(), control, tx).await });
        while let Some(e) = rx.recv().await {
            if matches!(e, BatchEvent::ItemStarted { .. }) {
                canceller.cancel();
            }
        }
        task.await.unwrap().unwrap()
    });
    assert!(!summary.stopped);
    assert_eq!(summary.counts.cancelled, 6, "{summary:?}");
}

#[test]
fn secrets_are_sent_but_stored_masked_and_lost_ones_are_reported() {
    let s = setup();
    let mut request = RequestSpec::get(s.server.url("/echo"));
    request
        .headers
        .push(KeyValue::new("Authorization", "Bearer sk-live-1234567890"));
    let items = vec![BatchRequest {
        name: Some("with secret".into()),
        request,
        profile: None,
        source_line: Some(1),
    }];
    let id = s.create(&fixed(1, 0), &BatchOptions::default(), &items);
    let stored = all_items(&s.queue(), &id);
    assert!(stored[0].has_secrets);
    assert_eq!(stored[0].request.headers[0].value, "***");
    let db = std::fs::read(s.dir.path().join("history.sqlite3")).unwrap();
    let wal = std::fs::read(s.dir.path().join("history.sqlite3-wal")).unwrap_or_default();
    for bytes in [db, wal] {
        assert!(
            !bytes.windows(10).any(|w| w == b"1234567890"),
            "the secret never reaches the database file"
        );
    }
    s.run(&id, BatchControl::new());
    let log = s.server.log();
    assert_eq!(
        log[0].header("authorization"),
        Some("Bearer sk-live-1234567890")
    );
    assert_eq!(all_items(&s.queue(), &id)[0].state, BatchItemState::Done);

    // A second batch whose kept secrets are gone (another process, no keyring) is not sent.
    let id2 = s.create(&fixed(1, 0), &BatchOptions::default(), &items);
    let forgetful: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    let runner = BatchRunner::new(open_history_writer(s.dir.path()).unwrap(), forgetful);
    let (tx, _rx) = mpsc::channel(100);
    s.runtime
        .block_on(runner.run(&id2, BatchControl::new(), tx))
        .unwrap();
    let it = &all_items(&s.queue(), &id2)[0];
    assert_eq!(it.state, BatchItemState::Error);
    assert_eq!(it.reason.as_deref(), Some(SECRETS_LOST));
    assert_eq!(s.server.log().len(), 1, "nothing more was sent");
}

#[test]
fn an_item_profile_name_picks_a_builtin_and_an_unknown_one_is_an_error() {
    let s = setup();
    let mut known = item(s.server.url("/status/200?key=p1"));
    known.profile = Some("vbscript-module".into());
    let mut unknown = item(s.server.url("/status/200?key=p2"));
    unknown.profile = Some("no-such-profile".into());
    let id = s.create(&fixed(1, 0), &BatchOptions::default(), &[known, unknown]);
    s.run(&id, BatchControl::new());
    let stored = all_items(&s.queue(), &id);
    assert_eq!(stored[0].state, BatchItemState::Done);
    assert_eq!(stored[1].state, BatchItemState::Error);
    assert_eq!(
        stored[1].reason.as_deref(),
        Some("not sent: unknown profile `no-such-profile`")
    );
    let runs = data_dir_runs(s.dir.path());
    assert_eq!(runs.len(), 1);
    assert_eq!(
        runs[0].profile_name,
        retryscope::profile::builtin("vbscript-module")
            .unwrap()
            .name
    );
}

/// `{{uuid}}` in an item becomes a fresh UUID on the wire, as on every Send; any other
/// variable (a batch has no environment) ends the item in error, not sent, naming its place.
#[test]
fn variables_are_resolved_per_item_and_unknown_ones_are_refused() {
    let s = setup();
    let uuid_item = item(s.server.url("/status/200?case={{uuid}}"));
    let mut unknown = item(s.server.url("/status/200?case=v2"));
    unknown
        .request
        .headers
        .push(retryscope::model::KeyValue::new("X-T", "{{token}}"));
    let id = s.create(
        &fixed(1, 0),
        &BatchOptions::default(),
        &[uuid_item, unknown],
    );
    s.run(&id, BatchControl::new());
    let stored = all_items(&s.queue(), &id);
    assert_eq!(stored[0].state, BatchItemState::Done);
    assert_eq!(stored[1].state, BatchItemState::Error);
    let reason = stored[1].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("{{token}}") && reason.contains("X-T"),
        "{reason}"
    );
    let sent: Vec<String> = s.server.log().into_iter().map(|e| e.path).collect();
    assert_eq!(sent.len(), 1, "{sent:?}");
    let case = sent[0].strip_prefix("/status/200?case=").unwrap();
    assert_eq!(case.len(), 36, "a UUID, not the placeholder: {case}");
}

/// `--rate-per-host` paces each host before its item takes a slot: with one slot and one start
/// per 1000 s per host, host A's second item waits for its turn without holding the slot, so
/// hosts B and C go ahead of it (before, it held the only slot for 1000 s and they waited).
#[test]
fn a_host_waiting_for_its_rate_turn_holds_no_slot() {
    let s = setup();
    let b = s.runtime.block_on(DemoServer::start(0)).unwrap();
    let c = s.runtime.block_on(DemoServer::start(0)).unwrap();
    let items = vec![
        item(s.server.url("/status/200?key=a1")),
        item(s.server.url("/status/200?key=a2")),
        item(b.url("/status/200?key=b1")),
        item(c.url("/status/200?key=c1")),
    ];
    let options = BatchOptions {
        concurrency: 1,
        rate_per_host: Some(0.001),
        ..BatchOptions::default()
    };
    let id = s.create(&fixed(1, 0), &options, &items);
    let control = BatchControl::new();
    let pauser = control.clone();
    let runner = s.runner();
    let (tx, mut rx) = mpsc::channel(1000);
    let summary = s.runtime.block_on(async move {
        let task = tokio::spawn(async move { runner.run(&id.clone(), control, tx).await });
        let mut finished = Vec::new();
        while let Some(e) = rx.recv().await {
            if let BatchEvent::ItemFinished { position, .. } = e {
                finished.push(position);
                if finished.len() == 3 {
                    pauser.pause();
                }
            }
        }
        assert_eq!(finished, [0, 2, 3], "b1 and c1 went ahead of a2");
        task.await.unwrap().unwrap()
    });
    assert!(summary.stopped);
    assert_eq!((summary.counts.done, summary.counts.pending), (3, 1));
    assert_eq!(s.server.log().len(), 1, "a2 was never sent");
    assert_eq!((b.log().len(), c.log().len()), (1, 1));
}

/// Items start as soon as a slot frees and their state changes are committed in groups: a
/// reader opened when a change is reported must already find it stored (no item reported
/// started or done before its commit), and every item is reported started before it ends.
#[test]
fn every_reported_state_change_is_already_committed() {
    let s = setup();
    let items: Vec<BatchRequest> = (0..60)
        .map(|i| item(s.server.url(&format!("/status/200?n={i}"))))
        .collect();
    let options = BatchOptions {
        concurrency: 8,
        ..BatchOptions::default()
    };
    let id = s.create(&fixed(1, 0), &options, &items);
    let runner = s.runner();
    let (tx, mut rx) = mpsc::channel(10);
    let reader = s.queue();
    let batch = id.clone();
    let checked = s.runtime.block_on(async move {
        let task = tokio::spawn(async move { runner.run(&batch, BatchControl::new(), tx).await });
        let mut started = std::collections::HashSet::new();
        let mut checked = 0;
        while let Some(e) = rx.recv().await {
            let (position, reported) = match e {
                BatchEvent::ItemStarted { position, .. } => {
                    started.insert(position);
                    (position, BatchItemState::Running)
                }
                BatchEvent::ItemFinished {
                    position, state, ..
                } => {
                    assert!(
                        started.contains(&position),
                        "item {position} ended unstarted"
                    );
                    (position, state)
                }
                _ => continue,
            };
            let stored = all_items(&reader, &id)[usize::try_from(position).unwrap()].state;
            assert!(
                stored == reported || (reported == BatchItemState::Running && stored.is_final()),
                "item {position} reported {reported:?}, stored {stored:?}"
            );
            checked += 1;
        }
        task.await.unwrap().unwrap();
        checked
    });
    assert_eq!(checked, 120, "60 starts and 60 ends reported");
}
