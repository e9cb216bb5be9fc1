//! The durable batch queue: tables `batches` and `batch_items` in the history
//! database (migration step 3 of `history_schema`). Every state change is committed before the
//! method returns (one transaction per call; [`BatchQueue::commit_changes`] groups many), so a
//! caller reports a change only once it survives a `kill -9`.
//!
//! Requests are stored masked by the one secrets rule ([`secrets::mask_spec`]); the sendable
//! request of an item whose request holds secrets is kept in the secret store (the OS keyring)
//! under [`batch_secret_key`], one entry per batch, and read back when the item is sent. With no
//! keyring (memory store) such items can be sent only by the process that queued them; after it
//! ends they end `error` saying so (docs/DECISIONS.md "Batch runner").

use super::advisory_lock::{BatchLock, batch_is_held_elsewhere};
use super::batch_error::BatchError;
use super::batch_item_changes::apply_item_changes;
use super::batch_records::{BatchItemRecord, BatchRecord, ItemChange, ItemEnd, QueuedItem};
use super::history::{HistoryStore, query_decoded, query_rows, sql, time};
use super::secret_store::SecretStore;
use crate::model::{
    BatchCounts, BatchItemState, BatchOptions, BatchRequest, BatchWorker, RequestSpec,
    RetryProfile, secrets,
};
use rusqlite::{OptionalExtension, Row, params};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// What an item whose secrets were not kept says when it cannot be sent.
pub const SECRETS_LOST: &str = "not sent: the item's secrets were kept in memory only (no OS keyring) and the process that queued it ended; import the list again";

/// The secret store key holding the sendable requests of a batch's items with secrets: a JSON
/// object from position (decimal text) to [`RequestSpec`].
pub fn batch_secret_key(batch_id: &str) -> String {
    format!("batch/{batch_id}/requests")
}

/// The batch queue over its own connection to the history database.
pub struct BatchQueue {
    pub(super) store: HistoryStore,
    secrets: Arc<dyn SecretStore>,
    /// Sendable requests of items with secrets, per batch, read once from the secret store.
    kept: HashMap<String, HashMap<u64, RequestSpec>>,
    /// The batches this queue claimed ([`Self::claim`]), each held by its OS lock until
    /// [`Self::release`] or the queue's drop.
    pub(super) claims: HashMap<String, BatchLock>,
}

impl std::fmt::Debug for BatchQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchQueue")
            .field("path", &self.store.path())
            .finish_non_exhaustive()
    }
}

const ITEM_COLUMNS: &str = "batch_id, position, name, method, url, request_json, has_secrets,
    item_profile, source_line, state, attempts, last_status, error_kind, reason, run_id,
    queued_at, started_at, ended_at";

impl BatchQueue {
    /// Opens the history database in `data_dir` (creating it) for the queue; `secrets` keeps
    /// the sendable requests of items with secrets.
    ///
    /// # Errors
    /// [`BatchError::History`] when the database cannot be opened or migrated.
    pub fn open_in(data_dir: &Path, secrets: Arc<dyn SecretStore>) -> Result<Self, BatchError> {
        Ok(Self::new(HistoryStore::open_in(data_dir)?, secrets))
    }

    /// The queue over an open store.
    pub fn new(store: HistoryStore, secrets: Arc<dyn SecretStore>) -> Self {
        Self {
            store,
            secrets,
            kept: HashMap::new(),
            claims: HashMap::new(),
        }
    }

    /// Deletes batch `batch_id`'s secrets from the secret store and from this queue's memory.
    pub(super) fn forget_secrets(&mut self, batch_id: &str) -> Result<(), BatchError> {
        self.kept.remove(batch_id);
        self.secrets
            .delete(&batch_secret_key(batch_id))
            .map_err(|e| BatchError::SecretsKept {
                key: batch_secret_key(batch_id),
                message: e.to_string(),
            })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        self.store.path()
    }

    /// The history in the same database (the store actor hands both to its calls).
    pub fn history(&mut self) -> &mut HistoryStore {
        &mut self.store
    }

    /// Keeps and reads the sendable requests of items with secrets in `secrets` from now on
    /// (the face working a batch sets its own: the OS keyring, or memory only).
    pub fn use_secrets(&mut self, secrets: Arc<dyn SecretStore>) {
        if !Arc::ptr_eq(&self.secrets, &secrets) {
            self.secrets = secrets;
            self.kept.clear();
        }
    }

    /// Queues `items` as a new batch (all `pending`, positions 0, 1, … in order) under
    /// `profile` and `options`, in one transaction; returns its id (UUID v7). `source` is
    /// where the list came from (shown by `batch list`). Items whose request holds secrets are
    /// kept in the secret store first.
    ///
    /// # Errors
    /// [`BatchError::SecretInAssertion`] for an assertion holding a secret value an item sends;
    /// [`BatchError::Secrets`] when the secret store refuses them; SQL and encode errors.
    /// Nothing is queued then.
    pub fn create(
        &mut self,
        source: Option<&str>,
        profile: &RetryProfile,
        options: &BatchOptions,
        items: &[BatchRequest],
    ) -> Result<String, BatchError> {
        let id = self.create_streaming(source, profile, options, |queue| {
            items.iter().try_for_each(queue)?;
            Ok(true)
        })?;
        Ok(id.unwrap_or_default())
    }

    /// [`Self::create`] for items that `feed` hands over one by one (a long list is never
    /// held whole): `feed` gets the function that queues one item and returns whether to keep
    /// the batch (`false`: a list refused after all; nothing is queued). Returns the batch id,
    /// `None` when `feed` said not to keep it.
    ///
    /// # Errors
    /// As [`Self::create`], and `feed`'s own error; nothing is queued then.
    pub fn create_streaming(
        &mut self,
        source: Option<&str>,
        profile: &RetryProfile,
        options: &BatchOptions,
        feed: impl FnOnce(
            &mut dyn FnMut(&BatchRequest) -> Result<(), BatchError>,
        ) -> Result<bool, BatchError>,
    ) -> Result<Option<String>, BatchError> {
        let id = uuid::Uuid::now_v7().to_string();
        let now = chrono::Local::now().fixed_offset();
        let mut kept: HashMap<u64, RequestSpec> = HashMap::new();
        let tx = self.store.conn.transaction().map_err(sql("begin"))?;
        tx.execute(
            "INSERT INTO batches (id, created_at, created_unix_ms, source, profile_name,
                 profile_json, options_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                id,
                now.to_rfc3339(),
                now.timestamp_millis(),
                source,
                profile.name,
                encode(profile)?,
                encode(options)?,
            ],
        )
        .map_err(sql("insert a batch"))?;
        let keep = {
            let mut stmt = tx
                .prepare(
                    "INSERT INTO batch_items (batch_id, position, name, method, url, request_json,
                     has_secrets, item_profile, source_line, state, queued_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'pending', ?10)",
                )
                .map_err(sql("queue an item"))?;
            let queued_at = now.to_rfc3339();
            let mut position = 0u64;
            let mut queue = |item: &BatchRequest| -> Result<(), BatchError> {
                let values = secrets::secret_values(&item.request);
                if let Some(label) =
                    crate::policy::assertion_holding_secret(&options.assertions, &values)
                {
                    return Err(BatchError::SecretInAssertion {
                        label,
                        item: position + 1,
                    });
                }
                let shown = secrets::mask_spec(&item.request, &values).into_inner();
                let has_secrets = shown != item.request;
                if has_secrets {
                    kept.insert(position, item.request.clone());
                }
                // A name that repeats a secret the item sends is stored (and reported) masked.
                let name = item
                    .name
                    .as_deref()
                    .map(|n| crate::model::mask_secret_values(n, &values));
                stmt.execute(params![
                    id,
                    to_i64(position),
                    name,
                    shown.method,
                    shown.url,
                    encode(&shown)?,
                    has_secrets,
                    item.profile,
                    item.source_line.map(to_i64),
                    queued_at,
                ])
                .map_err(sql("queue an item"))?;
                position += 1;
                Ok(())
            };
            feed(&mut queue)?
        };
        if !keep {
            return Ok(None);
        }
        if !kept.is_empty() {
            let text = serde_json::to_string(
                &kept
                    .iter()
                    .map(|(p, r)| (p.to_string(), r))
                    .collect::<HashMap<_, _>>(),
            )
            .map_err(|e| BatchError::Secrets(e.to_string()))?;
            self.secrets
                .set(&batch_secret_key(&id), &text)
                .map_err(|e| BatchError::Secrets(e.message))?;
        }
        tx.commit().map_err(sql("commit a batch"))?;
        self.kept.insert(id.clone(), kept);
        Ok(Some(id))
    }

    /// Batches, newest first, at most `limit`.
    ///
    /// # Errors
    /// SQL and decode errors.
    pub fn list(&self, limit: u32) -> Result<Vec<BatchRecord>, BatchError> {
        let ids: Vec<String> = query_rows(
            &self.store.conn,
            "SELECT id FROM batches ORDER BY created_unix_ms DESC, id DESC LIMIT ?1",
            [i64::from(limit)],
            "list batches",
            |r| r.get(0),
        )?;
        ids.iter()
            .map(|id| self.read_batch(id))
            .collect::<Result<Vec<_>, _>>()
    }

    /// The batch `id` (full, or a unique prefix or suffix of at least 8 characters).
    ///
    /// # Errors
    /// [`BatchError::NotFound`], [`BatchError::Ambiguous`], SQL and decode errors.
    pub fn batch(&self, id: &str) -> Result<BatchRecord, BatchError> {
        let full = self.resolve(id)?;
        self.read_batch(&full)
    }

    pub(super) fn read_batch(&self, id: &str) -> Result<BatchRecord, BatchError> {
        let row = self
            .store
            .conn
            .query_row(
                "SELECT created_at, source, profile_name, profile_json, options_json, worker,
                 paused_by_user FROM batches WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        (
                            r.get::<_, String>(0)?,
                            r.get::<_, Option<String>>(1)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, String>(3)?,
                            r.get::<_, String>(4)?,
                        ),
                        (r.get::<_, Option<String>>(5)?, r.get::<_, bool>(6)?),
                    ))
                },
            )
            .optional()
            .map_err(sql("read a batch"))?
            .ok_or_else(|| BatchError::NotFound(id.to_owned()))?;
        let ((created, source, profile_name, profile, options), (worker, paused)) = row;
        Ok(BatchRecord {
            id: id.to_owned(),
            created_at: time(&created, id)?,
            source,
            profile_name,
            profile: decode(&profile, id, "profile")?,
            options: decode(&options, id, "options")?,
            counts: self.counts(id)?,
            worker: worker.as_deref().and_then(BatchWorker::from_id),
            paused_by_user: paused,
            held_elsewhere: batch_is_held_elsewhere(self.store.data_dir(), id),
        })
    }

    /// Notes durably that the user paused (or cancelled) batch `batch_id` (a full id): the
    /// window does not resume it by itself at its next start.
    ///
    /// # Errors
    /// SQL errors.
    pub fn mark_paused_by_user(&mut self, batch_id: &str) -> Result<(), BatchError> {
        mark_paused_by_user(&self.store.conn, batch_id)
    }

    /// The full id `id` (full, or a unique prefix or suffix of ≥ 8 characters) names.
    fn resolve(&self, id: &str) -> Result<String, BatchError> {
        let id = id.trim().to_ascii_lowercase();
        if id.len() < 8 || !id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            return Err(BatchError::ShortId(id.escape_debug().to_string()));
        }
        let found: Vec<String> = query_rows(
            &self.store.conn,
            "SELECT id FROM batches WHERE (id >= ?1 AND id < ?1 || '~') OR id LIKE '%' || ?1
             LIMIT 2",
            [&id],
            "find a batch",
            |r| r.get(0),
        )?;
        match found.as_slice() {
            [] => Err(BatchError::NotFound(id)),
            [one] => Ok(one.clone()),
            _ => Err(BatchError::Ambiguous(id)),
        }
    }

    /// Items per state of batch `batch_id` (a full id).
    ///
    /// # Errors
    /// SQL errors.
    pub fn counts(&self, batch_id: &str) -> Result<BatchCounts, BatchError> {
        let rows = query_rows(
            &self.store.conn,
            "SELECT state, COUNT(*) FROM batch_items WHERE batch_id = ?1 GROUP BY state",
            [batch_id],
            "count items",
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
        )?;
        let mut counts = BatchCounts::default();
        for (state, n) in rows {
            if let Some(s) = BatchItemState::from_id(&state) {
                *counts.get_mut(s) = u64::try_from(n).unwrap_or(0);
            }
        }
        Ok(counts)
    }

    /// How many items of batch `batch_id` keep their sendable request in the secret store.
    ///
    /// # Errors
    /// SQL errors.
    pub fn secret_items(&self, batch_id: &str) -> Result<u64, BatchError> {
        self.store
            .conn
            .query_row(
                "SELECT COUNT(*) FROM batch_items WHERE batch_id = ?1 AND has_secrets",
                [batch_id],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|e| sql("count items")(e).into())
    }

    /// The recorded run `run_id` (an item's [`BatchItemRecord::run_id`]) with its attempts, from
    /// the history database the queue lives in; `None` when it was pruned.
    ///
    /// # Errors
    /// SQL and decode errors.
    pub fn recorded_run(
        &self,
        run_id: &str,
    ) -> Result<Option<crate::store::StoredRun>, BatchError> {
        Ok(self.store.run(run_id)?)
    }

    /// Items of batch `batch_id` (a full id) in position order, only those in `state` when
    /// given, skipping `offset`, at most `limit` (a page of the window's table).
    ///
    /// # Errors
    /// SQL and decode errors.
    pub fn items(
        &self,
        batch_id: &str,
        state: Option<BatchItemState>,
        offset: u64,
        limit: u64,
    ) -> Result<Vec<BatchItemRecord>, BatchError> {
        query_decoded(
            &self.store.conn,
            &format!(
                "SELECT {ITEM_COLUMNS} FROM batch_items
                 WHERE batch_id = ?1 AND (?2 IS NULL OR state = ?2)
                 ORDER BY position LIMIT ?3 OFFSET ?4"
            ),
            params![
                batch_id,
                state.map(BatchItemState::id),
                to_i64(limit),
                to_i64(offset)
            ],
            ("list items", "read an item"),
            item_row,
        )
    }

    /// Up to `limit` `pending` items of batch `batch_id` after position `after` (all from the
    /// start when `None`), in position order, each with its sendable request.
    ///
    /// # Errors
    /// SQL and decode errors (an item whose secrets are gone is not an error: its
    /// [`QueuedItem::request`] says so).
    pub fn next_pending(
        &mut self,
        batch_id: &str,
        after: Option<u64>,
        limit: u64,
    ) -> Result<Vec<QueuedItem>, BatchError> {
        let rows: Vec<(u64, Option<String>, String, bool)> = query_rows(
            &self.store.conn,
            "SELECT position, item_profile, request_json, has_secrets FROM batch_items
             WHERE batch_id = ?1 AND state = 'pending' AND position > ?2
             ORDER BY position LIMIT ?3",
            params![batch_id, after.map_or(-1, to_i64), to_i64(limit)],
            "read pending items",
            position_and_three,
        )?;
        let mut out = Vec::with_capacity(rows.len());
        for (position, profile, request_json, has_secrets) in rows {
            let request = if has_secrets {
                self.kept_request(batch_id, position)?
            } else {
                Ok(decode(&request_json, batch_id, "request")?)
            };
            out.push(QueuedItem {
                position,
                profile,
                request,
            });
        }
        Ok(out)
    }

    /// The sendable request of an item with secrets, from the secret store (read once per batch).
    fn kept_request(
        &mut self,
        batch_id: &str,
        position: u64,
    ) -> Result<Result<RequestSpec, String>, BatchError> {
        if !self.kept.contains_key(batch_id) {
            let map: HashMap<u64, RequestSpec> = match self.secrets.get(&batch_secret_key(batch_id))
            {
                Ok(Some(text)) => serde_json::from_str::<HashMap<String, RequestSpec>>(&text)
                    .map_err(|e| BatchError::Decode {
                        id: batch_id.to_owned(),
                        message: format!("kept requests: {e}"),
                    })?
                    .into_iter()
                    .filter_map(|(p, r)| p.parse().ok().map(|p| (p, r)))
                    .collect(),
                Ok(None) => HashMap::new(),
                Err(e) => return Ok(Err(format!("not sent: {e}"))),
            };
            self.kept.insert(batch_id.to_owned(), map);
        }
        Ok(self
            .kept
            .get(batch_id)
            .and_then(|m| m.get(&position))
            .cloned()
            .ok_or_else(|| SECRETS_LOST.to_owned()))
    }

    /// Marks item `position` `running` (it must be `pending`), with the history id of the run
    /// about to start; committed before this returns.
    ///
    /// # Errors
    /// [`BatchError::WrongState`] when the item is not pending; SQL errors.
    pub fn mark_running(
        &mut self,
        batch_id: &str,
        position: u64,
        run_id: Option<&str>,
    ) -> Result<(), BatchError> {
        self.commit_changes(batch_id, &[ItemChange::Running { position, run_id }])
    }

    /// Stores how item `position`'s run ended (its state, attempts, status or error kind,
    /// reason); committed before this returns. `end.state` = `pending` puts the item back in
    /// the queue (a paused or interrupted batch).
    ///
    /// # Errors
    /// SQL errors.
    pub fn finish(
        &mut self,
        batch_id: &str,
        position: u64,
        end: &ItemEnd,
    ) -> Result<(), BatchError> {
        self.commit_changes(batch_id, &[ItemChange::Ended { position, end }])
    }

    /// Makes `changes` to items of batch `batch_id` in one transaction (a group commit: one
    /// write of the pages they share instead of one per change), committed before this
    /// returns; all or none. Timestamps are taken once for the group.
    ///
    /// # Errors
    /// [`BatchError::WrongState`] when an item to mark `running` is not pending (nothing is
    /// committed then); SQL errors.
    pub fn commit_changes(
        &mut self,
        batch_id: &str,
        changes: &[ItemChange<'_>],
    ) -> Result<(), BatchError> {
        if changes.is_empty() {
            return Ok(());
        }
        let tx = self.store.conn.transaction().map_err(sql("begin"))?;
        // Dropping `tx` on an error rolls the whole group back.
        apply_item_changes(&tx, batch_id, changes)?;
        tx.commit().map_err(sql("commit item changes"))?;
        Ok(())
    }

    /// Changes the concurrency and the rate per host batch `batch_id` (a full id) is worked with
    /// (`batch --resume ID --concurrency N --rate-per-host R`); `None` keeps the stored value.
    /// Its assertions stay as queued.
    ///
    /// # Errors
    /// [`BatchError::NotFound`], [`BatchError::Options`] when the result is out of range (see
    /// [`BatchOptions::problem`]); SQL and decode errors.
    pub fn set_run_options(
        &mut self,
        batch_id: &str,
        concurrency: Option<usize>,
        rate_per_host: Option<f64>,
    ) -> Result<BatchOptions, BatchError> {
        let mut options = self.read_batch(batch_id)?.options;
        if let Some(n) = concurrency {
            options.concurrency = n;
        }
        if let Some(r) = rate_per_host {
            options.rate_per_host = Some(r);
        }
        if let Some(problem) = options.problem() {
            return Err(BatchError::Options(problem));
        }
        self.store
            .conn
            .execute(
                "UPDATE batches SET options_json = ?2 WHERE id = ?1",
                params![batch_id, encode(&options)?],
            )
            .map_err(sql("store a batch's options"))?;
        Ok(options)
    }

    /// Items of batch `batch_id` that were in flight when it last stopped, so a resume sends
    /// them again from attempt 1: `running` ones (the process crashed or was killed) and
    /// `pending` ones with a run (a pause cancelled their run), in position order, at most
    /// `limit`.
    ///
    /// # Errors
    /// SQL and decode errors.
    pub fn interrupted_items(
        &self,
        batch_id: &str,
        limit: u64,
    ) -> Result<Vec<BatchItemRecord>, BatchError> {
        query_decoded(
            &self.store.conn,
            &format!(
                "SELECT {ITEM_COLUMNS} FROM batch_items
                 WHERE batch_id = ?1
                   AND (state = 'running' OR (state = 'pending' AND run_id IS NOT NULL))
                 ORDER BY position LIMIT ?2"
            ),
            params![batch_id, to_i64(limit)],
            ("list interrupted items", "read an item"),
            item_row,
        )
    }

    /// The items of batch `batch_id` a resume would send again although they may have
    /// reached the server (at most `limit`): in flight when it stopped
    /// ([`Self::interrupted_items`]), a method that is not idempotent, and no
    /// `Idempotency-Key` (neither the item's own nor the batch's,
    /// [`BatchOptions::idempotency_keys`]). What both faces show before a resume.
    ///
    /// # Errors
    /// SQL and decode errors; an unknown batch.
    pub fn unsafe_to_resend(
        &self,
        batch_id: &str,
        limit: u64,
    ) -> Result<Vec<BatchItemRecord>, BatchError> {
        if self.batch(batch_id)?.options.idempotency_keys {
            return Ok(Vec::new());
        }
        let items = self.interrupted_items(batch_id, limit)?;
        Ok(items
            .into_iter()
            .filter(|i| {
                !crate::policy::is_idempotent(&i.method) && i.request.idempotency_key.is_none()
            })
            .collect())
    }

    /// Ends items `positions` of batch `batch_id` `cancelled` with `reason` if they are not
    /// finished (a resume told to skip them), keeping the attempts their runs recorded (an
    /// attempt started counts as made, as `history` counts it); returns how many.
    ///
    /// # Errors
    /// SQL errors.
    pub fn skip_items(
        &mut self,
        batch_id: &str,
        positions: &[u64],
        reason: &str,
    ) -> Result<u64, BatchError> {
        let tx = self.store.conn.transaction().map_err(sql("skip items"))?;
        let now = chrono::Local::now().fixed_offset().to_rfc3339();
        let mut n = 0;
        for position in positions {
            n += tx
                .execute(
                    "UPDATE batch_items SET state = 'cancelled', reason = ?3, ended_at = ?4,
                     attempts = COALESCE((SELECT MAX(r.attempts, COALESCE(r.started_attempt, 0))
                         FROM runs r WHERE r.id = batch_items.run_id), attempts)
                     WHERE batch_id = ?1 AND position = ?2 AND state IN ('pending', 'running')",
                    params![batch_id, to_i64(*position), reason, now],
                )
                .map_err(sql("skip items"))?;
        }
        tx.commit().map_err(sql("skip items"))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Marks every `pending` item of the batch `cancelled` and notes that the user cancelled
    /// the batch (as [`Self::mark_paused_by_user`]: it reads `cancelled`, not `finished`), in one
    /// transaction; returns how many items.
    ///
    /// # Errors
    /// SQL errors; nothing is changed then.
    pub fn cancel_pending(&mut self, batch_id: &str) -> Result<u64, BatchError> {
        let tx = self.store.conn.transaction().map_err(sql("begin"))?;
        let n = tx
            .execute(
                "UPDATE batch_items SET state = 'cancelled', reason = 'cancelled before it was sent',
                 ended_at = ?2 WHERE batch_id = ?1 AND state = 'pending'",
                params![batch_id, chrono::Local::now().fixed_offset().to_rfc3339()],
            )
            .map_err(sql("cancel items"))?;
        mark_paused_by_user(&tx, batch_id)?;
        tx.commit().map_err(sql("commit a cancel"))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// "Re-run failed": puts every `error` and `cancelled` item back to `pending` (their
    /// earlier runs stay in the history); returns how many.
    ///
    /// # Errors
    /// SQL errors.
    pub fn requeue_failed(&mut self, batch_id: &str) -> Result<u64, BatchError> {
        let n = self
            .store
            .conn
            .execute(
                "UPDATE batch_items SET state = 'pending', ended_at = NULL
                 WHERE batch_id = ?1 AND state IN ('error', 'cancelled')",
                [batch_id],
            )
            .map_err(sql("queue failed items again"))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

/// An item's position (column 0) and the next three columns of a row.
/// [`BatchQueue::mark_paused_by_user`] on `conn` (a transaction too).
fn mark_paused_by_user(conn: &rusqlite::Connection, batch_id: &str) -> Result<(), BatchError> {
    conn.execute(
        "UPDATE batches SET paused_by_user = 1 WHERE id = ?1",
        [batch_id],
    )
    .map_err(sql("store that a batch was paused"))?;
    Ok(())
}

pub(super) fn position_and_three<A, B, C>(r: &Row<'_>) -> rusqlite::Result<(u64, A, B, C)>
where
    A: rusqlite::types::FromSql,
    B: rusqlite::types::FromSql,
    C: rusqlite::types::FromSql,
{
    let position = u64::try_from(r.get::<_, i64>(0)?).unwrap_or(0);
    Ok((position, r.get(1)?, r.get(2)?, r.get(3)?))
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn encode<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, BatchError> {
    serde_json::to_string(value)
        .map_err(|e| BatchError::History(super::HistoryError::Encode(e.to_string())))
}

fn decode<T: serde::de::DeserializeOwned>(
    json: &str,
    id: &str,
    what: &str,
) -> Result<T, BatchError> {
    serde_json::from_str(json).map_err(|e| BatchError::Decode {
        id: id.to_owned(),
        message: format!("{what}: {e}"),
    })
}

type RowResult<T> = rusqlite::Result<Result<T, BatchError>>;

fn item_row(r: &Row<'_>) -> RowResult<BatchItemRecord> {
    let batch_id: String = r.get(0)?;
    let position: i64 = r.get(1)?;
    let request: String = r.get(5)?;
    let state: String = r.get(9)?;
    let queued: String = r.get(15)?;
    let started: Option<String> = r.get(16)?;
    let ended: Option<String> = r.get(17)?;
    let source_line: Option<i64> = r.get(8)?;
    let (name, method, url, has_secrets, profile) =
        (r.get(2)?, r.get(3)?, r.get(4)?, r.get(6)?, r.get(7)?);
    let (attempts, last_status, error_kind, reason, run_id) =
        (r.get(10)?, r.get(11)?, r.get(12)?, r.get(13)?, r.get(14)?);
    Ok((|| {
        let at = |t: &str| time(t, &batch_id).map_err(BatchError::from);
        Ok(BatchItemRecord {
            position: u64::try_from(position).unwrap_or(0),
            name,
            method,
            url,
            request: decode(&request, &batch_id, "request")?,
            has_secrets,
            profile,
            source_line: source_line.and_then(|l| u64::try_from(l).ok()),
            state: BatchItemState::from_id(&state).ok_or_else(|| BatchError::Decode {
                id: batch_id.clone(),
                message: format!("unknown item state `{state}`"),
            })?,
            attempts,
            last_status,
            error_kind,
            reason,
            run_id,
            queued_at: at(&queued)?,
            started_at: started.as_deref().map(at).transpose()?,
            ended_at: ended.as_deref().map(at).transpose()?,
            batch_id: batch_id.clone(),
        })
    })())
}
