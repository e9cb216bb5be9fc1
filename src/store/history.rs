//! The run history: one SQLite database `history.sqlite3` in the data folder (WAL mode), with
//! the records of DESIGN.md §10. Written by one thread ([`super::HistoryWriter`]); read by the
//! CLI's `history` commands. The only module (with its siblings `history_*`) that uses SQLite.

use super::advisory_lock::{WriterLock, writer_is_alive};
pub(crate) use super::history_connection::Checkpointer;
use super::history_connection::{exec, is_busy, migrate};
use super::history_error::{HistoryError, io_open_reason, sqlite_open_reason};
use super::history_records::{AttemptRecord, HistoryWrite, RunFilter, RunRecord, StoredRun};
pub(super) use super::history_rows::time;
use super::history_rows::{RUN_COLUMNS, attempt_row, attempt_statements, encode, run_row};
use super::outcome_filter::OutcomeFilter;
use super::private_files::{create_private_dir_all, make_private, open_private_append};
use super::url_filter::url_like_patterns;
use crate::model::OutcomeKind;
use chrono::{DateTime, FixedOffset};
use rusqlite::{Connection, OptionalExtension, params};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// File name of the history database inside the data folder.
pub const HISTORY_FILE: &str = "history.sqlite3";

/// How long a connection waits for another's lock before SQLite says "database is locked".
pub(super) const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Default cap on the response body kept per attempt, bytes (64 KiB).
pub const DEFAULT_BODY_CAP: usize = 64 * 1024;

/// An open history database.
#[derive(Debug)]
pub struct HistoryStore {
    pub(super) conn: Connection,
    path: PathBuf,
    /// The `profiles` ids of the profiles this connection wrote last, most recent first (at
    /// most [`PROFILE_MEMO`]): a run of one of them is inserted without encoding its profile.
    profile_ids: Vec<(Arc<serde_json::Value>, i64)>,
    /// Held from this connection's first recorded run on: says to other processes that the
    /// runs this process left without an outcome are still being written.
    writer_lock: Option<WriterLock>,
}

/// How many profiles [`HistoryStore`] remembers the `profiles` id of.
const PROFILE_MEMO: usize = 8;

impl HistoryStore {
    /// Opens (creating it and its folder if needed) `history.sqlite3` in `data_dir`.
    ///
    /// # Errors
    /// See [`Self::open`].
    pub fn open_in(data_dir: &Path) -> Result<Self, HistoryError> {
        Self::open(&data_dir.join(HISTORY_FILE))
    }

    /// Opens the database at `path`: WAL mode, foreign keys on, migrations applied, and runs
    /// left without an end by a process that is gone marked `interrupted`.
    ///
    /// # Errors
    /// [`HistoryError::Open`] when the folder cannot be created or the file is not a usable
    /// database; [`HistoryError::Migrate`] when its schema cannot be brought up to date.
    pub fn open(path: &Path) -> Result<Self, HistoryError> {
        let open_err = |message: String| HistoryError::Open {
            path: path.to_path_buf(),
            message,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir_all(dir)
                .map_err(|e| open_err(io_open_reason("create its folder", &e)))?;
        }
        // Bodies are kept: the database is the user's alone (`0600` on Unix). SQLite gives its
        // `-wal` and `-shm` files the database's mode; files of older versions are tightened.
        open_private_append(path).map_err(|e| open_err(io_open_reason("open the file", &e)))?;
        for suffix in ["", "-wal", "-shm"] {
            let mut file = path.as_os_str().to_owned();
            file.push(suffix);
            make_private(Path::new(&file))
                .map_err(|e| open_err(io_open_reason("make it private", &e)))?;
        }
        let mut conn = Connection::open(path).map_err(|e| open_err(sqlite_open_reason(&e)))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| open_err(sqlite_open_reason(&e)))?;
        // Switching to WAL takes an exclusive lock, for which SQLite does not wait on the busy
        // handler: another process creating the same new database at this moment makes it fail
        // with "database is locked" at once. Retry for up to 2 s (opening is never on the UI thread).
        let mut tries = 0;
        loop {
            let set = conn
                .pragma_update(None, "journal_mode", "WAL")
                .and_then(|()| conn.pragma_update(None, "synchronous", "NORMAL"))
                .and_then(|()| conn.pragma_update(None, "foreign_keys", "ON"));
            match set {
                Ok(()) => break,
                Err(e) if tries < 40 && is_busy(&e) => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(e) => return Err(open_err(sqlite_open_reason(&e))),
            }
        }
        // Every statement this store runs stays prepared (the writer's ~15 among them), so the
        // cache never evicts one to parse it again (rusqlite keeps 16 by default).
        conn.set_prepared_statement_cache_capacity(64);
        migrate(&mut conn).map_err(|e| HistoryError::Migrate {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let mut store = Self {
            conn,
            path: path.to_path_buf(),
            profile_ids: Vec::new(),
            writer_lock: None,
        };
        store.mark_interrupted()?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stops this connection from checkpointing the WAL inside its commits (SQLite's default
    /// every 1000 pages, which syncs the database inside the committing write): the store
    /// actor's [`Checkpointer`] does it on a thread of its own.
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub(crate) fn take_over_checkpoints(&self) -> Result<(), HistoryError> {
        self.conn
            .pragma_update(None, "wal_autocheckpoint", 0)
            .and_then(|()| {
                self.conn
                    .pragma_update(None, "journal_size_limit", 64 * 1024 * 1024)
            })
            .map_err(sql("set the checkpoint mode"))
    }

    /// For a process that writes a run or two and ends: closing this connection does not copy
    /// the WAL back into the database (SQLite's checkpoint at close, with its fsyncs), and
    /// commits copy it once it holds
    /// [`super::history_connection::ONE_SHOT_CHECKPOINT_PAGES`] pages, so that copy is paid
    /// once every few dozen runs, by whichever process commits then (the window's checkpoint
    /// thread copies it too). The WAL file stays between processes, so no process pays for
    /// creating it (an fsync of its header and one of the folder).
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub(crate) fn leave_checkpoints_to_later_processes(&self) -> Result<(), HistoryError> {
        super::history_connection::leave_checkpoints_to_later_processes(&self.conn)
            .map_err(sql("set the checkpoint mode"))
    }

    /// Copies the WAL frames the [`Checkpointer`] left (those committed while it ran) back into
    /// the database between two of the actor's commits, and starts the WAL over when no reader
    /// is in it (`PRAGMA wal_checkpoint(RESTART)` without waiting: with a reader or another
    /// connection's write in progress it does what a passive checkpoint does, and the next
    /// catch-up tries again). Under a steady stream of commits the checkpoint thread alone
    /// never empties the WAL (each of its checkpoints leaves the frames written during its
    /// fsyncs), so it only grew. Costs the leftover frames' copy and two fsyncs.
    ///
    /// # Errors
    /// [`HistoryError::Sql`]; the lock wait is back to [`BUSY_TIMEOUT`] either way.
    pub(crate) fn catch_up_checkpoint(&self) -> Result<(), HistoryError> {
        self.conn
            .busy_timeout(std::time::Duration::ZERO)
            .map_err(sql("set the busy timeout"))?;
        let checkpoint = self
            .conn
            .query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()))
            .map_err(sql("checkpoint the WAL"));
        self.conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(sql("set the busy timeout"))?;
        checkpoint
    }

    /// The data folder (the database's folder).
    pub(super) fn data_dir(&self) -> &Path {
        self.path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
    }

    /// Marks `interrupted` every run without an outcome whose writing process is gone (nobody
    /// holds its writer lock `locks/writer-PID.lock`); returns how many. Runs of a live process
    /// (another `retryscope run` now) are left alone.
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn mark_interrupted(&mut self) -> Result<usize, HistoryError> {
        let open: Vec<(String, Option<i64>)> = query_rows(
            &self.conn,
            "SELECT id, writer_pid FROM runs WHERE outcome IS NULL",
            [],
            "list unfinished runs",
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let mut marked = 0;
        for (id, pid) in open {
            if pid.is_some_and(|pid| writer_is_alive(self.data_dir(), pid)) {
                continue;
            }
            marked += self
                .conn
                .execute(
                    // An attempt cut off mid-flight counts as made, as the engine counts it.
                    "UPDATE runs SET outcome = ?2, outcome_message = ?3,
                         attempts = MAX(attempts, COALESCE(started_attempt, 0))
                         WHERE id = ?1 AND outcome IS NULL",
                    params![
                        id,
                        OutcomeKind::Interrupted.id(),
                        "interrupted: the process ended before the run finished"
                    ],
                )
                .map_err(sql("mark a run interrupted"))?;
        }
        Ok(marked)
    }

    /// Applies `writes` in order in one transaction (all or nothing): the writer's group commit
    /// of writes that queued up meanwhile, imports, and building large test databases fast.
    ///
    /// # Errors
    /// As [`Self::apply`]; nothing is kept then.
    pub fn apply_all<'a>(
        &mut self,
        writes: impl IntoIterator<Item = &'a HistoryWrite>,
    ) -> Result<(), HistoryError> {
        self.begin()?;
        if let Err(e) = self.apply_in_transaction(writes) {
            self.roll_back();
            return Err(e);
        }
        self.commit()
    }

    /// Opens a write transaction (`BEGIN IMMEDIATE`) for [`Self::apply_in_transaction`] and
    /// more (the writer adds a batch's item changes to it).
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub(super) fn begin(&self) -> Result<(), HistoryError> {
        // From the statement cache: a group commit parses no SQL.
        exec(&self.conn, "BEGIN IMMEDIATE", []).map_err(sql("begin"))?;
        Ok(())
    }

    /// Commits the transaction [`Self::begin`] opened; rolls it back when that fails.
    ///
    /// # Errors
    /// [`HistoryError::Sql`]; nothing is kept then.
    pub(super) fn commit(&mut self) -> Result<(), HistoryError> {
        if let Err(e) = exec(&self.conn, "COMMIT", []) {
            self.roll_back();
            return Err(sql("commit a batch")(e));
        }
        Ok(())
    }

    /// Applies `writes` in order inside the transaction [`Self::begin`] opened (the caller
    /// commits, or rolls back on an error).
    ///
    /// # Errors
    /// As [`Self::apply`].
    pub(super) fn apply_in_transaction<'a>(
        &mut self,
        writes: impl IntoIterator<Item = &'a HistoryWrite>,
    ) -> Result<(), HistoryError> {
        // Runs inserted by this group, with the attempt count their row already holds (the
        // writer's `merge_group` puts it there): their attempts need no count update.
        let mut counted: Vec<(&str, u32)> = Vec::new();
        for w in writes {
            match w {
                HistoryWrite::RunStarted(run) => {
                    counted.push((&run.id, run.attempts));
                    self.apply(w)
                }
                HistoryWrite::AttemptFinished(a)
                    if counted
                        .iter()
                        .any(|(id, n)| *id == a.run_id && *n >= a.number) =>
                {
                    attempt_statements(&self.conn, a, false)
                }
                _ => self.apply(w),
            }?;
        }
        Ok(())
    }

    /// Rolls the open transaction back; the profile ids it may have made are forgotten.
    pub(super) fn roll_back(&mut self) {
        let _ = self.conn.execute_batch("ROLLBACK");
        self.profile_ids.clear();
    }

    /// The `profiles` id of `profile`, inserting it if it is new (step 5 of the schema). The
    /// profiles written last are remembered, so a run of one of them costs a comparison, not
    /// an encoding and a lookup.
    fn profile_id(&mut self, profile: &Arc<serde_json::Value>) -> Result<i64, HistoryError> {
        // The writer hands runs of one profile the same value: its address is found first,
        // without comparing the JSON.
        let at = self
            .profile_ids
            .iter()
            .position(|(p, _)| Arc::ptr_eq(p, profile))
            .or_else(|| self.profile_ids.iter().position(|(p, _)| p == profile));
        if let Some(i) = at {
            let hit = self.profile_ids.remove(i);
            let id = hit.1;
            self.profile_ids.insert(0, hit);
            return Ok(id);
        }
        let json = encode(profile)?;
        exec(
            &self.conn,
            "INSERT OR IGNORE INTO profiles (json) VALUES (?1)",
            [&json],
        )
        .map_err(sql("insert a profile"))?;
        let id: i64 = self
            .conn
            .prepare_cached("SELECT id FROM profiles WHERE json = ?1")
            .and_then(|mut stmt| stmt.query_row([&json], |r| r.get(0)))
            .map_err(sql("find a profile"))?;
        self.profile_ids.insert(0, (Arc::clone(profile), id));
        self.profile_ids.truncate(PROFILE_MEMO);
        Ok(id)
    }

    /// Applies one change, committed before this returns.
    ///
    /// # Errors
    /// [`HistoryError::Sql`] (e.g. an attempt of an unknown run), [`HistoryError::Encode`].
    pub fn apply(&mut self, write: &HistoryWrite) -> Result<(), HistoryError> {
        match write {
            HistoryWrite::RunStarted(run) => self.insert_run(run),
            HistoryWrite::AttemptFinished(a) => self.insert_attempt(a),
            HistoryWrite::AttemptStarted { run_id, start } => {
                exec(
                    &self.conn,
                    "UPDATE runs SET started_attempt = ?2, started_attempt_at = ?3,
                         started_attempt_offset_ms = ?4, started_attempt_method = ?5,
                         started_attempt_url = ?6 WHERE id = ?1",
                    params![
                        run_id,
                        start.number,
                        start.started_at.to_rfc3339(),
                        start.offset_ms,
                        start.method,
                        start.url
                    ],
                )
                .map_err(sql("record an attempt's start"))?;
                Ok(())
            }
            HistoryWrite::WaitPlanned {
                run_id,
                attempt,
                wait,
            } => {
                exec(
                    &self.conn,
                    "UPDATE attempts SET wait_planned_ms = ?3, wait_explanation = ?4,
                         wait_explanation_json = ?5, wait_offset_ms = ?6
                         WHERE run_id = ?1 AND number = ?2",
                    params![
                        run_id,
                        attempt,
                        i64::try_from(wait.planned_ms).unwrap_or(i64::MAX),
                        wait.explanation.text,
                        encode(&wait.explanation)?,
                        wait.offset_ms,
                    ],
                )
                .map_err(sql("record a wait"))?;
                Ok(())
            }
            HistoryWrite::BudgetChanged {
                run_id,
                attempt,
                change,
            } => {
                exec(
                    &self.conn,
                    "UPDATE attempts SET
                         budget_json = json_insert(COALESCE(budget_json, '[]'), '$[#]', json(?3)),
                         budget_before = COALESCE(budget_before, ?4), budget_after = ?5
                         WHERE run_id = ?1 AND number = ?2",
                    params![
                        run_id,
                        attempt,
                        encode(change)?,
                        change.before,
                        change.after
                    ],
                )
                .map_err(sql("record a budget change"))?;
                Ok(())
            }
            HistoryWrite::WaitFinished {
                run_id,
                attempt,
                measured_ms,
                skipped,
            } => {
                exec(
                    &self.conn,
                    "UPDATE attempts SET wait_measured_ms = ?3, wait_skipped = ?4
                         WHERE run_id = ?1 AND number = ?2",
                    params![run_id, attempt, measured_ms, skipped],
                )
                .map_err(sql("record a wait's end"))?;
                Ok(())
            }
            HistoryWrite::RunFinished(end) => {
                exec(
                    &self.conn,
                    "UPDATE runs SET ended_at = ?2, outcome = ?3, outcome_message = ?4,
                         last_status = ?5, attempts = ?6, elapsed_ms = ?7 WHERE id = ?1",
                    params![
                        end.run_id,
                        end.ended_at.to_rfc3339(),
                        end.outcome.id(),
                        end.message,
                        end.last_status,
                        end.attempts,
                        end.elapsed_ms
                    ],
                )
                .map_err(sql("finish a run"))?;
                Ok(())
            }
        }
    }

    fn insert_run(&mut self, run: &RunRecord) -> Result<(), HistoryError> {
        if self.writer_lock.is_none() {
            // Without it another process would take this run for one left by a dead process.
            let lock = WriterLock::take(self.data_dir()).map_err(|message| HistoryError::Sql {
                action: "record a run",
                message,
            })?;
            self.writer_lock = Some(lock);
        }
        let profile_id = self.profile_id(&run.profile)?;
        exec(
            &self.conn,
            "INSERT INTO runs (id, started_at, started_unix_ms, ended_at, app_version, method,
                 url, request_json, profile_name, profile_json, profile_id, seed, outcome,
                 outcome_message, last_status, attempts, elapsed_ms, batch_item_id, writer_pid,
                 started_attempt, started_attempt_at, started_attempt_offset_ms,
                 started_attempt_method, started_attempt_url, watch_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, '', ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                 ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)",
            params![
                run.id,
                run.started_at.to_rfc3339(),
                run.started_at.timestamp_millis(),
                run.ended_at.map(|t| t.to_rfc3339()),
                run.app_version,
                run.method,
                run.url,
                encode(&run.request)?,
                run.profile_name,
                profile_id,
                run.seed.to_string(),
                run.outcome.map(OutcomeKind::id),
                run.outcome_message,
                run.last_status,
                run.attempts,
                run.elapsed_ms,
                run.batch_item_id,
                std::process::id(),
                run.attempt_started.as_ref().map(|a| a.number),
                run.attempt_started
                    .as_ref()
                    .map(|a| a.started_at.to_rfc3339()),
                run.attempt_started.as_ref().map(|a| a.offset_ms),
                run.attempt_started.as_ref().map(|a| a.method.as_str()),
                run.attempt_started.as_ref().map(|a| a.url.as_str()),
                run.watch_id,
            ],
        )
        .map_err(sql("insert a run"))?;
        Ok(())
    }

    fn insert_attempt(&mut self, a: &AttemptRecord) -> Result<(), HistoryError> {
        // Inside [`Self::apply_all`]'s transaction (which rolls back whole on an error) the two
        // statements are part of it; alone, a savepoint makes them one commit.
        if !self.conn.is_autocommit() {
            return attempt_statements(&self.conn, a, true);
        }
        let tx = self.conn.savepoint().map_err(sql("begin"))?;
        attempt_statements(&tx, a, true)?;
        tx.commit().map_err(sql("commit an attempt"))
    }

    /// Runs matching `filter`, newest first (attempts not loaded: `attempts` is empty).
    ///
    /// # Errors
    /// [`HistoryError::Sql`], [`HistoryError::Decode`] for a row this version cannot read.
    pub fn list(&self, filter: &RunFilter) -> Result<Vec<RunRecord>, HistoryError> {
        // Only the conditions that apply, so SQLite can use the indexes (an `?1 IS NULL OR …`
        // form makes it read every run).
        let mut conditions = Vec::new();
        let mut values: Vec<rusqlite::types::Value> = Vec::new();
        match filter.outcome {
            Some(OutcomeFilter::Ended(o)) => {
                values.push(o.id().to_owned().into());
                conditions.push(format!("outcome = ?{}", values.len()));
            }
            Some(OutcomeFilter::Running) => conditions.push("outcome IS NULL".to_owned()),
            None => {}
        }
        let patterns = url_like_patterns(filter.url_contains.as_deref().unwrap_or(""));
        if !patterns.is_empty() {
            let mut any = Vec::new();
            for pattern in patterns {
                values.push(pattern.into());
                any.push(format!("url LIKE ?{} ESCAPE '\\'", values.len()));
            }
            conditions.push(format!("({})", any.join(" OR ")));
        }
        values.push(filter.limit.map_or(-1, i64::from).into());
        let query = format!(
            "SELECT {RUN_COLUMNS} FROM runs {} {}
             ORDER BY started_unix_ms DESC, id DESC
             LIMIT ?{}",
            if conditions.is_empty() { "" } else { "WHERE" },
            conditions.join(" AND "),
            values.len()
        );
        query_decoded(
            &self.conn,
            &query,
            rusqlite::params_from_iter(values),
            ("list runs", "read a run"),
            run_row,
        )
    }

    /// The run `id` (a full id, or a prefix of at least 8 characters naming one run) with its
    /// attempts; `None` when there is none.
    ///
    /// # Errors
    /// [`HistoryError::Ambiguous`] for a prefix naming several runs; SQL and decode errors.
    pub fn run(&self, id: &str) -> Result<Option<StoredRun>, HistoryError> {
        let Some(id) = self.resolve_id(id)? else {
            return Ok(None);
        };
        let run = self
            .conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
                [&id],
                run_row,
            )
            .optional()
            .map_err(sql("read a run"))?;
        let Some(run) = run.transpose()? else {
            return Ok(None);
        };
        let attempts = query_decoded(
            &self.conn,
            "SELECT run_id, number, started_at, offset_ms, method, url, dns_ms, connect_ms,
                 tls_ms, sent_ms, first_byte_ms, done_ms, reused, outcome_json, hops_json,
                 timings_json, verdict_json, wait_planned_ms, wait_explanation_json,
                 wait_offset_ms, wait_measured_ms, wait_skipped, body_preview, budget_json,
                 status, response_reason, response_version, headers_json, body_total_bytes,
                 body_truncated
                 FROM attempts WHERE run_id = ?1 ORDER BY number",
            [&id],
            ("read attempts", "read an attempt"),
            attempt_row,
        )?;
        Ok(Some(StoredRun::read_back(run, attempts)))
    }

    /// The full id a user's `id` (full, or a unique prefix or suffix of ≥ 8 characters) names.
    fn resolve_id(&self, id: &str) -> Result<Option<String>, HistoryError> {
        let id = id.trim();
        if id.len() < 8 || !id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            return Ok(None);
        }
        let find = |query| {
            query_rows(
                &self.conn,
                query,
                [id.to_ascii_lowercase()],
                "find a run",
                |r| r.get(0),
            )
        };
        // A range on the primary key (ids are lowercase hex and `-`, all below `~`), so a
        // prefix is found through the index, not by reading every id.
        let mut found: Vec<String> =
            find("SELECT id FROM runs WHERE id >= ?1 AND id < ?1 || '~' LIMIT 2")?;
        if found.is_empty() {
            // A suffix (the random end of a UUID v7, as the window shows it): read every id.
            found = find("SELECT id FROM runs WHERE id LIKE '%' || ?1 LIMIT 2")?;
        }
        match found.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one.clone())),
            _ => Err(HistoryError::Ambiguous(id.to_owned())),
        }
    }

    /// Deletes the runs `ids` (full ids or unique prefixes) with their attempts; returns the
    /// ids deleted. Unknown ids are skipped (the caller reports them).
    ///
    /// # Errors
    /// SQL errors and [`HistoryError::Ambiguous`]; nothing is deleted then.
    pub fn delete(&mut self, ids: &[String]) -> Result<Vec<String>, HistoryError> {
        let mut full = Vec::new();
        for id in ids {
            if let Some(f) = self.resolve_id(id)? {
                full.push(f);
            }
        }
        let tx = self.conn.transaction().map_err(sql("begin"))?;
        for id in &full {
            tx.execute("DELETE FROM runs WHERE id = ?1", [id])
                .map_err(sql("delete a run"))?;
        }
        tx.commit().map_err(sql("commit deletes"))?;
        Ok(full)
    }

    /// Of `ids` (full ids or unique prefixes), the full ids of runs still being recorded: no
    /// outcome yet, their process alive (runs of a dead process were marked `interrupted`
    /// when this store was opened).
    ///
    /// # Errors
    /// SQL errors and [`HistoryError::Ambiguous`].
    pub fn live_among(&self, ids: &[String]) -> Result<Vec<String>, HistoryError> {
        let mut live = Vec::new();
        for id in ids {
            let Some(full) = self.resolve_id(id)? else {
                continue;
            };
            let open: bool = self
                .conn
                .query_row(
                    "SELECT outcome IS NULL FROM runs WHERE id = ?1",
                    [&full],
                    |r| r.get(0),
                )
                .map_err(sql("read a run"))?;
            if open {
                live.push(full);
            }
        }
        Ok(live)
    }

    /// How many runs started before `cutoff` (what [`Self::prune_before`] would delete).
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn count_before(&self, cutoff: DateTime<FixedOffset>) -> Result<usize, HistoryError> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM runs WHERE started_unix_ms < ?1",
                [cutoff.timestamp_millis()],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| usize::try_from(n).unwrap_or(0))
            .map_err(sql("count runs"))
    }

    /// Deletes every run that started before `cutoff`; returns how many.
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn prune_before(&mut self, cutoff: DateTime<FixedOffset>) -> Result<usize, HistoryError> {
        self.conn
            .execute(
                "DELETE FROM runs WHERE started_unix_ms < ?1",
                [cutoff.timestamp_millis()],
            )
            .map_err(sql("prune runs"))
    }
}

/// The rows `query` gives for `params` (through the statement cache), each read by `row`; a
/// failure to prepare, run or read is [`sql`]`(action)`'s error.
pub(super) fn query_rows<T, P: rusqlite::Params>(
    conn: &Connection,
    query: &str,
    params: P,
    action: &'static str,
    row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>, HistoryError> {
    let mut stmt = conn.prepare_cached(query).map_err(sql(action))?;
    let rows = stmt.query_map(params, row).map_err(sql(action))?;
    rows.collect::<Result<_, _>>().map_err(sql(action))
}

/// [`query_rows`] for rows `row` also decodes (SQL errors: [`sql`]`(action)` while preparing
/// and running, [`sql`]`(row_action)` while reading a row; a decode error is `row`'s own).
pub(super) fn query_decoded<T, E: From<HistoryError>, P: rusqlite::Params>(
    conn: &Connection,
    query: &str,
    params: P,
    (action, row_action): (&'static str, &'static str),
    row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<Result<T, E>>,
) -> Result<Vec<T>, E> {
    let mut stmt = conn.prepare_cached(query).map_err(sql(action))?;
    let rows = stmt.query_map(params, row).map_err(sql(action))?;
    rows.map(|r| r.map_err(|e| E::from(sql(row_action)(e))).and_then(|r| r))
        .collect()
}

/// The error of `action`: SQLite's words, or [`HistoryError::Locked`] for a lock another
/// connection held past [`BUSY_TIMEOUT`].
pub(super) fn sql(action: &'static str) -> impl Fn(rusqlite::Error) -> HistoryError {
    move |e| {
        if is_busy(&e) {
            HistoryError::Locked(BUSY_TIMEOUT)
        } else {
            HistoryError::Sql {
                action,
                message: e.to_string(),
            }
        }
    }
}
