//! A batch's item state changes committed by the history writer (DESIGN.md §11: "a run's
//! outcome and its batch item's state change are one transaction"). The batch runner hands
//! the writer an item's end together with its run's end ([`RunEnd`], held back from the run's
//! recording), and the writer commits both in one transaction, so a `kill -9` never leaves a
//! run recorded finished with its item still `running` (which a resume would send again) nor
//! an item `done` whose run reads `interrupted`. The reply comes after the commit: no change is
//! reported before it is durable.

use super::batch_error::BatchError;
use super::batch_item_changes::apply_item_changes;
use super::batch_records::{ItemChange, ItemEnd};
use super::history::HistoryStore;
use super::history_error::HistoryError;
use super::history_records::HistoryWrite;
use super::history_writer::RunKey;
use crate::model::RunEvent;
use crate::model::secrets::Masked;

/// The end of a batch item's run, held back from the writer until the item's end goes with it
/// ([`BatchChange::Ended`]). One dropped undelivered leaves its run without an end (marked
/// `interrupted` once this process is gone), as a run cut off does.
#[derive(Debug)]
pub struct RunEnd {
    pub(super) key: RunKey,
    pub(super) event: Box<Masked<RunEvent>>,
}

impl RunEnd {
    /// The run `key`'s [`RunEvent::RunFinished`] (masked already, as
    /// [`super::HistoryWriter::record_event`] takes it).
    pub fn new(key: RunKey, event: Masked<RunEvent>) -> Self {
        Self {
            key,
            event: Box::new(event),
        }
    }
}

/// One item state change of [`super::HistoryWriter::commit_batch`] (the owned form of
/// [`ItemChange`], which it becomes inside the writer's transaction).
#[derive(Debug)]
pub enum BatchChange {
    /// Mark the item `running` (it must be `pending`) with its run's history id.
    Running {
        /// Position in the batch.
        position: u64,
        /// History id of its run, if recorded.
        run_id: Option<String>,
    },
    /// Store how the item's run ended, and that run's end in the same transaction.
    Ended {
        /// Position in the batch.
        position: u64,
        /// How it ended.
        end: ItemEnd,
        /// Its run's end (`None`: not recorded, or not sent).
        run: Option<RunEnd>,
    },
}

impl BatchChange {
    /// The change as the queue's SQL takes it.
    pub fn as_item_change(&self) -> ItemChange<'_> {
        match self {
            Self::Running { position, run_id } => ItemChange::Running {
                position: *position,
                run_id: run_id.as_deref(),
            },
            Self::Ended { position, end, .. } => ItemChange::Ended {
                position: *position,
                end,
            },
        }
    }
}

/// A batch commit as the writer thread holds it: the run ends already folded into writes.
pub(super) struct BatchCommit {
    pub(super) batch_id: String,
    pub(super) changes: Vec<BatchChange>,
    pub(super) reply: tokio::sync::oneshot::Sender<Result<(), BatchError>>,
}

/// Why [`apply_batch`] failed: in a run's end, or in the item changes.
enum Failed {
    Run(HistoryError),
    Items(BatchError),
}

/// Applies `runs` (the run ends of the items) and the item `changes` inside the transaction the
/// caller opened.
fn apply_batch(
    store: &mut HistoryStore,
    batch_id: &str,
    runs: &[HistoryWrite],
    changes: &[BatchChange],
) -> Result<(), Failed> {
    store.apply_in_transaction(runs).map_err(Failed::Run)?;
    let changes: Vec<ItemChange<'_>> = changes.iter().map(BatchChange::as_item_change).collect();
    apply_item_changes(&store.conn, batch_id, &changes).map_err(Failed::Items)
}

/// Commits `runs` and `changes` in one transaction. When a run's end fails (say its run was
/// deleted while it ran), the item changes are committed alone and that failure is returned
/// as the second value, for the writer's first-failure slot: a batch is not stopped by its
/// history. An item change that fails (an item not `pending` to mark `running`) fails the whole
/// commit.
pub(super) fn commit_batch(
    store: &mut HistoryStore,
    batch_id: &str,
    runs: &[HistoryWrite],
    changes: &[BatchChange],
) -> (Result<(), BatchError>, Option<HistoryError>) {
    let once = |store: &mut HistoryStore, runs: &[HistoryWrite]| {
        store.begin().map_err(|e| Failed::Items(e.into()))?;
        if let Err(e) = apply_batch(store, batch_id, runs, changes) {
            store.roll_back();
            return Err(e);
        }
        store.commit().map_err(|e| Failed::Items(e.into()))
    };
    match once(store, runs) {
        Ok(()) => (Ok(()), None),
        Err(Failed::Items(e)) => (Err(e), None),
        Err(Failed::Run(first)) => match once(store, &[]) {
            Ok(()) => (Ok(()), Some(first)),
            Err(Failed::Items(e)) => (Err(e), Some(first)),
            Err(Failed::Run(e)) => (Err(e.into()), Some(first)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{BatchChange, RunEnd};
    use crate::model::secrets::mask_event;
    use crate::model::{BatchItemState, BatchOptions, BatchRequest, OutcomeKind, RequestSpec};
    use crate::model::{RunEvent, Verdict};
    use crate::store::{
        BatchError, BatchQueue, HistoryStore, HistoryWriter, ItemEnd, MemorySecretStore,
        RecorderSeed,
    };
    use crate::testkit::{EventScript, response};
    use std::sync::Arc;

    /// Records a succeeded run of item `position` through `writer`, all but its end; returns
    /// its id and its end.
    fn run_but_its_end(writer: &HistoryWriter, batch: &str, position: u64) -> (String, RunEnd) {
        let spec = RequestSpec::get("http://127.0.0.1:1/");
        let profile = crate::profile::builtin("vbscript-module").unwrap();
        let seed = RecorderSeed::new(&spec, &profile, Vec::new(), 1024)
            .with_batch_item(format!("{batch}/{position}"));
        let id = seed.id().to_owned();
        let key = writer.record_run(seed).unwrap();
        let start = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00+00:00").unwrap();
        let script = EventScript::new(1, "GET", &spec.url, start)
            .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 1.0)
            .finish(OutcomeKind::Succeeded, "succeeded on attempt 1", Some(200));
        let mut end = None;
        for (event, _) in script.events() {
            if matches!(event, RunEvent::RunFinished { .. }) {
                end = Some(RunEnd::new(key, mask_event(event.clone(), &[])));
            } else {
                writer
                    .record_event(key, mask_event(event.clone(), &[]))
                    .unwrap();
            }
        }
        (id, end.unwrap())
    }

    fn done() -> ItemEnd {
        ItemEnd {
            state: BatchItemState::Done,
            attempts: 1,
            last_status: Some(200),
            error_kind: None,
            reason: "succeeded on attempt 1".into(),
        }
    }

    /// What another process sees: the run's outcome and the item's state.
    fn seen(
        dir: &std::path::Path,
        batch: &str,
        run: &str,
        position: u64,
    ) -> (Option<OutcomeKind>, BatchItemState) {
        let history = HistoryStore::open_in(dir).unwrap();
        let outcome = history.run(run).unwrap().unwrap().run.outcome;
        let queue = BatchQueue::new(history, Arc::new(MemorySecretStore::new()));
        let item = queue.items(batch, None, position, 1).unwrap().remove(0);
        (outcome, item.state)
    }

    /// An item's end and its run's end are one transaction: when the item changes fail, the
    /// run is not recorded finished either; when they commit, both are visible the moment the
    /// commit returns (no flush).
    #[test]
    fn a_run_end_and_its_item_end_commit_together_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let mut queue =
            BatchQueue::open_in(dir.path(), Arc::new(MemorySecretStore::new())).unwrap();
        let items: Vec<BatchRequest> = (0..2)
            .map(|i| BatchRequest {
                name: None,
                request: RequestSpec::get(format!("http://127.0.0.1:1/{i}")),
                profile: None,
                source_line: None,
            })
            .collect();
        let profile = crate::profile::builtin("vbscript-module").unwrap();
        let batch = queue
            .create(None, &profile, &BatchOptions::default(), &items)
            .unwrap();
        let writer = HistoryWriter::spawn(HistoryStore::open_in(dir.path()).unwrap()).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();

        let (run0, end0) = run_but_its_end(&writer, &batch, 0);
        let bad = vec![
            BatchChange::Running {
                position: 0,
                run_id: Some(run0.clone()),
            },
            BatchChange::Ended {
                position: 0,
                end: done(),
                run: Some(end0),
            },
            // Item 1 is pending once: the second start fails the whole commit.
            BatchChange::Running {
                position: 1,
                run_id: None,
            },
            BatchChange::Running {
                position: 1,
                run_id: None,
            },
        ];
        let failed = rt.block_on(writer.commit_batch(&batch, bad));
        assert!(
            matches!(failed, Err(BatchError::WrongState { position: 1, .. })),
            "{failed:?}"
        );
        assert_eq!(
            seen(dir.path(), &batch, &run0, 0),
            (None, BatchItemState::Pending)
        );

        let (run1, end1) = run_but_its_end(&writer, &batch, 1);
        let good = vec![
            BatchChange::Running {
                position: 1,
                run_id: Some(run1.clone()),
            },
            BatchChange::Ended {
                position: 1,
                end: done(),
                run: Some(end1),
            },
        ];
        rt.block_on(writer.commit_batch(&batch, good)).unwrap();
        assert_eq!(
            seen(dir.path(), &batch, &run1, 1),
            (Some(OutcomeKind::Succeeded), BatchItemState::Done)
        );
        writer.close().unwrap();
    }
}
