//! The SQL of a batch's item state changes, on a transaction someone else opened: the queue's
//! own group commit ([`super::BatchQueue::commit_changes`]) or the history writer's, which
//! commits an item's end together with its run's end ([`super::HistoryWriter::commit_batch`]).

use super::batch_error::BatchError;
use super::batch_records::ItemChange;
use super::history::sql;
use rusqlite::{Connection, params};

/// Makes `changes` to items of batch `batch_id` on `conn`, inside a transaction the caller
/// opened and commits (or rolls back on an error). Timestamps are taken once for the group.
///
/// # Errors
/// [`BatchError::WrongState`] when an item to mark `running` is not pending (the caller must
/// roll back: earlier changes of the group were made); SQL errors.
pub(super) fn apply_item_changes(
    conn: &Connection,
    batch_id: &str,
    changes: &[ItemChange<'_>],
) -> Result<(), BatchError> {
    let now = chrono::Local::now().fixed_offset().to_rfc3339();
    for change in changes {
        match *change {
            ItemChange::Running { position, run_id } => {
                let changed = conn
                    .prepare_cached(
                        "UPDATE batch_items SET state = 'running',
                         run_id = COALESCE(?3, run_id), attempts = 0, last_status = NULL,
                         error_kind = NULL, reason = NULL, started_at = ?4, ended_at = NULL
                         WHERE batch_id = ?1 AND position = ?2 AND state = 'pending'",
                    )
                    .and_then(|mut s| s.execute(params![batch_id, to_i64(position), run_id, now]))
                    .map_err(sql("mark an item running"))?;
                if changed != 1 {
                    return Err(BatchError::WrongState {
                        batch: batch_id.to_owned(),
                        position,
                        expected: "pending",
                    });
                }
            }
            ItemChange::Ended { position, end } => {
                let ended = end.state.is_final().then_some(now.as_str());
                conn.prepare_cached(
                    "UPDATE batch_items SET state = ?3, attempts = ?4, last_status = ?5,
                     error_kind = ?6, reason = ?7, ended_at = ?8
                     WHERE batch_id = ?1 AND position = ?2",
                )
                .and_then(|mut s| {
                    s.execute(params![
                        batch_id,
                        to_i64(position),
                        end.state.id(),
                        end.attempts,
                        end.last_status,
                        end.error_kind,
                        end.reason,
                        ended,
                    ])
                })
                .map_err(sql("finish an item"))?;
            }
        }
    }
    Ok(())
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
