//! The store part of a [`super::CoreLink`]: the window's batch commands
//! ([`super::CoreCommand::Batch`], over the [`BatchRunner`]) and history queries, served in the
//! order asked by one task on the core. One batch is worked at a time; pages of its items and
//! every other read or write of the queue are calls to the core's store actor, so neither the
//! table nor a tokio worker touches SQLite.

use super::batch_runner::{BatchControl, BatchRunner, BatchSummary};
use super::budget_registry::BudgetRegistry;
use super::history_queries::{HistoryReply, answer_unless_superseded};
use super::link::{CoreCommand, CoreEvent, Out, Queries};
use crate::interop::batch_list::OnBadLines;
use crate::model::{
    BatchCounts, BatchEvent, BatchItemState, BatchOptions, BatchWorker, RetryProfile,
};
use crate::store::{BatchItemRecord, BatchQueue, BatchRecord, HistoryWriter, SecretStore};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc;

/// Reads a list of requests (JSON Lines, CSV, curl, HAR) into batch requests with the notes to
/// show, or says which lines are malformed; the [`OnBadLines`] says whether malformed lines
/// refuse the list or are skipped, and an item naming a profile the lookup does not find is
/// such a line. The importers of `crate::interop` plug in here ([`super::read_batch_list`]).
pub type BatchImporter = Arc<
    dyn Fn(
            &Path,
            OnBadLines,
            &super::batch_runner::ProfileLookup,
        ) -> Result<super::ReadList, String>
        + Send
        + Sync,
>;

/// Capacity of the channel of the worked batch's events (runner → link).
pub const BATCH_CHANNEL: usize = 1024;

/// What the Batch tab asks for ([`super::CoreCommand::Batch`]).
#[derive(Debug, Clone)]
pub enum BatchCommand {
    /// Import `path` with the service's importer and queue it under `profile` and `options`.
    Import {
        /// The list file.
        path: PathBuf,
        /// The batch profile.
        profile: Box<RetryProfile>,
        /// Concurrency, rate per host, assertions.
        options: BatchOptions,
        /// Queue the good lines of a list with malformed ones (each is reported in
        /// [`BatchReply::Queued`]'s notes); when false nothing is queued then.
        skip_bad_lines: bool,
    },
    /// Work batch `id` (start, or resume a paused or interrupted one).
    Start(String),
    /// Resume batch `id`, minding the items that were in flight when it stopped and may have
    /// reached the server ([`crate::store::BatchQueue::unsafe_to_resend`]): see
    /// [`Interrupted`].
    Resume {
        /// Batch id.
        id: String,
        /// What to do with such items.
        interrupted: Interrupted,
    },
    /// Pause the batch being worked (runs in flight go back to pending).
    Pause,
    /// Cancel the batch being worked.
    Cancel,
    /// Put the `error` and `cancelled` items of batch `id` back to pending and work it.
    RerunFailed(String),
    /// Items `offset..offset + limit` of batch `id` (only those in `state`, when given).
    Page {
        /// Batch id.
        id: String,
        /// Filter.
        state: Option<BatchItemState>,
        /// First row, 0-based.
        offset: u64,
        /// Rows wanted.
        limit: u64,
    },
    /// The newest batches.
    List,
    /// Cancel the `pending` items of batch `id`, which is not being worked (a batch paused
    /// earlier, or left by a process that ended); items a dead process left `running` are
    /// cancelled too. Answered with [`BatchReply::Cancelled`].
    CancelQueued(String),
}

/// What a resume does with items that were in flight when the batch stopped and are not safe
/// to send twice (not idempotent, no `Idempotency-Key`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupted {
    /// Start nothing when there are any: answer [`BatchReply::ResendRisk`] listing them.
    Ask,
    /// Send them again from attempt 1 (the user accepted it).
    Resend,
    /// End them `cancelled`, then work the rest.
    Skip,
}

/// Most items a [`BatchReply::ResendRisk`] lists.
pub const RESEND_RISK_LISTED: u64 = 1000;

/// What the core answers a batch command ([`super::CoreEvent::Batch`]).
#[derive(Debug, Clone)]
pub enum BatchReply {
    /// A list was imported and queued as batch `id` with `items` items.
    Queued {
        /// Batch id.
        id: String,
        /// Items queued.
        items: u64,
        /// What to tell the user (skipped lines, ignored curl options), `FILE:line: …` each.
        notes: Vec<String>,
    },
    /// A step of the batch being worked (committed before it is sent).
    Event(BatchEvent),
    /// The batch being worked ended (finished, paused or cancelled).
    Ended(BatchSummary),
    /// A page of items.
    Page {
        /// Batch id.
        id: String,
        /// The filter it answers.
        state: Option<BatchItemState>,
        /// Its first row.
        offset: u64,
        /// Items per state in the whole batch.
        counts: BatchCounts,
        /// The rows.
        rows: Vec<BatchItemRecord>,
    },
    /// The newest batches.
    Batches(Vec<BatchRecord>),
    /// Batch `id` (not being worked) had `items` items cancelled.
    Cancelled {
        /// Batch id.
        id: String,
        /// Items cancelled.
        items: u64,
    },
    /// Batch `id` was not resumed: `items` were in flight when it stopped and may have
    /// reached the server (answer to [`Interrupted::Ask`]; at most [`RESEND_RISK_LISTED`]).
    ResendRisk {
        /// Batch id.
        id: String,
        /// The items, in position order.
        items: Vec<BatchItemRecord>,
    },
    /// Something failed (what and where, ready to show).
    Problem(String),
}

/// What a face's batch commands need besides the core: how lists are read, where items'
/// secrets are kept, and the profiles items may name.
pub struct BatchSetup {
    /// Reads a list file (the window passes `ui::batch::list_importer`).
    pub importer: BatchImporter,
    /// Where items with secrets keep them.
    pub secrets: Arc<dyn SecretStore>,
    /// Profiles items may name (the window passes [`super::library_lookup`] over the user's
    /// library; a list naming one it does not know is refused naming the line, or that line
    /// skipped).
    pub profiles: super::batch_runner::ProfileLookup,
}

/// What the store part serves with: the store actor of the link's data folder (or why there
/// is none), the batch setup (`None`: the face offers no batches) and the core's budgets and
/// HTTP clients, which the batch's runs share with the engine's.
pub(super) struct Setup {
    pub(super) store: Result<Arc<HistoryWriter>, String>,
    pub(super) batches: Option<BatchSetup>,
    pub(super) budgets: BudgetRegistry,
    pub(super) clients: crate::engine::ClientCache,
    pub(super) out: Out,
    pub(super) queries: Queries,
}

/// The batch being worked: its control, the task that ends with its summary, and whether the
/// run has ended (set before [`BatchReply::Ended`] is sent, so a command that follows that reply
/// finds the service free).
struct Working {
    batch: String,
    control: BatchControl,
    task: tokio::task::JoinHandle<()>,
    ended: Arc<AtomicBool>,
}

/// Serves the store part's commands, in order, until the link lets go; then pauses the batch
/// being worked without marking it paused by the user, so the next start resumes it.
pub(super) async fn serve(setup: Setup, mut commands: mpsc::UnboundedReceiver<(CoreCommand, u64)>) {
    let out = &setup.out;
    let reply = |r: BatchReply| async move {
        out.send(CoreEvent::Batch(r)).await;
    };
    let mut working: Option<Working> = None;
    while let Some((command, page)) = commands.recv().await {
        if working
            .as_ref()
            .is_some_and(|w| w.ended.load(Ordering::SeqCst))
        {
            working = None;
        }
        if let CoreCommand::History(request) = command {
            let latest = setup.queries.latest_page();
            let answer = match &setup.store {
                Ok(store) => store
                    .call(move |q| answer_unless_superseded(q, request, page, &latest))
                    .await
                    .unwrap_or_else(|e| Some(HistoryReply::Problem(e.to_string()))),
                Err(problem) => Some(HistoryReply::Problem(problem.clone())),
            };
            if let Some(answer) = answer {
                setup.out.send(CoreEvent::History(answer)).await;
            }
            setup.queries.answered();
            continue;
        }
        let (CoreCommand::Batch(command), Ok(store), Some(batches)) =
            (command, &setup.store, &setup.batches)
        else {
            reply(BatchReply::Problem("batches are not available".into())).await;
            continue;
        };
        match command {
            BatchCommand::Import {
                path,
                profile,
                options,
                skip_bad_lines,
            } => {
                let on_bad = if skip_bad_lines {
                    OnBadLines::Skip
                } else {
                    OnBadLines::Refuse
                };
                reply(import(batches, store, path, *profile, options, on_bad).await).await;
            }
            BatchCommand::Start(id) => start(&setup, batches, store, &mut working, &id),
            BatchCommand::Resume { id, interrupted } => {
                let wanted = id.clone();
                match on_store(store, move |q| check_interrupted(q, &wanted, interrupted)).await {
                    Ok(None) => start(&setup, batches, store, &mut working, &id),
                    Ok(Some(items)) => reply(BatchReply::ResendRisk { id, items }).await,
                    Err(e) => reply(BatchReply::Problem(e)).await,
                }
            }
            BatchCommand::RerunFailed(id) => {
                let requeued = on_store(store, move |q| {
                    let b = q.batch(&id)?;
                    q.requeue_failed(&b.id)?;
                    Ok(b.id)
                })
                .await;
                match requeued {
                    Ok(id) => start(&setup, batches, store, &mut working, &id),
                    Err(e) => reply(BatchReply::Problem(e)).await,
                }
            }
            // Marked before the runner is told, so a window closed right after still leaves
            // the batch paused on purpose (not resumed at the next start).
            BatchCommand::Pause | BatchCommand::Cancel => {
                if let Some(w) = &working {
                    let batch = w.batch.clone();
                    if let Err(e) = on_store(store, move |q| q.mark_paused_by_user(&batch)).await {
                        reply(BatchReply::Problem(e)).await;
                    }
                    if matches!(command, BatchCommand::Pause) {
                        w.control.pause_by_user();
                    } else {
                        w.control.cancel();
                    }
                }
            }
            BatchCommand::Page {
                id,
                state,
                offset,
                limit,
            } => {
                let page = on_store(store, move |q| {
                    let counts = q.counts(&id)?;
                    let rows = q.items(&id, state, offset, limit)?;
                    Ok(BatchReply::Page {
                        id,
                        state,
                        offset,
                        counts,
                        rows,
                    })
                })
                .await;
                reply(page.unwrap_or_else(BatchReply::Problem)).await;
            }
            BatchCommand::List => {
                let listed = on_store(store, |q| q.list(100)).await;
                reply(listed.map_or_else(BatchReply::Problem, BatchReply::Batches)).await;
            }
            BatchCommand::CancelQueued(id) => {
                let worked = working.as_ref().is_some_and(|w| w.batch == id);
                reply(if worked {
                    BatchReply::Problem(
                        "the batch is being worked; use Cancel batch above the table".into(),
                    )
                } else {
                    let wanted = id.clone();
                    store
                        .call(move |q| super::batch_cancel::cancel_queued(q, &wanted))
                        .await
                        .map_err(|e| e.to_string())
                        .and_then(|r| r)
                        .map_or_else(BatchReply::Problem, |items| BatchReply::Cancelled {
                            id,
                            items,
                        })
                })
                .await;
            }
        }
    }
    // The window closed: pause without marking it paused by the user, so the next start
    // resumes it.
    if let Some(w) = working {
        w.control.pause();
        let _ = w.task.await;
    }
}

/// Runs `job` on the store actor; any failure as text, ready to show.
async fn on_store<R, F>(store: &HistoryWriter, job: F) -> Result<R, String>
where
    R: Send + 'static,
    F: FnOnce(&mut BatchQueue) -> Result<R, crate::store::BatchError> + Send + 'static,
{
    store
        .call(job)
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// The items to ask about before resuming batch `id` (`None`: resume now); with
/// [`Interrupted::Skip`] they are ended `cancelled` first.
fn check_interrupted(
    queue: &mut BatchQueue,
    id: &str,
    interrupted: Interrupted,
) -> Result<Option<Vec<BatchItemRecord>>, crate::store::BatchError> {
    if interrupted == Interrupted::Resend {
        return Ok(None);
    }
    let items = queue.unsafe_to_resend(id, RESEND_RISK_LISTED)?;
    if items.is_empty() {
        return Ok(None);
    }
    if interrupted == Interrupted::Ask {
        return Ok(Some(items));
    }
    let positions: Vec<u64> = items.iter().map(|i| i.position).collect();
    queue.skip_items(
        id,
        &positions,
        "not sent again: it was in flight when the batch stopped (skipped at resume)",
    )?;
    Ok(None)
}

/// Reads the list at `path` (on a blocking thread: file I/O stays off the runtime's workers)
/// and queues it in one call to the store actor.
async fn import(
    setup: &BatchSetup,
    store: &HistoryWriter,
    path: PathBuf,
    profile: RetryProfile,
    options: BatchOptions,
    on_bad: OnBadLines,
) -> BatchReply {
    if let Some(problem) = options.problem() {
        return BatchReply::Problem(problem);
    }
    if let Err(e) = crate::policy::BatchAssertions::compile(&options.assertions) {
        return BatchReply::Problem(format!("assertion: {e}"));
    }
    let (importer, profiles, file) = (
        Arc::clone(&setup.importer),
        Arc::clone(&setup.profiles),
        path.clone(),
    );
    let read = tokio::task::spawn_blocking(move || importer(&file, on_bad, &profiles)).await;
    let (items, notes) = match read {
        Ok(Ok(list)) if list.items.is_empty() => {
            return BatchReply::Problem(format!("no requests in the list: {}", path.display()));
        }
        Ok(Ok(list)) => (list.items, list.notes),
        Ok(Err(e)) => return BatchReply::Problem(e),
        Err(e) => return BatchReply::Problem(format!("the list could not be read: {e}")),
    };
    let secrets = Arc::clone(&setup.secrets);
    let count = items.len() as u64;
    let queued = on_store(store, move |q| {
        q.use_secrets(secrets);
        q.create(
            Some(&path.display().to_string()),
            &profile,
            &options,
            &items,
        )
    })
    .await;
    match queued {
        Ok(id) => BatchReply::Queued {
            id,
            items: count,
            notes,
        },
        Err(e) => BatchReply::Problem(e),
    }
}

/// Starts working batch `id` unless one is being worked; its events are passed on as replies.
/// The runner claims it as worked by the window before anything is sent, so a window closed or
/// killed meanwhile resumes it at its next start.
fn start(
    setup: &Setup,
    batches: &BatchSetup,
    store: &Arc<HistoryWriter>,
    working: &mut Option<Working>,
    id: &str,
) {
    if working.is_some() {
        setup.out.try_send(CoreEvent::Batch(BatchReply::Problem(
            "a batch is being worked; pause or cancel it first".into(),
        )));
        return;
    }
    let runner = BatchRunner::new(Arc::clone(store), Arc::clone(&batches.secrets))
        .worked_by(BatchWorker::Window)
        .with_budgets(setup.budgets.clone())
        .with_clients(&setup.clients)
        .with_profiles(Arc::clone(&batches.profiles));
    let control = BatchControl::new();
    let (tx, mut rx) = mpsc::channel::<BatchEvent>(BATCH_CHANNEL);
    let out = setup.out.clone();
    let id = id.to_owned();
    let batch_id = id.clone();
    let worker_control = control.clone();
    let ended = Arc::new(AtomicBool::new(false));
    let ended_flag = Arc::clone(&ended);
    let task = tokio::spawn(async move {
        let run = tokio::spawn(async move { runner.run(&id, worker_control, tx).await });
        while let Some(event) = rx.recv().await {
            out.send(CoreEvent::Batch(BatchReply::Event(event))).await;
        }
        let reply = match run.await {
            Ok(Ok(summary)) => BatchReply::Ended(summary),
            Ok(Err(e)) => BatchReply::Problem(e.to_string()),
            Err(e) => BatchReply::Problem(format!("the batch runner stopped: {e}")),
        };
        ended_flag.store(true, Ordering::SeqCst);
        out.send(CoreEvent::Batch(reply)).await;
    });
    *working = Some(Working {
        batch: batch_id,
        control,
        task,
        ended,
    });
}
