//! The batch queue in the history database: items queued in order, state changes committed,
//! running items queued again when a batch is claimed, secrets kept out of the file.

#![allow(clippy::unwrap_used)]

use retryscope::model::{
    BatchItemState, BatchOptions, BatchRequest, KeyValue, RequestSpec, RetryProfile,
};
use retryscope::store::{
    BatchError, BatchQueue, ItemEnd, MemorySecretStore, SECRETS_LOST, SecretStore, batch_secret_key,
};
use std::sync::Arc;

fn profile() -> RetryProfile {
    retryscope::profile::builtin("vbscript-module").unwrap()
}

fn requests(n: usize) -> Vec<BatchRequest> {
    (0..n)
        .map(|i| BatchRequest {
            name: Some(format!("item {i}")),
            request: RequestSpec::get(format!("http://127.0.0.1:9/x?i={i}")),
            profile: None,
            source_line: Some(i as u64 + 1),
        })
        .collect()
}

#[test]
fn items_are_queued_in_order_and_state_changes_persist_across_opens() {
    let dir = tempfile::tempdir().unwrap();
    let secrets: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    let mut q = BatchQueue::open_in(dir.path(), Arc::clone(&secrets)).unwrap();
    let options = BatchOptions {
        concurrency: 7,
        rate_per_host: Some(2.5),
        assertions: vec![],
        idempotency_keys: true,
    };
    let id = q
        .create(Some("list.jsonl"), &profile(), &options, &requests(5))
        .unwrap();
    let pending = q.next_pending(&id, None, 3).unwrap();
    assert_eq!(
        pending.iter().map(|i| i.position).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    let rest = q.next_pending(&id, Some(2), 10).unwrap();
    assert_eq!(rest.iter().map(|i| i.position).collect::<Vec<_>>(), [3, 4]);

    q.mark_running(&id, 0, Some("run-a")).unwrap();
    assert!(matches!(
        q.mark_running(&id, 0, Some("run-b")),
        Err(BatchError::WrongState { .. })
    ));
    q.finish(
        &id,
        0,
        &ItemEnd {
            state: BatchItemState::Done,
            attempts: 2,
            last_status: Some(200),
            error_kind: None,
            reason: "succeeded on attempt 2".into(),
        },
    )
    .unwrap();
    q.mark_running(&id, 1, Some("run-c")).unwrap();
    drop(q);

    // A fresh connection (another process) sees every committed change; claiming the batch
    // puts the running item back to pending.
    let mut q = BatchQueue::open_in(dir.path(), secrets).unwrap();
    let b = q.batch(&id[..12]).unwrap();
    assert_eq!(b.options, options);
    assert_eq!(b.source.as_deref(), Some("list.jsonl"));
    assert_eq!(
        (b.counts.done, b.counts.running, b.counts.pending),
        (1, 1, 3)
    );
    assert_eq!(q.claim(&id, None).unwrap(), 1);
    let items = q.items(&id, None, 0, 100).unwrap();
    assert_eq!(items[0].state, BatchItemState::Done);
    assert_eq!(items[0].attempts, 2);
    assert_eq!(items[0].run_id.as_deref(), Some("run-a"));
    assert_eq!(items[1].state, BatchItemState::Pending);
    assert_eq!(
        items[1].run_id.as_deref(),
        Some("run-c"),
        "the interrupted run is kept"
    );
    assert_eq!(items[4].source_line, Some(5));
    assert_eq!(
        q.items(&id, Some(BatchItemState::Done), 0, 100)
            .unwrap()
            .len(),
        1
    );
    assert_eq!(q.cancel_pending(&id).unwrap(), 4);
    assert_eq!(q.requeue_failed(&id).unwrap(), 4);
    assert_eq!(q.counts(&id).unwrap().pending, 4);
    assert!(matches!(
        q.batch("ffffffffffff"),
        Err(BatchError::NotFound(_))
    ));
    // A short prefix is refused for its length, as `history show` does, not "no batch".
    let short = q.batch(&id[..4]).unwrap_err();
    assert!(matches!(short, BatchError::ShortId(_)), "{short:?}");
    assert!(
        short.to_string().contains("at least 8 characters"),
        "{short}"
    );
    q.release(&id).unwrap();
}

#[test]
fn secret_requests_live_in_the_secret_store_not_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let memory = Arc::new(MemorySecretStore::new());
    let secrets: Arc<dyn SecretStore> = memory.clone();
    let mut q = BatchQueue::open_in(dir.path(), secrets).unwrap();
    let mut items = requests(2);
    items[1]
        .request
        .headers
        .push(KeyValue::new("X-Api-Key", "k-abcdefghij"));
    items[1].request.url = "http://user:pa55word99@127.0.0.1:9/x?token=t0k3n-zzz".into();
    let id = q
        .create(None, &profile(), &BatchOptions::default(), &items)
        .unwrap();
    assert_eq!(memory.keys(), vec![batch_secret_key(&id)]);
    let stored = q.items(&id, None, 0, 10).unwrap();
    assert!(!stored[0].has_secrets);
    assert!(stored[1].has_secrets);
    assert!(!stored[1].url.contains("pa55word99") && !stored[1].url.contains("t0k3n-zzz"));
    for path in ["history.sqlite3", "history.sqlite3-wal"] {
        let bytes = std::fs::read(dir.path().join(path)).unwrap_or_default();
        for secret in [&b"k-abcdefghij"[..], b"pa55word99", b"t0k3n-zzz"] {
            assert!(!bytes.windows(secret.len()).any(|w| w == secret), "{path}");
        }
    }
    // The sendable request comes back whole.
    let pending = q.next_pending(&id, None, 10).unwrap();
    assert_eq!(pending[1].request.as_ref().unwrap(), &items[1].request);
    assert_eq!(pending[0].request.as_ref().unwrap(), &items[0].request);

    // Another process without that store's contents cannot send it, and says why.
    let forgetful: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    let mut other = BatchQueue::open_in(dir.path(), forgetful).unwrap();
    let pending = other.next_pending(&id, None, 10).unwrap();
    assert_eq!(pending[1].request, Err(SECRETS_LOST.to_owned()));
    assert!(pending[0].request.is_ok());
}

/// A group commit is all or none: an item that is not pending rolls the whole group back; a
/// good group makes every change at once.
#[test]
fn a_group_commit_makes_every_change_or_none() {
    use retryscope::store::ItemChange;
    let dir = tempfile::tempdir().unwrap();
    let secrets: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    let mut q = BatchQueue::open_in(dir.path(), secrets).unwrap();
    let id = q
        .create(None, &profile(), &BatchOptions::default(), &requests(4))
        .unwrap();
    q.mark_running(&id, 0, Some("run-0")).unwrap();
    let done = ItemEnd {
        state: BatchItemState::Done,
        attempts: 1,
        last_status: Some(200),
        error_kind: None,
        reason: "succeeded on attempt 1".into(),
    };
    let bad = [
        ItemChange::Ended {
            position: 0,
            end: &done,
        },
        ItemChange::Running {
            position: 1,
            run_id: Some("run-1"),
        },
        ItemChange::Running {
            position: 1,
            run_id: Some("run-1b"),
        },
    ];
    assert!(matches!(
        q.commit_changes(&id, &bad),
        Err(BatchError::WrongState { position: 1, .. })
    ));
    let c = q.counts(&id).unwrap();
    assert_eq!((c.running, c.done, c.pending), (1, 0, 3), "nothing changed");

    let good = [
        ItemChange::Ended {
            position: 0,
            end: &done,
        },
        ItemChange::Running {
            position: 1,
            run_id: Some("run-1"),
        },
        ItemChange::Running {
            position: 2,
            run_id: None,
        },
    ];
    q.commit_changes(&id, &good).unwrap();
    let c = BatchQueue::open_in(dir.path(), Arc::new(MemorySecretStore::new()))
        .unwrap()
        .counts(&id)
        .unwrap();
    assert_eq!((c.running, c.done, c.pending), (2, 1, 1));
}

#[test]
fn run_options_can_be_changed_for_a_resume_and_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let secrets: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    let mut q = BatchQueue::open_in(dir.path(), secrets).unwrap();
    let id = q
        .create(None, &profile(), &BatchOptions::default(), &requests(1))
        .unwrap();
    let o = q.set_run_options(&id, Some(2), None).unwrap();
    assert_eq!((o.concurrency, o.rate_per_host), (2, None));
    let o = q.set_run_options(&id, None, Some(5.0)).unwrap();
    assert_eq!((o.concurrency, o.rate_per_host), (2, Some(5.0)));
    assert_eq!(q.batch(&id).unwrap().options, o, "stored");
    assert!(matches!(
        q.set_run_options(&id, Some(0), None),
        Err(BatchError::Options(_))
    ));
    assert_eq!(q.batch(&id).unwrap().options.concurrency, 2, "kept");
}

/// Two `batch --resume ID` at once: the one that does not hold the batch's lock says who
/// works it (`BatchError::Busy`, naming the holder's process), not SQLite's "database is
/// locked". The holder here is another queue of this process (another open of the lock file,
/// refused as another process's is); once it lets go, the claim succeeds.
#[test]
fn a_claim_of_a_batch_another_claim_holds_is_told_the_batch_is_busy() {
    let dir = tempfile::tempdir().unwrap();
    let secrets: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    let mut holder = BatchQueue::open_in(dir.path(), secrets.clone()).unwrap();
    let id = holder
        .create(None, &profile(), &BatchOptions::default(), &requests(2))
        .unwrap();
    holder.claim(&id, None).unwrap();
    let loser = std::thread::spawn({
        let (dir, id, secrets) = (dir.path().to_owned(), id.clone(), secrets.clone());
        move || BatchQueue::open_in(&dir, secrets).unwrap().claim(&id, None)
    });
    let lost = loser.join().unwrap();
    let pid = if cfg!(unix) {
        Some(std::process::id())
    } else {
        None
    };
    assert_eq!(
        lost,
        Err(BatchError::Busy {
            batch: id.clone(),
            pid
        }),
        "{lost:?}"
    );
    if let Err(e) = &lost
        && cfg!(unix)
    {
        assert_eq!(
            e.to_string(),
            format!(
                "batch {id} is being worked by process {}; wait for it or stop it first",
                std::process::id()
            )
        );
    }
    holder.release(&id).unwrap();
    BatchQueue::open_in(dir.path(), secrets)
        .unwrap()
        .claim(&id, None)
        .unwrap();
}

#[test]
fn deleting_a_batch_removes_its_rows_and_secrets_and_is_refused_while_it_is_worked() {
    let dir = tempfile::tempdir().unwrap();
    let memory = Arc::new(MemorySecretStore::new());
    let secrets: Arc<dyn SecretStore> = memory.clone();
    let mut q = BatchQueue::open_in(dir.path(), secrets.clone()).unwrap();
    let mut items = requests(3);
    items[2]
        .request
        .headers
        .push(KeyValue::new("X-Api-Key", "k-abcdefghij"));
    let id = q
        .create(None, &profile(), &BatchOptions::default(), &items)
        .unwrap();
    let kept = q
        .create(None, &profile(), &BatchOptions::default(), &requests(1))
        .unwrap();
    assert_eq!(memory.keys(), vec![batch_secret_key(&id)]);

    // A batch another claim works is not deleted.
    let mut worker = BatchQueue::open_in(dir.path(), secrets).unwrap();
    worker.claim(&id, None).unwrap();
    assert!(matches!(q.delete(&id), Err(BatchError::Busy { .. })));
    assert_eq!(q.items(&id, None, 0, 10).unwrap().len(), 3);
    worker.release(&id).unwrap();

    assert_eq!(q.delete(&id).unwrap(), 3);
    assert!(matches!(q.batch(&id), Err(BatchError::NotFound(_))));
    assert!(q.items(&id, None, 0, 10).unwrap().is_empty());
    assert!(memory.keys().is_empty(), "{:?}", memory.keys());
    // The other batch is untouched.
    assert_eq!(q.list(10).unwrap().len(), 1);
    assert_eq!(q.batch(&kept).unwrap().counts.total(), 1);
}
