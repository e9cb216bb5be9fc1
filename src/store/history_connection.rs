//! The history database's connections: waiting for another connection's write lock, the
//! statement cache, the passive WAL checkpointer and schema migration.

use super::history::{BUSY_TIMEOUT, sql};
use super::history_error::HistoryError;
use super::history_schema::migrations;
use rusqlite::Connection;
use std::path::Path;

/// Tries of [`wait_for_lock`] 100 µs apart before it waits 1 ms between tries.
pub(super) const SHORT_LOCK_TRIES: i32 = 50;

/// Whether to try again for a write lock another connection holds, after waiting: 100 µs for
/// the first [`SHORT_LOCK_TRIES`] tries (about 5 ms), then 1 ms, up to [`BUSY_TIMEOUT`] in all
/// (counted in tries, so a loaded machine waits longer, never less). SQLite's own handler
/// sleeps 1, 2, 5, 10 … ms, far longer than a group commit holds the lock; the batch runner's
/// coordinator, which waits on a tokio worker, paid for that on every contended item
/// (BENCHMARKS.md "Batch runner").
pub(super) fn wait_for_lock(tries: i32) -> bool {
    let long_tries =
        i32::try_from(BUSY_TIMEOUT.as_millis()).unwrap_or(i32::MAX) - SHORT_LOCK_TRIES / 10;
    if tries < SHORT_LOCK_TRIES {
        std::thread::sleep(std::time::Duration::from_micros(100));
        true
    } else if tries - SHORT_LOCK_TRIES < long_tries {
        std::thread::sleep(std::time::Duration::from_millis(1));
        true
    } else {
        false
    }
}

/// Makes `conn` wait for another connection's write lock with [`wait_for_lock`].
pub(super) fn set_busy_wait(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_handler(Some(wait_for_lock))
}

/// Runs `sql` through the connection's statement cache (parsed once per connection, not per
/// write: the writer runs the same few statements thousands of times).
pub(super) fn exec<P: rusqlite::Params>(
    conn: &Connection,
    sql: &str,
    params: P,
) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// A second connection to a history database that only copies the WAL back into the database
/// (`PRAGMA wal_checkpoint(PASSIVE)`: never blocks the writer or readers), so the fsync that
/// costs happens off the writer's thread.
pub(crate) struct Checkpointer(Connection);

impl Checkpointer {
    /// Opens `path` (an existing database, already in WAL mode).
    ///
    /// # Errors
    /// [`HistoryError::Open`].
    pub(crate) fn open(path: &Path) -> Result<Self, HistoryError> {
        let conn = Connection::open(path).map_err(|e| HistoryError::Open {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(1))
            .map_err(sql("set the busy timeout"))?;
        Ok(Self(conn))
    }

    /// One passive checkpoint (what is not copied now is copied next time); returns the frames
    /// the WAL held when it began (0: nothing to copy). See [`passive_checkpoint`].
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub(crate) fn checkpoint(&self) -> Result<i64, HistoryError> {
        passive_checkpoint(&self.0)
    }
}

/// WAL pages after which a commit of a one-shot process copies the WAL back into the database
/// (SQLite's default is 1,000). Each process that opens the database reads the whole WAL to
/// rebuild its index, so it is kept short: 128 pages (512 KiB at 4 KiB pages) is a few dozen
/// recorded runs.
pub(crate) const ONE_SHOT_CHECKPOINT_PAGES: i64 = 128;

/// See [`super::HistoryStore::leave_checkpoints_to_later_processes`].
pub(super) fn leave_checkpoints_to_later_processes(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    conn.pragma_update(None, "wal_autocheckpoint", ONE_SHOT_CHECKPOINT_PAGES)
}

/// A passive checkpoint on `conn` (never waits for the writer or readers; with `synchronous =
/// NORMAL` it syncs the WAL before the copy and the database after it); returns the frames the
/// WAL held when it began. Frames committed meanwhile are left for the next one.
pub(super) fn passive_checkpoint(conn: &Connection) -> Result<i64, HistoryError> {
    // The pragma's row: busy (1 when another checkpoint held the lock), frames in the WAL as
    // this checkpoint saw it, frames copied back (-1, -1 outside WAL mode).
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
        .map_err(sql("checkpoint the WAL"))
}

/// Whether `e` is SQLite's "busy" / "locked" (another connection holds the lock).
pub(super) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Brings the schema up to date. Two processes opening a new database at once can both see
/// version 0 and race to create the tables; the loser's transaction fails, and its retry finds
/// the schema current. A few retries, 50 ms apart, settle that (opening is never on the UI thread).
pub(super) fn migrate(conn: &mut Connection) -> Result<(), rusqlite_migration::Error> {
    let mut tries = 0;
    loop {
        match migrations().to_latest(conn) {
            Ok(()) => return Ok(()),
            Err(_) if tries < 10 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod lock_wait_tests {
    use super::{SHORT_LOCK_TRIES, wait_for_lock};
    use crate::store::history::BUSY_TIMEOUT;

    #[test]
    fn the_lock_wait_stops_after_the_busy_timeout_counted_in_tries() {
        // 50 short tries of 100 µs (5 ms) and 1 ms tries for the rest of the 5 s.
        let last = SHORT_LOCK_TRIES + i32::try_from(BUSY_TIMEOUT.as_millis()).unwrap()
            - SHORT_LOCK_TRIES / 10
            - 1;
        assert!(wait_for_lock(0));
        assert!(wait_for_lock(SHORT_LOCK_TRIES));
        assert!(wait_for_lock(last));
        assert!(!wait_for_lock(last + 1));
        assert!(!wait_for_lock(i32::MAX));
    }

    #[test]
    fn a_write_waits_for_another_connections_lock_and_then_commits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite3");
        let holder = crate::store::HistoryStore::open(&path).unwrap();
        let mut waiter = crate::store::HistoryStore::open(&path).unwrap();
        holder.conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        let released = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            holder.conn.execute_batch("COMMIT").unwrap();
        });
        // Past the short tries (30 ms > 5 ms): the write still gets the lock once it is free.
        assert_eq!(
            waiter
                .prune_before(chrono::Utc::now().fixed_offset())
                .unwrap(),
            0
        );
        released.join().unwrap();
    }
}
