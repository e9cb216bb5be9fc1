//! The batch runner: works a queued batch ([`crate::store::BatchQueue`]) through the engine, at most
//! `concurrency` items at once, each item's first attempt paced by the rate limit per host
//! (before it takes a slot: an item waiting for its host's turn holds none), the retry budget
//! shared per host through one [`BudgetRegistry`], and every item's run recorded in the history
//! (its row names the item, so the window can open it).
//!
//! One coordinator task makes every state change; the queue's reads and writes are calls to the
//! store actor ([`HistoryWriter::call`]), so no SQLite runs on a tokio worker. An
//! item's end frees its slot at once: the coordinator starts the next item's task right away and
//! stages both changes (`running`, the end) for a group commit, made within [`COMMIT_WINDOW`]
//! of the first staged change (or at once when nothing else is in flight, the batch stops, or
//! 256 changes wait); only after its commit is a change reported
//! ([`BatchEvent::ItemStarted`], [`BatchEvent::ItemFinished`]), so no end is reported before it
//! is durable. The store actor makes the commit, and each item's end goes
//! with its run's end in the same transaction ([`HistoryWriter::commit_batch`]): a `kill -9`
//! never leaves a run recorded finished with its item still `running`. A batch is resumable at
//! any moment: items a dead process left `running` go back to `pending` when the batch is
//! claimed again (one whose run the history holds as finished gets that run's end instead), and items it had started whose `running` was
//! not committed yet are still `pending`; both are re-run from attempt 1 (their partial runs
//! stay in the history under the item's id, marked interrupted). `done` items are never sent
//! again.

pub use super::batch_control::BatchControl;
use super::batch_pacer::{Offer, PARKED_LIMIT, StartPacer};
use super::budget_registry::BudgetRegistry;
use super::host_rate_limiter::HostRateLimiter;
use super::panic_guard::unless_panicked;
use super::run_recording::{RunRecording, drive_events};
use crate::engine::{self, ClientCache, RunOptions};
use crate::model::{
    AttemptOutcome, BatchCounts, BatchEvent, BatchItemState, BatchWorker, RequestSpec,
    RetryProfile, RunEvent,
};
use crate::policy::BatchAssertions;
use crate::store::{
    BatchChange, BatchError, HistoryWriter, ItemEnd, QueuedItem, RunEnd, SecretStore,
};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Pending items read from the database at a time (memory stays bounded for huge batches).
pub const PENDING_PAGE: u64 = 256;

/// Finds a profile by the name an item gives (`BatchRequest::profile`); `None`: unknown.
pub type ProfileLookup = Arc<dyn Fn(&str) -> Option<RetryProfile> + Send + Sync>;

/// The id a batch item's run carries in the history (`runs.batch_item_id`): `BATCH_ID/POSITION`.
pub fn batch_item_id(batch_id: &str, position: u64) -> String {
    format!("{batch_id}/{position}")
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
    store: Arc<HistoryWriter>,
    secrets: Arc<dyn SecretStore>,
    body_cap: usize,
    budgets: BudgetRegistry,
    clients: ClientCache,
    profiles: ProfileLookup,
    worker: Option<BatchWorker>,
}

impl BatchRunner {
    /// A runner over the queue in `store`'s database (the store actor of its data folder),
    /// every item's run recorded there; items with secrets read their sendable request from
    /// `secrets`. A fresh budget registry, item profile names looked up among the built-ins.
    pub fn new(store: Arc<HistoryWriter>, secrets: Arc<dyn SecretStore>) -> Self {
        Self {
            store,
            secrets,
            body_cap: crate::store::DEFAULT_BODY_CAP,
            budgets: BudgetRegistry::new(),
            clients: ClientCache::default(),
            profiles: Arc::new(crate::profile::builtin),
            worker: None,
        }
    }

    /// Stores `worker` as the face working the batch when it is claimed (before anything is
    /// sent), clearing its "paused by the user" mark; without this the stored worker is kept.
    #[must_use]
    pub fn worked_by(mut self, worker: BatchWorker) -> Self {
        self.worker = Some(worker);
        self
    }

    /// Keeps at most `body_cap` response body bytes per attempt in the history.
    #[must_use]
    pub fn body_cap(mut self, body_cap: usize) -> Self {
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

    /// Sends through `clients` (the core's: connections shared with the window's runs);
    /// without it the batch's items share clients of their own.
    #[must_use]
    pub fn with_clients(mut self, clients: &ClientCache) -> Self {
        self.clients = clients.clone();
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
    /// receiver is fine: the batch goes on). Must run on a tokio runtime; every database step
    /// is a call to the store actor.
    ///
    /// # Errors
    /// [`BatchError::NotFound`], [`BatchError::Busy`] (another process works the batch), a
    /// profile or assertion the batch stored that no longer compiles
    /// ([`BatchError::Decode`]), and database errors; after one, the items in flight are
    /// cancelled and stay `running` in the database, so the next run re-runs them.
    pub async fn run(
        self,
        batch_id: &str,
        control: BatchControl,
        events: mpsc::Sender<BatchEvent>,
    ) -> Result<BatchSummary, BatchError> {
        let (secrets, worker, wanted) =
            (Arc::clone(&self.secrets), self.worker, batch_id.to_owned());
        let (batch, assertions, requeued, counts) = self
            .store
            .call(move |queue| {
                queue.use_secrets(secrets);
                let batch = queue.batch(&wanted)?;
                let assertions =
                    BatchAssertions::compile(&batch.options.assertions).map_err(|e| {
                        BatchError::Decode {
                            id: batch.id.clone(),
                            message: e.to_string(),
                        }
                    })?;
                let requeued = queue.claim(&batch.id, worker)?;
                let counts = queue.counts(&batch.id)?;
                Ok::<_, BatchError>((batch, assertions, requeued, counts))
            })
            .await??;
        let id = batch.id.clone();
        let _ = events
            .send(BatchEvent::BatchStarted {
                batch_id: id.clone(),
                counts,
                requeued,
            })
            .await;
        let shared = Arc::new(Shared {
            batch_id: id.clone(),
            store: Arc::clone(&self.store),
            body_cap: self.body_cap,
            budgets: self.budgets.clone(),
            clients: self.clients.clone(),
            assertions,
            control: control.clone(),
            run_ids: AtomicU64::new(0),
        });
        let concurrency = batch.options.concurrency.max(1);
        let mut coordinator = Coordinator {
            shared,
            profiles: Arc::clone(&self.profiles),
            batch_profile: batch.profile,
            idempotency_keys: batch.options.idempotency_keys,
            counts,
            events,
            concurrency,
            pacer: StartPacer::new(
                HostRateLimiter::new(batch.options.rate_per_host),
                PARKED_LIMIT,
            ),
            feed: Feed::default(),
            group: Group::default(),
            in_flight: 0,
            tasks: tokio::task::JoinSet::new(),
        };
        let worked = coordinator.work().await;
        let events = coordinator.events;
        let cancel = worked.is_ok() && control.is_cancelled();
        // Again at the end: a pause that came before the claim was cleared by it.
        let by_user = control.stopped_by_user();
        let batch_id = id.clone();
        let ended = self
            .store
            .call(move |queue| {
                let stopped = (|| {
                    if cancel {
                        queue.cancel_pending(&batch_id)?;
                    }
                    if by_user {
                        queue.mark_paused_by_user(&batch_id)?;
                    }
                    Ok::<_, BatchError>(())
                })();
                let released = queue.release(&batch_id);
                stopped?;
                released?;
                queue.counts(&batch_id)
            })
            .await?;
        worked?;
        let counts = ended?;
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
    store: Arc<HistoryWriter>,
    body_cap: usize,
    budgets: BudgetRegistry,
    clients: ClientCache,
    assertions: BatchAssertions,
    control: BatchControl,
    run_ids: AtomicU64,
}

/// A pending item ready to send: its request and the profile it runs under.
struct Prepared {
    position: u64,
    spec: RequestSpec,
    profile: RetryProfile,
}

/// An item task's word to the coordinator: the item's run ended so (and its run's end, held
/// back from the history writer to be committed with the item's).
struct Ended {
    position: u64,
    end: ItemEnd,
    run: Option<RunEnd>,
}

/// A state change staged for the next group commit.
enum Staged {
    /// The item's task was started (its run's history id, when recorded).
    Started {
        position: u64,
        run_id: Option<String>,
    },
    /// The item ended (the state it was in, how it ended, its run's end when recorded).
    Ended {
        position: u64,
        from: BatchItemState,
        end: ItemEnd,
        run: Option<RunEnd>,
    },
}

/// The state changes made since the last group commit, in the order they happened (an item's
/// start before its end), each reported only once committed.
#[derive(Default)]
struct Group {
    changes: Vec<Staged>,
    /// When the first of them was staged.
    since: Option<Instant>,
}

impl Group {
    fn len(&self) -> usize {
        self.changes.len()
    }

    fn stage(&mut self, change: Staged) {
        self.since.get_or_insert_with(Instant::now);
        self.changes.push(change);
    }

    /// When the group must be committed at the latest (`None`: it is empty).
    fn due(&self) -> Option<Instant> {
        self.since.map(|t| t + COMMIT_WINDOW)
    }
}

/// Pending items read ahead (a page at a time) and where the next page starts.
#[derive(Default)]
struct Feed {
    buffer: VecDeque<QueuedItem>,
    cursor: Option<u64>,
    exhausted: bool,
    /// An item the pacer could not park (its parked items were at their limit): offered first
    /// next time.
    held: Option<Prepared>,
}

/// Owns the queue while a batch runs; the only maker of state changes. It picks the items to
/// start (each paced by its host's rate before it takes a slot) and starts their tasks, stages
/// their `running` and how items ended for a group commit, and reports those changes once
/// committed.
struct Coordinator {
    shared: Arc<Shared>,
    profiles: ProfileLookup,
    batch_profile: RetryProfile,
    /// Give each item without a key of its own its stable `Idempotency-Key`.
    idempotency_keys: bool,
    counts: BatchCounts,
    events: mpsc::Sender<BatchEvent>,
    concurrency: usize,
    pacer: StartPacer<Prepared>,
    feed: Feed,
    group: Group,
    /// Items whose task runs (started, not yet heard back from).
    in_flight: usize,
    /// The item tasks started (awaited before the batch returns, so nothing of it outlives
    /// [`BatchRunner::run`]: the history writer can be closed right after).
    tasks: tokio::task::JoinSet<()>,
}

impl Coordinator {
    /// Works the batch until no item is pending (or it stopped). On a database error the batch
    /// is paused and the error returned once every task has let go; what was not committed
    /// stays `running` in the database for the next resume.
    async fn work(&mut self) -> Result<(), BatchError> {
        let (tx, mut rx) = mpsc::channel::<Ended>(self.concurrency * 2 + 8);
        let worked = self.rounds(&tx, &mut rx).await;
        if worked.is_err() {
            self.shared.control.pause();
            while self.in_flight > 0 && rx.recv().await.is_some() {
                self.in_flight -= 1;
            }
        }
        while self.tasks.join_next().await.is_some() {}
        worked
    }

    /// One round per wake-up: take every item end that arrived, start items in the freed slots,
    /// and commit the staged changes (then report them) when they are due: [`COMMIT_WINDOW`]
    /// after the first, or at once when nothing else is in flight, the batch stopped, or
    /// [`GROUP_LIMIT`] changes wait.
    async fn rounds(
        &mut self,
        tx: &mpsc::Sender<Ended>,
        rx: &mut mpsc::Receiver<Ended>,
    ) -> Result<(), BatchError> {
        let control = self.shared.control.clone();
        loop {
            // A finished task stays in the set (its whole future) until joined: reap them as
            // they end, so memory follows the items in flight, not the batch's size.
            while self.tasks.try_join_next().is_some() {}
            let wake = if control.is_stopped() {
                None
            } else {
                self.pick(tx).await?
            };
            let waiting_for_rate = wake.is_some() && !control.is_stopped();
            let idle = self.in_flight == 0;
            let due = self.group.due();
            if idle
                || control.is_stopped()
                || self.group.len() >= GROUP_LIMIT
                || due.is_some_and(|t| t <= Instant::now())
            {
                self.commit().await?;
            }
            if idle && !waiting_for_rate {
                return Ok(());
            }
            let due = self.group.due();
            let first = tokio::select! {
                ended = rx.recv(), if self.in_flight > 0 => ended,
                () = tokio::time::sleep_until(wake.unwrap_or_else(Instant::now)),
                    if waiting_for_rate => continue,
                () = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)),
                    if due.is_some() => continue,
                () = control.any.cancelled(), if waiting_for_rate || due.is_some() => continue,
            };
            let Some(first) = first else {
                self.commit().await?;
                return Ok(());
            };
            self.ended(first);
            while let Ok(more) = rx.try_recv() {
                self.ended(more);
            }
        }
    }

    /// Stages an item task's end for the next commit.
    fn ended(&mut self, Ended { position, end, run }: Ended) {
        self.in_flight -= 1;
        self.group.stage(Staged::Ended {
            position,
            from: BatchItemState::Running,
            end,
            run,
        });
    }

    /// Picks items to start until every slot is taken (counting those picked), none is left,
    /// or the batch stopped; items whose host has no free start are parked, not given a slot.
    /// Returns when to look again for a parked item (`None`: no need, an item's end will wake
    /// the coordinator, or nothing is left).
    async fn pick(&mut self, tx: &mpsc::Sender<Ended>) -> Result<Option<Instant>, BatchError> {
        let now = Instant::now();
        while self.in_flight < self.concurrency {
            if self.shared.control.is_stopped() {
                return Ok(None);
            }
            if self.group.len() >= GROUP_LIMIT {
                // Commit what is picked and come back at once.
                return Ok(Some(now));
            }
            if let Some(item) = self.pacer.take_ready(now) {
                self.start(item, tx);
                continue;
            }
            let item = if let Some(item) = self.feed.held.take() {
                item
            } else {
                let Some(queued) = self.next_queued().await? else {
                    break;
                };
                let Some(item) = self.prepare(queued) else {
                    continue;
                };
                item
            };
            let key = self.pacer.host_key(&item.spec.url);
            match self.pacer.offer(key, item, now) {
                Offer::Start(item) => self.start(item, tx),
                Offer::Parked => {}
                Offer::Full(item) => {
                    self.feed.held = Some(item);
                    break;
                }
            }
        }
        if self.in_flight >= self.concurrency {
            return Ok(None);
        }
        Ok(self.pacer.next_ready(now))
    }

    /// The next pending item, reading a page (a call to the store actor) when the buffer is
    /// empty.
    async fn next_queued(&mut self) -> Result<Option<QueuedItem>, BatchError> {
        let feed = &mut self.feed;
        if feed.buffer.is_empty() && !feed.exhausted {
            let (batch_id, cursor) = (self.shared.batch_id.clone(), feed.cursor);
            let page = self
                .shared
                .store
                .call(move |queue| queue.next_pending(&batch_id, cursor, PENDING_PAGE))
                .await??;
            feed.exhausted = page.is_empty();
            feed.cursor = page.last().map(|i| i.position).or(feed.cursor);
            feed.buffer.extend(page);
        }
        Ok(feed.buffer.pop_front())
    }

    /// Opens the item's run recording, starts its task and stages its `running` (with the
    /// run's history id) for the next commit.
    fn start(&mut self, item: Prepared, tx: &mpsc::Sender<Ended>) {
        let recording = RunRecording::for_batch_item(
            &item.spec,
            &item.profile,
            &[],
            Some(Arc::clone(&self.shared.store)),
            self.shared.body_cap,
            batch_item_id(&self.shared.batch_id, item.position),
        );
        self.group.stage(Staged::Started {
            position: item.position,
            run_id: recording.history_id().map(str::to_owned),
        });
        self.in_flight += 1;
        self.tasks.spawn(work_item(
            Arc::clone(&self.shared),
            item,
            recording,
            tx.clone(),
        ));
    }

    /// The item's request and profile, or `None` after putting its end (`error`, not sent) in
    /// the group: its secrets are gone, its profile is unknown, or the engine refuses its
    /// request.
    fn prepare(&mut self, item: QueuedItem) -> Option<Prepared> {
        let position = item.position;
        match self.prepared(item) {
            Ok(prepared) => Some(prepared),
            Err(reason) => {
                self.group.stage(Staged::Ended {
                    position,
                    from: BatchItemState::Pending,
                    end: ItemEnd {
                        state: BatchItemState::Error,
                        attempts: 0,
                        last_status: None,
                        error_kind: None,
                        reason,
                    },
                    run: None,
                });
                None
            }
        }
    }

    /// [`Self::prepare`]'s work; `Err` is the reason the item is not sent.
    fn prepared(&self, item: QueuedItem) -> Result<Prepared, String> {
        let position = item.position;
        let spec = item.request?;
        let profile = match &item.profile {
            None => self.batch_profile.clone(),
            Some(name) => (self.profiles)(name)
                .ok_or_else(|| format!("not sent: unknown profile `{name}`"))?,
        };
        // `{{uuid}}` becomes a fresh UUID per item (as on every Send); a batch has no
        // environment, so any other `{{variable}}` is refused naming its place.
        let fresh_uuid = uuid::Uuid::new_v4().to_string();
        let mut spec =
            crate::model::resolve_spec(&spec, &crate::model::Variables::new(), &fresh_uuid)
                .map_err(|e| format!("not sent: {e} (a batch has no environment)"))?;
        if self.idempotency_keys && spec.idempotency_key.is_none() {
            spec.idempotency_key = Some(crate::model::batch_idempotency_key(
                &self.shared.batch_id,
                position,
            ));
        }
        engine::check_spec(&spec).map_err(|e| format!("not sent: {e}"))?;
        Ok(Prepared {
            position,
            spec,
            profile,
        })
    }

    /// Commits the staged changes in one transaction, in the order they happened, then
    /// reports them: no change is reported before it is durable. The store actor commits
    /// them, each item's end with its run's end.
    async fn commit(&mut self) -> Result<(), BatchError> {
        let mut group = std::mem::take(&mut self.group);
        if group.len() == 0 {
            return Ok(());
        }
        let changes: Vec<BatchChange> = group
            .changes
            .iter_mut()
            .map(|change| match change {
                Staged::Started { position, run_id } => BatchChange::Running {
                    position: *position,
                    run_id: run_id.clone(),
                },
                Staged::Ended {
                    position, end, run, ..
                } => BatchChange::Ended {
                    position: *position,
                    end: end.clone(),
                    run: run.take(),
                },
            })
            .collect();
        self.shared
            .store
            .commit_batch(&self.shared.batch_id, changes)
            .await?;
        for change in group.changes {
            let event = match change {
                Staged::Started { position, run_id } => {
                    self.counts
                        .moved(BatchItemState::Pending, BatchItemState::Running);
                    BatchEvent::ItemStarted {
                        batch_id: self.shared.batch_id.clone(),
                        position,
                        run_id,
                    }
                }
                Staged::Ended {
                    position,
                    from,
                    end,
                    ..
                } => {
                    self.counts.moved(from, end.state);
                    finished_event(&self.shared.batch_id, position, end)
                }
            };
            let _ = self.events.send(event).await;
        }
        Ok(())
    }
}

/// How long a staged state change waits, at most, for others to share its commit (and so how
/// much later than its end an item's end is reported: under a frame of the window at 60 Hz).
/// Items keep starting meanwhile; 10,000 one-attempt items then cost about one commit per 10 ms
/// instead of one per item (a shorter window costs more per item: BENCHMARKS.md "Batch runner").
pub const COMMIT_WINDOW: std::time::Duration = std::time::Duration::from_millis(10);

/// Changes one group commit holds at most (a batch of items that all end at once, refused,
/// is committed in rounds of this many).
const GROUP_LIMIT: usize = 256;

fn finished_event(batch_id: &str, position: u64, end: ItemEnd) -> BatchEvent {
    BatchEvent::ItemFinished {
        batch_id: batch_id.to_owned(),
        position,
        state: end.state,
        attempts: end.attempts,
        last_status: end.last_status,
        error_kind: end.error_kind,
        reason: end.reason,
    }
}

/// One item (its `running` staged, perhaps not committed yet): runs through the engine on this
/// task (every event recorded), checks the assertions and reports how it ended. A run that
/// panics ends its item `error` with the panic's message, so one bad item never stalls or
/// poisons the batch (nor every resume of it).
async fn work_item(
    shared: Arc<Shared>,
    item: Prepared,
    recording: RunRecording,
    tx: mpsc::Sender<Ended>,
) {
    let position = item.position;
    let ended = unless_panicked(Box::pin(run_item(shared, item, recording)), |message| {
        Ended {
            position,
            end: ItemEnd {
                state: BatchItemState::Error,
                attempts: 0,
                last_status: None,
                error_kind: None,
                reason: format!(
                    "not finished: the run failed inside Retryscope ({message}); please report it"
                ),
            },
            // Its run, if recorded, is found `interrupted` at the next start.
            run: None,
        }
    })
    .await;
    let _ = tx.send(ended).await;
}

/// The item's run through the engine and how it ended (see [`work_item`]).
async fn run_item(shared: Arc<Shared>, item: Prepared, mut recording: RunRecording) -> Ended {
    let Prepared {
        position,
        spec,
        profile,
    } = item;
    let stop = shared.control.any.clone();
    let budget = shared.budgets.bucket_for(&profile, &spec.url);
    let options = RunOptions {
        run_id: shared.run_ids.fetch_add(1, Ordering::Relaxed) + 1,
        seed: None,
        budget,
    };
    let (run_tx, run_rx) = mpsc::channel::<RunEvent>(crate::service::RUN_EVENT_CAPACITY);
    let (handle, run) = engine::prepare_run(spec, profile, options, run_tx, None);
    let run = run.with_clients(&shared.clients);
    // The assertions look at the response as received; without them the masked copy the
    // recording hands back is enough (no clone of each response).
    let keep_raw = !shared.assertions.is_empty();
    let mut last: Option<AttemptOutcome> = None;
    let mut finished = None;
    drive_events(run, &handle, run_rx, stop.cancelled(), |event| {
        if keep_raw && let RunEvent::AttemptFinished { outcome, .. } = &event {
            last = Some(outcome.clone());
        }
        match recording.observe(event).into_inner() {
            RunEvent::AttemptFinished { outcome, .. } if !keep_raw => last = Some(outcome),
            RunEvent::RunFinished {
                outcome, attempts, ..
            } => finished = Some((outcome, attempts)),
            _ => {}
        }
    })
    .await;
    let mut end = item_end(&shared, last.as_ref(), finished);
    // An assertion's message may quote the response as received (an echoed credential): the
    // one secrets rule applies to it as to the events, before it is stored or reported.
    end.reason = crate::model::mask_secret_values(
        &crate::model::secrets::mask_text(&end.reason),
        recording.secrets(),
    );
    let run = recording.take_end();
    drop(recording);
    Ended { position, end, run }
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
    ItemEnd::from_run(
        outcome.kind,
        outcome.message,
        attempts,
        last,
        &shared.assertions,
        shared.control.is_cancelled(),
    )
}
