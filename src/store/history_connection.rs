//! The history database's connections: the statement cache, the passive WAL checkpoint and
//! schema migration.

use super::history_schema::migrations;
use rusqlite::Connection;
use std::path::Path;

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
/// (`PRAGMA wal_checkpoint(PASSIVE)`: never blocks the store actor or readers), so the fsyncs
/// of a checkpoint happen off the actor's thread and no commit waits for them.
pub(crate) struct Checkpointer(Connection);

impl Checkpointer {
    /// Opens `path` (an existing database, already in WAL mode).
    ///
    /// # Errors
    /// [`super::HistoryError::Open`].
    pub(crate) fn open(path: &Path) -> Result<Self, super::HistoryError> {
        let conn = Connection::open(path).map_err(|e| super::HistoryError::Open {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(1))
            .map_err(super::history::sql("set the busy timeout"))?;
        Ok(Self(conn))
    }

    /// One passive checkpoint (what is not copied now is copied next time); returns the frames
    /// the WAL held when it began (0: nothing to copy).
    ///
    /// # Errors
    /// [`super::HistoryError::Sql`].
    pub(crate) fn checkpoint(&self) -> Result<i64, super::HistoryError> {
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
pub(super) fn passive_checkpoint(conn: &Connection) -> Result<i64, super::HistoryError> {
    // The pragma's row: busy (1 when another checkpoint held the lock), frames in the WAL as
    // this checkpoint saw it, frames copied back (-1, -1 outside WAL mode).
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
        .map_err(super::history::sql("checkpoint the WAL"))
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
        // SQLite's busy handler waits (up to 5 s) for the lock, then the write commits.
        assert_eq!(
            waiter
                .prune_before(chrono::Utc::now().fixed_offset())
                .unwrap(),
            0
        );
        released.join().unwrap();
    }
}
