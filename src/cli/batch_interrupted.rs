//! What `batch --resume` says before it re-sends items that were in flight when the batch
//! stopped: a non-idempotent item (POST, PATCH…) without an `Idempotency-Key` may have reached
//! the server already, so each is listed, and `--skip-interrupted` ends them `cancelled`
//! instead of sending them again.

use super::exit::CliError;
use crate::store::BatchQueue;

/// Most interrupted items looked at (the first 20 are listed one by one).
const LOOKED_AT: u64 = 10_000;

/// Says on stderr which items a resume of `id` sends again although they may have reached the
/// server, or, with `skip`, ends them `cancelled` and says so. Nothing when there are none.
///
/// # Errors
/// Exit 1 when the database cannot be read or written.
pub fn say_or_skip(queue: &mut BatchQueue, id: &str, skip: bool) -> Result<(), CliError> {
    let items = queue
        .unsafe_to_resend(id, LOOKED_AT)
        .map_err(|e| CliError::failed(e.to_string()))?;
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
