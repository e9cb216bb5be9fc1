//! The batch runner (issue 9): works a queued batch ([`BatchQueue`]) through the engine, at most
//! `concurrency` items at once, each item's first attempt paced by the rate limit per host, the
//! retry budget shared per host through one [`BudgetRegistry`], and every item's run recorded in
//! the history (its row names the item, so the window can open it).
//!
//! One coordinator task owns the queue's database connection and makes every state change;
//! each item runs in a task of its own and asks the coordinator to mark it `running` (committed
//! before its first attempt) and to store how it ended (committed before the
//! [`BatchEvent::ItemFinished`] that reports it). A batch is resumable at any moment: items a
//! dead process left `running` go back to `pending` when the batch is claimed again and are
//! re-run from attempt 1; `done` items are never sent again.

use super::budget_registry::BudgetRegistry;
use super::host_rate_limiter::HostRateLimiter;
use super::run_recording::RunRecording;
use crate::engine::{self, RunOptions};
use crate::model::{
    AttemptOutcome, BatchCounts, BatchEvent, BatchItemState, OutcomeKind, RequestSpec,
    RetryProfile, RunEvent,
};
use crate::policy::BatchAssertions;
use crate::store::{BatchError, BatchQueue, HistoryWriter, ItemEnd, QueuedItem};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// Pending items read from the database at a time (memory stays bounded for huge batches).
pub const PENDING_PAGE: u64 = 256;

/// Finds a profile by the name an item gives (`BatchRequest::profile`); `None`: unknown.
pub type ProfileLookup = Arc<dyn Fn(&str) -> Option<RetryProfile> + Send + Sync>;

/// The id a batch item's run carries in the history (`runs.batch_item_id`): `BATCH_ID/POSITION`.
pub fn batch_item_id(batch_id: &str, position: u64) -> String {
    format!("{batch_id}/{position}")
}

/// Stops a running batch. Clones control the same batch.
#[derive(Debug, Clone, Default)]
pub struct BatchControl {
    pause: CancellationToken,
    cancel: CancellationToken,
    any: CancellationToken,
}

impl BatchControl {
    /// A control that has not stopped anything.
    pub fn new() -> Self {
        Self::default()
    }

    /// Pause (also what Ctrl-C does): no item starts any more, the runs in flight are cancelled
    /// and their items go back to `pending` (re-run from attempt 1 on resume); the batch ends
    /// resumable.
    pub fn pause(&self) {
        self.pause.cancel();
        self.any.cancel();
    }

    /// Cancel: the runs in flight are cancelled and every item not finished ends `cancelled`.
    pub fn cancel(&self) {
        self.cancel.cancel();
        self.any.cancel();
    }

    /// True once [`Self::pause`] or [`Self::cancel`] was called.
    pub fn is_stopped(&self) -> bool {
        self.any.is_cancelled()
    }

    fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

/// How a batch run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchSummary {
    /// Items per state at the end.
    pub counts: BatchCounts,
    /// True when it was paused with items left `pending` (resume it to finish).
    pub stopped: bool,
}

/// Works batches through the engine. Build it, then [`Self::run`] one batch.
pub struct BatchRunner {
    queue: BatchQueue,
    writer: Option<Arc<HistoryWriter>>,
    body_cap: usize,
    budgets: BudgetRegistry,
    profiles: ProfileLookup,
}

impl BatchRunner {
    /// A runner over `queue`: runs not recorded, a fresh budget registry, item profile names
    /// looked up among the built-in profiles.
    pub fn new(queue: BatchQueue) -> Self {
        Self {
            queue,
            writer: None,
            body_cap: crate::store::DEFAULT_BODY_CAP,
            budgets: BudgetRegistry::new(),
            profiles: Arc::new(crate::profile::builtin),
        }
    }

    /// Records every item's run in the history through `writer`, keeping at most `body_cap`
    /// response body bytes per attempt.
    #[must_use]
    pub fn recording(mut self, writer: Arc<HistoryWriter>, body_cap: usize) -> Self {
        self.writer = Some(writer);
        self.body_cap = body_cap;
        self
    }

    /// Draws retry budgets from `budgets` (the window's engine shares its registry, so a batch
    /// and the window's runs against one host share one bucket).
    #[must_use]
    pub fn with_budgets(mut self, budgets: BudgetRegistry) -> Self {
        self.budgets = budgets;
        self
    }

    /// Looks item profile names up with `profiles` instead of the built-ins only.
    #[must_use]
    pub fn with_profiles(mut self, profiles: ProfileLookup) -> Self {
        self.profiles = profiles;
        self
    }

    /// Works batch `batch_id` (a full id, or a unique prefix) until no item is pending, or
    /// until `control` pauses or cancels it. Sends [`BatchEvent`]s to `events` (a closed
    /// receiver is fine: the batch goes on). Must run on a tokio runtime; the coordinator makes
    /// short SQLite commits on its own task.
    ///
    /// # Errors
    /// [`BatchError::NotFound`], [`BatchError::Busy`] (another process works the batch), a
    /// profile or assertion the batch stored that no longer compiles
    /// ([`BatchError::Decode`]), and database errors; after one, the items in flight are
    /// cancelled and stay `running` in the database, so the next run re-runs them.
    pub async fn run(
        mut self,
        batch_id: &str,
        control: BatchControl,
        events: mpsc::Sender<BatchEvent>,
    ) -> Result<BatchSummary, BatchError> {
        let batch = self.queue.batch(batch_id)?;
        let id = batch.id.clone();
        let assertions = BatchAssertions::compile(&batch.options.assertions).map_err(|e| {
            BatchError::Decode {
                id: id.clone(),
                message: e.to_string(),
            }
        })?;
        let requeued = self.queue.claim(&id)?;
        let counts = self.queue.counts(&id)?;
        let _ = events
            .send(BatchEvent::BatchStarted {
                batch_id: id.clone(),
                counts,
                requeued,
            })
            .await;
        let shared = Arc::new(Shared {
            batch_id: id.clone(),
            writer: self.writer.clone(),
            body_cap: self.body_cap,
            budgets: self.budgets.clone(),
            limiter: HostRateLimiter::new(batch.options.rate_per_host),
            assertions,
            control: control.clone(),
            run_ids: AtomicU64::new(0),
        });
        let mut coordinator = Coordinator {
            queue: &mut self.queue,
            shared,
            profiles: Arc::clone(&self.profiles),
            batch_profile: batch.profile,
            counts,
            events,
        };
        let worked = coordinator
            .work(batch.options.concurrency.max(1), &control)
            .await;
        let events = coordinator.events;
        if worked.is_ok() && control.is_cancelled() {
            self.queue.cancel_pending(&id)?;
        }
        let released = self.queue.release(&id);
        worked?;
        released?;
        let counts = self.queue.counts(&id)?;
        let stopped = counts.pending > 0;
        let _ = events
            .send(BatchEvent::BatchFinished {
                batch_id: id,
                counts,
                stopped,
            })
            .await;
        Ok(BatchSummary { counts, stopped })
    }
}

/// What every item task of one batch shares.
struct Shared {
    batch_id: String,
    writer: Option<Arc<HistoryWriter>>,
    body_cap: usize,
    budgets: BudgetRegistry,
    limiter: HostRateLimiter,
    assertions: BatchAssertions,
    control: BatchControl,
    run_ids: AtomicU64,
}

/// Pending items read ahead of the tasks, and where the next page starts.
#[derive(Default)]
struct Feed {
    /// The item tasks started (awaited before the batch returns, so nothing of it outlives
    /// [`BatchRunner::run`]: the history writer can be closed right after).
    tasks: tokio::task::JoinSet<()>,
    buffer: VecDeque<QueuedItem>,
    cursor: Option<u64>,
    exhausted: bool,
}

/// An item task's request to the coordinator.
enum ToCoordinator {
    /// Mark the item `running` with this history id; the reply says whether it may start.
    Start {
        position: u64,
        run_id: Option<String>,
        reply: oneshot::Sender<bool>,
    },
    /// The item never started (the batch stopped while it waited for its slot): it stays
    /// `pending`.
    NotStarted,
    /// The item's run ended so.
    End { position: u64, end: ItemEnd },
}

/// Owns the queue while a batch runs; the only maker of state changes.
struct Coordinator<'q> {
    queue: &'q mut BatchQueue,
    shared: Arc<Shared>,
    profiles: ProfileLookup,
    batch_profile: RetryProfile,
    counts: BatchCounts,
    events: mpsc::Sender<BatchEvent>,
}

impl Coordinator<'_> {
    /// Starts items up to `concurrency` at a time until none is pending (or the batch
    /// stopped), handling each task's requests as they come. On a database error the batch is
    /// paused and the error returned once every task has let go.
    async fn work(&mut self, concurrency: usize, control: &BatchControl) -> Result<(), BatchError> {
        let (tx, mut rx) = mpsc::channel::<ToCoordinator>(concurrency * 2 + 8);
        let mut feed = Feed::default();
        let mut in_flight = 0usize;
        loop {
            // A finished task stays in the set (its whole future) until joined: reap them as
            // they end, so memory follows the items in flight, not the batch's size.
            while feed.tasks.try_join_next().is_some() {}
            let step = match self.fill(&mut feed, concurrency, &mut in_flight, &tx, control) {
                Ok(()) if in_flight == 0 => break,
                Ok(()) => match rx.recv().await {
                    Some(message) => self.handle(message, &mut in_flight).await,
                    None => break,
                },
                Err(e) => Err(e),
            };
            if let Err(e) = step {
                // Stop everything; what is in flight stays `running` for the next resume.
                control.pause();
                while in_flight > 0 {
                    match rx.recv().await {
                        Some(ToCoordinator::Start { reply, .. }) => {
                            let _ = reply.send(false);
                            in_flight -= 1;
                        }
                        Some(ToCoordinator::NotStarted | ToCoordinator::End { .. }) => {
                            in_flight -= 1;
                        }
                        None => break,
                    }
                }
                while feed.tasks.join_next().await.is_some() {}
                return Err(e);
            }
        }
        while feed.tasks.join_next().await.is_some() {}
        Ok(())
    }

    /// Starts pending items (reading them a page at a time) until `concurrency` are in flight,
    /// none is left, or the batch stopped.
    fn fill(
        &mut self,
        feed: &mut Feed,
        concurrency: usize,
        in_flight: &mut usize,
        tx: &mpsc::Sender<ToCoordinator>,
        control: &BatchControl,
    ) -> Result<(), BatchError> {
        while *in_flight < concurrency && !control.is_stopped() {
            if feed.buffer.is_empty() && !feed.exhausted {
                let page =
                    self.queue
                        .next_pending(&self.shared.batch_id, feed.cursor, PENDING_PAGE)?;
                feed.exhausted = page.is_empty();
                feed.cursor = page.last().map(|i| i.position).or(feed.cursor);
                feed.buffer.extend(page);
            }
            let Some(item) = feed.buffer.pop_front() else {
                return Ok(());
            };
            if let Some((position, spec, profile)) = self.prepare(item)? {
                *in_flight += 1;
                feed.tasks.spawn(work_item(
                    Arc::clone(&self.shared),
                    position,
                    spec,
                    profile,
                    tx.clone(),
                ));
            }
        }
        Ok(())
    }

    /// The item's request and profile, or `None` after ending it `error` at once (its secrets
    /// are gone, its profile is unknown, or the engine refuses its request).
    fn prepare(
        &mut self,
        item: QueuedItem,
    ) -> Result<Option<(u64, RequestSpec, RetryProfile)>, BatchError> {
        let refused = |reason: String| ItemEnd {
            state: BatchItemState::Error,
            attempts: 0,
            last_status: None,
            error_kind: None,
            reason,
        };
        let spec = match item.request {
            Ok(spec) => spec,
            Err(reason) => {
                self.end_now(item.position, &refused(reason))?;
                return Ok(None);
            }
        };
        let profile = match &item.profile {
            None => self.batch_profile.clone(),
            Some(name) => {
                let Some(p) = (self.profiles)(name) else {
                    self.end_now(
                        item.position,
                        &refused(format!("not sent: unknown profile `{name}`")),
                    )?;
                    return Ok(None);
                };
                p
            }
        };
        if let Err(e) = engine::check_spec(&spec) {
            self.end_now(item.position, &refused(format!("not sent: {e}")))?;
            return Ok(None);
        }
        Ok(Some((item.position, spec, profile)))
    }

    /// Ends a pending item without sending it (committed, then reported).
    fn end_now(&mut self, position: u64, end: &ItemEnd) -> Result<(), BatchError> {
        self.queue.finish(&self.shared.batch_id, position, end)?;
        self.counts.moved(BatchItemState::Pending, end.state);
        self.report(finished_event(&self.shared.batch_id, position, end));
        Ok(())
    }

    /// Sends `event` without waiting (a full or closed channel drops it: the database has it).
    fn report(&self, event: BatchEvent) {
        let _ = self.events.try_send(event);
    }

    async fn handle(
        &mut self,
        message: ToCoordinator,
        in_flight: &mut usize,
    ) -> Result<(), BatchError> {
        let id = self.shared.batch_id.clone();
        match message {
            ToCoordinator::Start {
                position,
                run_id,
                reply,
            } => {
                if self.shared.control.is_stopped() {
                    let _ = reply.send(false);
                    *in_flight -= 1;
                    return Ok(());
                }
                if let Err(e) = self.queue.mark_running(&id, position, run_id.as_deref()) {
                    let _ = reply.send(false);
                    *in_flight -= 1;
                    return Err(e);
                }
                self.counts
                    .moved(BatchItemState::Pending, BatchItemState::Running);
                let _ = self
                    .events
                    .send(BatchEvent::ItemStarted {
                        batch_id: id,
                        position,
                        run_id,
                    })
                    .await;
                let _ = reply.send(true);
            }
            ToCoordinator::NotStarted => *in_flight -= 1,
            ToCoordinator::End { position, end } => {
                *in_flight -= 1;
                self.queue.finish(&id, position, &end)?;
                self.counts.moved(BatchItemState::Running, end.state);
                let _ = self.events.send(finished_event(&id, position, &end)).await;
            }
        }
        Ok(())
    }
}

fn finished_event(batch_id: &str, position: u64, end: &ItemEnd) -> BatchEvent {
    BatchEvent::ItemFinished {
        batch_id: batch_id.to_owned(),
        position,
        state: end.state,
        attempts: end.attempts,
        last_status: end.last_status,
        error_kind: end.error_kind.clone(),
        reason: end.reason.clone(),
    }
}

/// One item: waits for its slot at the host, has itself marked `running`, runs through the
/// engine (every event recorded), checks the assertions and reports how it ended.
async fn work_item(
    shared: Arc<Shared>,
    position: u64,
    spec: RequestSpec,
    profile: RetryProfile,
    tx: mpsc::Sender<ToCoordinator>,
) {
    let stop = shared.control.any.clone();
    tokio::select! {
        () = shared.limiter.wait_turn(&spec.url) => {}
        () = stop.cancelled() => {
            let _ = tx.send(ToCoordinator::NotStarted).await;
            return;
        }
    }
    let mut recording = RunRecording::for_batch_item(
        &spec,
        &profile,
        &[],
        shared.writer.clone(),
        shared.body_cap,
        batch_item_id(&shared.batch_id, position),
    );
    let (reply, allowed) = oneshot::channel();
    let asked = tx
        .send(ToCoordinator::Start {
            position,
            run_id: recording.history_id().map(str::to_owned),
            reply,
        })
        .await;
    if asked.is_err() || !allowed.await.unwrap_or(false) {
        return;
    }
    let budget = shared.budgets.bucket_for(&profile, &spec.url);
    let options = RunOptions {
        run_id: shared.run_ids.fetch_add(1, Ordering::Relaxed) + 1,
        seed: None,
        budget,
    };
    let (run_tx, mut run_rx) = mpsc::channel::<RunEvent>(crate::service::RUN_EVENT_CAPACITY);
    let (handle, run) = engine::prepare_run(spec, profile, options, run_tx, None);
    tokio::spawn(run.drive());
    let mut last: Option<AttemptOutcome> = None;
    let mut finished = None;
    let mut cancelling = false;
    loop {
        let event = tokio::select! {
            event = run_rx.recv() => event,
            () = stop.cancelled(), if !cancelling => {
                cancelling = true;
                handle.cancel();
                continue;
            }
        };
        let Some(event) = event else { break };
        if let RunEvent::AttemptFinished { outcome, .. } = &event {
            last = Some(outcome.clone());
        }
        if let RunEvent::RunFinished {
            outcome, attempts, ..
        } = &event
        {
            finished = Some((outcome.clone(), *attempts));
        }
        recording.observe(event);
    }
    let end = item_end(&shared, last.as_ref(), finished);
    let _ = tx.send(ToCoordinator::End { position, end }).await;
}

/// How an item ended, from its run's last attempt and its `RunFinished`.
fn item_end(
    shared: &Shared,
    last: Option<&AttemptOutcome>,
    finished: Option<(crate::model::RunOutcome, u32)>,
) -> ItemEnd {
    let last_status = last.and_then(AttemptOutcome::status);
    let error_kind = match last {
        Some(AttemptOutcome::Error(e)) => Some(e.kind.id().to_owned()),
        _ => None,
    };
    let Some((outcome, attempts)) = finished else {
        return ItemEnd {
            state: BatchItemState::Error,
            attempts: 0,
            last_status,
            error_kind,
            reason: "the engine stopped without finishing the run".to_owned(),
        };
    };
    let (state, reason) = match outcome.kind {
        OutcomeKind::Succeeded => match shared.assertions.check(last) {
            Ok(()) => (BatchItemState::Done, outcome.message),
            Err(why) => (BatchItemState::Error, why),
        },
        OutcomeKind::Cancelled if !shared.control.is_cancelled() => (
            BatchItemState::Pending,
            "paused mid-run: sent again from attempt 1 on resume".to_owned(),
        ),
        OutcomeKind::Cancelled => (BatchItemState::Cancelled, outcome.message),
        _ => (BatchItemState::Error, outcome.message),
    };
    ItemEnd {
        state,
        attempts,
        last_status,
        error_kind,
        reason,
    }
}
