//! What `batch list` and `batch show` print, and the failed items under a batch's summary.

use super::exit::{self, CliError};
use crate::model::BatchItemState;
use crate::store::{BatchError, BatchItemRecord, BatchQueue, BatchRecord};

/// Items read from the database at a time while printing.
const PAGE: u64 = 1000;

fn failed(e: &BatchError) -> CliError {
    match e {
        BatchError::NotFound(_) | BatchError::Ambiguous(_) | BatchError::ShortId(_) => {
            CliError::usage(e.to_string())
        }
        _ => CliError::failed(e.to_string()),
    }
}

/// `batch list`: one line (or JSON object) per batch, newest first, with its state word
/// ([`crate::model::BatchState`]: working, paused, interrupted, queued, finished, cancelled).
///
/// # Errors
/// Exit 1 when the database cannot be read.
pub fn list(queue: &BatchQueue, limit: u32, json: bool) -> Result<u8, CliError> {
    let batches = queue.list(limit).map_err(|e| failed(&e))?;
    if batches.is_empty() && !json {
        crate::cli_outln!("no batches yet (queue one with `retryscope batch FILE`)");
    }
    for b in &batches {
        if json {
            crate::cli_outln!("{}", batch_json(b));
        } else {
            crate::cli_outln!(
                "{}  {}  {:<11}  {}  {}: {}{}",
                b.id,
                b.created_at.format("%Y-%m-%d %H:%M:%S"),
                b.state(false).word(),
                b.profile_name,
                crate::model::counted(b.counts.total(), "item", "items"),
                b.counts.summary(),
                b.source
                    .as_ref()
                    .map(|s| format!("  {s}"))
                    .unwrap_or_default()
            );
        }
    }
    Ok(exit::SUCCESS)
}

fn batch_json(b: &BatchRecord) -> serde_json::Value {
    serde_json::json!({
        "id": b.id,
        "created_at": b.created_at.to_rfc3339(),
        "source": b.source,
        "profile": b.profile_name,
        "options": b.options,
        "counts": b.counts,
        "state": b.state(false).word(),
    })
}

/// `batch show ID`: the batch's options and counts, then one line (or JSON object) per item.
///
/// # Errors
/// Exit 2 for an unknown or ambiguous id; exit 1 when the database cannot be read.
pub fn show(
    queue: &BatchQueue,
    id: &str,
    state: Option<BatchItemState>,
    json: bool,
) -> Result<u8, CliError> {
    let b = queue.batch(id).map_err(|e| failed(&e))?;
    if json {
        crate::cli_outln!("{}", batch_json(&b));
    } else {
        crate::cli_outln!("batch {}", b.id);
        crate::cli_outln!("created {}", b.created_at.to_rfc3339());
        if let Some(source) = &b.source {
            crate::cli_outln!("list    {source}");
        }
        crate::cli_outln!("profile {}", b.profile_name);
        crate::cli_outln!(
            "options concurrency {}, rate per host {}, {}",
            b.options.concurrency,
            b.options
                .rate_per_host
                .map_or_else(|| "unlimited".to_owned(), |r| format!("{r}/s")),
            crate::model::counted(b.options.assertions.len() as u64, "assertion", "assertions")
        );
        crate::cli_outln!("items   {}: {}", b.counts.total(), b.counts.summary());
    }
    each_item(queue, &b.id, state, |item| {
        if json {
            crate::cli_outln!("{}", item_json(item));
        } else {
            crate::cli_outln!("{}", item_line(item));
        }
    })?;
    Ok(exit::SUCCESS)
}

/// `batch delete ID`: deletes the batch (refused while a process works it); `keyring` opens
/// the secret store, asked only when items of the batch kept secrets there.
///
/// # Errors
/// Exit 2 for an unknown or ambiguous id; exit 1 while the batch is worked, or when the
/// database or the keyring refuses the delete.
pub fn delete(
    queue: &mut BatchQueue,
    id: &str,
    keyring: &dyn Fn() -> std::sync::Arc<dyn crate::store::SecretStore>,
) -> Result<u8, CliError> {
    let b = queue.batch(id).map_err(|e| failed(&e))?;
    if queue.secret_items(&b.id).map_err(|e| failed(&e))? > 0 {
        queue.use_secrets(keyring());
    }
    let items = queue.delete(&b.id).map_err(|e| failed(&e))?;
    crate::cli_outln!(
        "deleted batch {} ({}); the runs its items made stay in the history",
        b.id,
        crate::model::counted(items, "item", "items")
    );
    Ok(exit::SUCCESS)
}

/// The items in `error` and `cancelled` of batch `batch_id`, one line each (under a summary).
///
/// # Errors
/// Exit 1 when the database cannot be read.
pub fn print_failed(queue: &BatchQueue, batch_id: &str) -> Result<(), CliError> {
    for state in [BatchItemState::Error, BatchItemState::Cancelled] {
        each_item(queue, batch_id, Some(state), |item| {
            crate::cli_outln!("{}", item_line(item));
        })?;
    }
    Ok(())
}

fn each_item(
    queue: &BatchQueue,
    batch_id: &str,
    state: Option<BatchItemState>,
    mut f: impl FnMut(&BatchItemRecord),
) -> Result<(), CliError> {
    let mut offset = 0;
    loop {
        let page = queue
            .items(batch_id, state, offset, PAGE)
            .map_err(|e| failed(&e))?;
        page.iter().for_each(&mut f);
        if (page.len() as u64) < PAGE {
            return Ok(());
        }
        offset += PAGE;
    }
}

/// `#12  error      3 attempts  503  GET http://…  gave up after 3 attempts (503)  run 019a…`.
fn item_line(item: &BatchItemRecord) -> String {
    let result = match (&item.last_status, &item.error_kind) {
        (Some(s), _) => s.to_string(),
        (None, Some(kind)) => kind.clone(),
        (None, None) => "-".to_owned(),
    };
    let mut line = format!(
        "#{:<5} {:<9} {:>2} attempt{} {:<8} {}",
        // Counted from 1, as the list's lines and the reports count.
        item.position + 1,
        item.state.id(),
        item.attempts,
        if item.attempts == 1 { " " } else { "s" },
        result,
        // Names and reasons come from the list file and the server: never drive the terminal.
        super::mask::escape_controls(&item.label())
    );
    if let Some(reason) = &item.reason {
        line.push_str("  ");
        line.push_str(&super::mask::escape_controls(reason));
    }
    if let Some(run) = &item.run_id {
        line.push_str("  run ");
        line.push_str(run);
    }
    line
}

fn item_json(item: &BatchItemRecord) -> serde_json::Value {
    serde_json::json!({
        "batch_id": item.batch_id,
        "position": item.position + 1,
        "name": item.name,
        "method": item.method,
        "url": item.url,
        "profile": item.profile,
        "source_line": item.source_line,
        "state": item.state,
        "attempts": item.attempts,
        "last_status": item.last_status,
        "error_kind": item.error_kind,
        "reason": item.reason,
        "run_id": item.run_id,
        "queued_at": item.queued_at.to_rfc3339(),
        "started_at": item.started_at.map(|t| t.to_rfc3339()),
        "ended_at": item.ended_at.map(|t| t.to_rfc3339()),
    })
}
