//! Cancelling a batch that no runner works (the Batch tab's list of earlier batches): a batch
//! paused from the CLI, or left by a process that was killed.

use crate::store::BatchQueue;

/// Cancels every `pending` item of batch `id` and those a dead process left `running`; returns
/// how many. The batch is claimed for the change and given up after it, so a batch another live
/// process works is refused.
///
/// # Errors
/// What and which batch, ready to show: not found, worked by another process, SQL errors.
pub fn cancel_queued(queue: &mut BatchQueue, id: &str) -> Result<u64, String> {
    let batch = queue.batch(id).map_err(|e| e.to_string())?;
    // Claiming puts items a dead process left `running` back to `pending`.
    queue.claim(&batch.id, None).map_err(|e| e.to_string())?;
    let cancelled = queue.cancel_pending(&batch.id);
    let released = queue.release(&batch.id);
    let cancelled = cancelled.map_err(|e| e.to_string())?;
    released.map_err(|e| e.to_string())?;
    Ok(cancelled)
}
