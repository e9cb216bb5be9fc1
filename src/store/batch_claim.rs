//! Claiming a batch (DESIGN.md §11): the process that works a batch holds its OS advisory lock
//! (`locks/batch-BATCH_ID.lock` in the data folder, [`BatchLock`]) for as long as it works it, so a
//! second process, or a second claim in this one, sees it being worked and does not take it
//! over. The OS releases the lock when the process dies (`kill -9` included); the batch can
//! then be claimed and resumed.
//!
//! A claim also tidies what a dead worker left: an item left `running` whose run the history
//! holds as finished is given that run's end (it is not sent again: one run per item), and the
//! other `running` items go back to `pending`.

use super::advisory_lock::{BatchLock, LockRefused};
use super::batch_error::BatchError;
use super::batch_item_changes::apply_item_changes;
use super::batch_queue::BatchQueue;
use super::batch_records::{ItemChange, ItemEnd};
use super::history::{query_rows, sql};
use super::history_error::HistoryError;
use crate::model::{BatchWorker, OutcomeKind};
use crate::policy::BatchAssertions;
use rusqlite::params;

impl BatchQueue {
    /// Claims batch `batch_id` (a full id) for this queue: takes its OS lock, held until
    /// [`Self::release`] or until this queue is dropped or the process ends. Items a dead
    /// process left `running` whose run the history holds as finished get that run's end;
    /// the others go back to `pending` (each is re-run from attempt 1; its earlier run stays in
    /// the history, marked `interrupted` when the history was opened); returns how many were
    /// put back. With a `worker`, stores it as the face working the batch and clears its
    /// "paused by the user" mark, in the same transaction.
    ///
    /// # Errors
    /// [`BatchError::NotFound`]; [`BatchError::Busy`] while another process, or another claim
    /// in this one, holds the batch; [`BatchError::History`] when the lock file cannot be made
    /// or locked; SQL errors (the lock is let go then).
    pub fn claim(
        &mut self,
        batch_id: &str,
        worker: Option<BatchWorker>,
    ) -> Result<u64, BatchError> {
        let batch = self.read_batch(batch_id)?;
        let lock = self.lock(batch_id)?;
        let assertions = BatchAssertions::compile(&batch.options.assertions).map_err(|e| {
            BatchError::Decode {
                id: batch_id.to_owned(),
                message: e.to_string(),
            }
        })?;
        let ends = self.ends_of_finished_runs(batch_id, &assertions)?;
        let tx = self.store.conn.transaction().map_err(sql("begin"))?;
        if let Some(worker) = worker {
            tx.execute(
                "UPDATE batches SET worker = ?2, paused_by_user = 0 WHERE id = ?1",
                params![batch_id, worker.id()],
            )
            .map_err(sql("store who works a batch"))?;
        }
        let changes: Vec<ItemChange<'_>> = ends
            .iter()
            .map(|(position, end)| ItemChange::Ended {
                position: *position,
                end,
            })
            .collect();
        apply_item_changes(&tx, batch_id, &changes)?;
        let requeued = tx
            .execute(
                "UPDATE batch_items SET state = 'pending', started_at = NULL
                 WHERE batch_id = ?1 AND state = 'running'",
                [batch_id],
            )
            .map_err(sql("queue running items again"))?;
        tx.commit().map_err(sql("commit a claim"))?;
        self.claims.insert(batch_id.to_owned(), lock);
        Ok(u64::try_from(requeued).unwrap_or(0))
    }

    /// Deletes batch `batch_id` (a full id): its row and its items in one transaction, then the
    /// sendable requests of its items with secrets from the secret store (the OS keyring).
    /// The runs its items made stay in the history (its retention prunes them); returns how
    /// many items were deleted.
    ///
    /// # Errors
    /// [`BatchError::NotFound`]; [`BatchError::Busy`] while a process works the batch (pause
    /// or cancel it first); [`BatchError::SecretsKept`] when the secret store refuses the
    /// delete (the queue's rows are gone then, the keyring entry stays); SQL errors.
    pub fn delete(&mut self, batch_id: &str) -> Result<u64, BatchError> {
        self.read_batch(batch_id)?;
        let lock = self.lock(batch_id)?;
        // A batch without secrets has no keyring entry: the keyring is not contacted.
        let had_secrets = self.secret_items(batch_id)? > 0;
        let tx = self.store.conn.transaction().map_err(sql("begin"))?;
        let items = tx
            .execute("DELETE FROM batch_items WHERE batch_id = ?1", [batch_id])
            .map_err(sql("delete a batch's items"))?;
        tx.execute("DELETE FROM batches WHERE id = ?1", [batch_id])
            .map_err(sql("delete a batch"))?;
        tx.commit().map_err(sql("commit a batch's delete"))?;
        drop(lock);
        if had_secrets {
            self.forget_secrets(batch_id)?;
        }
        Ok(u64::try_from(items).unwrap_or(0))
    }

    /// Whether batch `batch_id` (a full id) can be claimed now: its lock is taken and let go.
    ///
    /// # Errors
    /// [`BatchError::Busy`] while a live process works it (with its process id when known);
    /// [`BatchError::History`] when the lock file cannot be made or locked.
    pub fn check_free(&self, batch_id: &str) -> Result<(), BatchError> {
        self.lock(batch_id).map(drop)
    }

    /// Takes the OS lock of batch `batch_id`.
    fn lock(&self, batch_id: &str) -> Result<BatchLock, BatchError> {
        BatchLock::take(self.store.data_dir(), batch_id).map_err(|e| match e {
            LockRefused::Held(pid) => BatchError::Busy {
                batch: batch_id.to_owned(),
                pid,
            },
            LockRefused::Io(message) => BatchError::History(HistoryError::Sql {
                action: "claim a batch",
                message,
            }),
        })
    }

    /// Gives batch `batch_id` up: its lock is released (another process may work it now).
    ///
    /// # Errors
    /// None today; kept for callers that handle a failed release.
    pub fn release(&mut self, batch_id: &str) -> Result<(), BatchError> {
        self.claims.remove(batch_id);
        Ok(())
    }

    /// The ends of the `running` items of batch `batch_id` whose run the history holds as
    /// finished (a worker killed between its run's end and its item's), by position. A
    /// cancelled run is left out: a pause cancels runs too, so the item goes back to `pending`.
    fn ends_of_finished_runs(
        &self,
        batch_id: &str,
        assertions: &BatchAssertions,
    ) -> Result<Vec<(u64, ItemEnd)>, BatchError> {
        let finished: Vec<(u64, String, String, String)> = query_rows(
            &self.store.conn,
            "SELECT i.position, i.run_id, r.outcome, COALESCE(r.outcome_message, '')
             FROM batch_items i JOIN runs r ON r.id = i.run_id
             WHERE i.batch_id = ?1 AND i.state = 'running' AND r.outcome IS NOT NULL",
            [batch_id],
            "read running items",
            super::batch_queue::position_and_three,
        )?;
        let mut ends = Vec::with_capacity(finished.len());
        for (position, run_id, outcome, message) in finished {
            let Some(kind) =
                OutcomeKind::from_id(&outcome).filter(|k| *k != OutcomeKind::Interrupted)
            else {
                continue; // interrupted: sent again
            };
            if kind == OutcomeKind::Cancelled {
                continue;
            }
            let Some(run) = self.store.run(&run_id)? else {
                continue;
            };
            let last = run
                .answered()
                .last()
                .and_then(|a| a.result.as_ref())
                .map(|r| &r.outcome);
            let end = ItemEnd::from_run(kind, message, run.run.attempts, last, assertions, false);
            ends.push((position, end));
        }
        Ok(ends)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{
        BatchItemState, BatchOptions, BatchRequest, OutcomeKind, RequestSpec, RunEvent, Verdict,
    };
    use crate::store::{BatchError, BatchQueue, HistoryStore, MemorySecretStore, RecorderSeed};
    use crate::testkit::{EventScript, response};
    use std::sync::Arc;

    /// A one-attempt run answered `status`, finished (`Some`) or cut off (`None`).
    fn events(status: u16, finished: bool) -> Vec<RunEvent> {
        let start = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00+00:00").unwrap();
        let script = EventScript::new(1, "GET", "http://127.0.0.1:1/", start).attempt(
            response(status, &[], "x"),
            Verdict::SUCCESS,
            1.0,
        );
        let script = if finished {
            let kind = if status == 200 {
                OutcomeKind::Succeeded
            } else {
                OutcomeKind::Stopped
            };
            script.finish(kind, "ended", Some(status))
        } else {
            script
        };
        script.events().iter().map(|(e, _)| e.clone()).collect()
    }

    fn queue(dir: &std::path::Path) -> BatchQueue {
        BatchQueue::open_in(dir, Arc::new(MemorySecretStore::new())).unwrap()
    }

    fn batch(q: &mut BatchQueue, n: usize) -> String {
        let items: Vec<BatchRequest> = (0..n)
            .map(|i| BatchRequest {
                name: None,
                request: RequestSpec::get(format!("http://127.0.0.1:1/{i}")),
                profile: None,
                source_line: None,
            })
            .collect();
        q.create(
            None,
            &crate::profile::builtin("vbscript-module").unwrap(),
            &BatchOptions::default(),
            &items,
        )
        .unwrap()
    }

    #[test]
    fn a_claimed_batch_is_busy_for_a_second_claim_until_released() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = queue(dir.path());
        let id = batch(&mut first, 1);
        first.claim(&id, None).unwrap();
        assert!(!first.batch(&id).unwrap().held_elsewhere, "held here");
        let mut second = queue(dir.path());
        // Another connection of this process sees it worked here, not elsewhere (tests/
        // batch_lock.rs checks another process), and cannot claim it.
        assert!(!second.batch(&id).unwrap().held_elsewhere);
        assert!(matches!(
            second.claim(&id, None),
            Err(BatchError::Busy { batch, .. }) if batch == id
        ));
        // The holder itself cannot claim it twice either.
        assert!(matches!(
            first.claim(&id, None),
            Err(BatchError::Busy { .. })
        ));
        first.release(&id).unwrap();
        second.claim(&id, None).unwrap();
        drop(second);
        first
            .claim(&id, None)
            .expect("a dropped queue lets go of its claims");
    }

    /// A worker killed after its item's run was recorded finished but before the item's end
    /// was: the claim gives the item its run's end instead of sending it again.
    #[test]
    fn a_running_item_whose_run_finished_gets_its_end_not_a_second_run() {
        let dir = tempfile::tempdir().unwrap();
        let mut q = queue(dir.path());
        let id = batch(&mut q, 3);
        let mut history = HistoryStore::open_in(dir.path()).unwrap();
        let profile = crate::profile::builtin("vbscript-module").unwrap();
        let spec = RequestSpec::get("http://127.0.0.1:1/0");
        let mut run_ids = Vec::new();
        for (position, status, finished) in [(0, 200, true), (1, 404, true), (2, 200, false)] {
            let seed = RecorderSeed::new(&spec, &profile, Vec::new(), 1024)
                .with_batch_item(format!("{id}/{position}"));
            let run_id = seed.id().to_owned();
            let mut recorder = seed.into_recorder();
            for event in events(status, finished) {
                if let Some(w) = recorder.fold(&event) {
                    history.apply(&w).unwrap();
                }
            }
            q.mark_running(&id, position, Some(&run_id)).unwrap();
            run_ids.push(run_id);
        }
        // The process "dies": its queue and its history connection go.
        drop((q, history));

        let mut q = queue(dir.path());
        assert_eq!(
            q.claim(&id, None).unwrap(),
            1,
            "only the unfinished run's item"
        );
        let items = q.items(&id, None, 0, 10).unwrap();
        let states: Vec<_> = items.iter().map(|i| i.state).collect();
        assert_eq!(
            states,
            [
                BatchItemState::Done,
                BatchItemState::Error,
                BatchItemState::Pending
            ]
        );
        assert_eq!(items[0].last_status, Some(200));
        assert_eq!(items[1].last_status, Some(404));
        assert_eq!(items[0].run_id.as_deref(), Some(run_ids[0].as_str()));
        assert_eq!(items[2].run_id.as_deref(), Some(run_ids[2].as_str()));
    }
}
