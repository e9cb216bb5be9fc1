//! What `batch --resume` says before it re-sends items that were in flight when the batch
//! stopped: a non-idempotent item (POST, PATCH…) without an `Idempotency-Key` may have reached
//! the server already, so each is listed, and `--skip-interrupted` ends them `cancelled`
//! instead of sending them again.

use super::exit::CliError;
use crate::store::{BatchItemRecord, BatchQueue};

/// Most interrupted items looked at (the first 20 are listed one by one).
const LOOKED_AT: u64 = 10_000;

/// The items of batch `id` a resume would send again although they may have reached the
/// server: in flight when it stopped ([`BatchQueue::interrupted_items`]), a method that is
/// not idempotent, and no `Idempotency-Key` (neither the item's own nor the batch's,
/// `keys_on`).
///
/// # Errors
/// Exit 1 when the database cannot be read.
pub fn unsafe_to_resend(
    queue: &BatchQueue,
    id: &str,
    keys_on: bool,
) -> Result<Vec<BatchItemRecord>, CliError> {
    if keys_on {
        return Ok(Vec::new());
    }
    let items = queue
        .interrupted_items(id, LOOKED_AT)
        .map_err(|e| CliError::failed(e.to_string()))?;
    Ok(items
        .into_iter()
        .filter(|i| !crate::policy::is_idempotent(&i.method) && i.request.idempotency_key.is_none())
        .collect())
}

/// Says on stderr which items a resume of `id` sends again although they may have reached the
/// server, or, with `skip`, ends them `cancelled` and says so. Nothing when there are none.
///
/// # Errors
/// Exit 1 when the database cannot be read or written.
pub fn say_or_skip(
    queue: &mut BatchQueue,
    id: &str,
    keys_on: bool,
    skip: bool,
) -> Result<(), CliError> {
    let items = unsafe_to_resend(queue, id, keys_on)?;
    if items.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = items
        .iter()
        .map(|i| {
            format!(
                "  #{} {}",
                i.position + 1,
                crate::model::quote::quote_input(&i.label())
            )
        })
        .collect();
    let n = items.len();
    let (were, them) = if n == 1 {
        ("was", "it")
    } else {
        ("were", "them")
    };
    let listed =
        crate::service::batch_list_file::first_lines(lines.into_iter(), "item", "items").join("\n");
    if skip {
        let positions: Vec<u64> = items.iter().map(|i| i.position).collect();
        queue
            .skip_items(
                id,
                &positions,
                "not sent again: it was in flight when the batch stopped (--skip-interrupted)",
            )
            .map_err(|e| CliError::failed(e.to_string()))?;
        super::out::write_stderr(&format!(
            "{n} item{} in flight when the batch stopped {were} not idempotent; ending {them} cancelled instead of sending {them} again (--skip-interrupted):\n{listed}\n",
            if n == 1 { "" } else { "s" }
        ));
    } else {
        super::out::write_stderr(&format!(
            "{n} item{} in flight when the batch stopped {were} not idempotent and may have reached the server already; sending {them} again from attempt 1 (--skip-interrupted ends {them} cancelled instead):\n{listed}\n",
            if n == 1 { "" } else { "s" }
        ));
    }
    Ok(())
}
