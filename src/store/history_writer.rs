//! The store actor: one named thread, `retryscope-db`, per data folder, owning the one
//! SQLite connection of the process to that folder's `history.sqlite3` (the run history and
//! the batch queue, [`BatchQueue`]). Everything that touches the database goes through it as a
//! message on one unbounded channel, served in order:
//! - a run's (masked) events, fire-and-forget ([`HistoryWriter::record_run`],
//!   [`HistoryWriter::record_event`]): folded into rows on this thread and committed in one
//!   transaction with the writes that arrive within [`GATHER_WINDOW`] of the first (a group
//!   commit). A send never waits and never blocks: when [`WRITER_QUEUE`] messages wait, a run's
//!   detail events (an attempt's start and end, waits, budget changes) are counted instead of
//!   queued, and the run's recorded outcome message says how many were not kept; its start and
//!   end always are;
//! - a batch's item changes with their runs' ends, acknowledged after their one transaction
//!   ([`HistoryWriter::commit_batch`]);
//! - any other read or write of the history or the batch queue, acknowledged with its result
//!   ([`HistoryWriter::call`], [`HistoryWriter::call_blocking`]): the batch runner's page reads
//!   and claims, the Batch tab's and the History panel's queries.
//!
//! So no SQLite call runs on a tokio worker or on the UI thread, and no two connections of one
//! process wait for each other's lock. The actor measures, for every attempt record, the time
//! from its send to its commit ([`HistoryWriter::attempt_commit_latency`]).
//!
//! WAL checkpoints (copying the WAL back into the database, with their fsyncs) run on a second
//! thread, `retryscope-wal`, every [`CHECKPOINT_EVERY`], with a connection that only does that;
//! once the WAL holds [`CATCH_UP_FRAMES`] frames the actor, between two of its commits, copies
//! the frames committed meanwhile and starts the WAL over, so under a steady stream of runs the
//! WAL stays near 16 MiB instead of growing for as long as the stream lasts
//! ([`HistoryStore::catch_up_checkpoint`]).

use super::batch_commit::{BatchChange, BatchCommit, commit_batch};
use super::batch_error::BatchError;
use super::batch_queue::BatchQueue;
use super::history::{Checkpointer, HistoryStore};
use super::history_error::HistoryError;
use super::history_group::merge_group;
use super::history_recorder::{HistoryRecorder, RecorderSeed};
use super::history_records::HistoryWrite;
use crate::model::RunEvent;
use crate::model::secrets::Masked;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Store actors alive in the process ([`HistoryWriter::live_count`]).
static LIVE_WRITERS: AtomicUsize = AtomicUsize::new(0);

/// Name of the store actor's thread.
pub const STORE_THREAD_NAME: &str = "retryscope-db";

/// How many messages may wait for the writer before a run's detail events are dropped (its
/// start and end, batch commits, calls and flushes are always queued; nothing ever blocks).
pub const WRITER_QUEUE: usize = 1024;

/// How often the checkpoint thread copies the WAL back into the database.
pub const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

/// Name of the checkpoint thread.
pub const CHECKPOINT_THREAD_NAME: &str = "retryscope-wal";

/// How many frames the WAL holds (about 16 MiB at SQLite's 4 KiB pages) before the actor
/// copies the frames the checkpoint thread left and starts it over. That copy syncs the
/// database on the actor's thread, holding up the commits behind it, so it is done when the WAL
/// has grown this much, not after every checkpoint.
const CATCH_UP_FRAMES: i64 = 4096;

/// A read or write run on the store thread with the process's connection; its result goes
/// back through the channel the closure holds.
type Job = Box<dyn FnOnce(&mut BatchQueue) + Send>;

enum Message {
    /// A write and when it was sent.
    Write(HistoryWrite, Instant),
    /// A run to record from now on: the writer makes its recorder.
    Begin(RunKey, Box<RecorderSeed>),
    /// An event of a run begun with [`Message::Begin`] (already masked) and when it was sent.
    Event(RunKey, Box<Masked<RunEvent>>, Instant),
    /// The run will send no more events (its recorder is dropped).
    End(RunKey),
    Flush(SyncSender<()>),
    /// A batch's item changes with their runs' ends, committed in one transaction.
    Batch(Box<BatchCommit>),
    /// Any other read or write (after the writes queued before it are committed).
    Call(Job),
}

/// A run recorded through [`HistoryWriter::record_run`]: names it in
/// [`HistoryWriter::record_event`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RunKey(u64);

/// Handle of the writer thread. Dropping it (or [`Self::close`]) lets the thread finish the
/// queued writes and end.
#[derive(Debug)]
pub struct HistoryWriter {
    tx: Option<Sender<Message>>,
    /// Messages sent and not yet taken by the writer.
    depth: Arc<AtomicUsize>,
    /// Detail events not queued per run (the queue was full), said in its end's record.
    dropped: Arc<Mutex<HashMap<RunKey, u64>>>,
    thread: Option<JoinHandle<()>>,
    failure: Arc<Mutex<Option<HistoryError>>>,
    latency: Arc<Mutex<LatencyRecord>>,
    /// The last [`RunKey`] handed out.
    keys: AtomicU64,
    /// The first failure was returned to a caller already (a close does not repeat it).
    told: AtomicBool,
    /// Dropping it stops the checkpoint thread.
    checkpoint_stop: Option<SyncSender<()>>,
    checkpoint_thread: Option<JoinHandle<()>>,
}

/// Send-to-commit times of attempt records, as [`HistoryWriter::attempt_commit_latency`]
/// reports them (ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommitLatency {
    /// Attempt records committed.
    pub count: u64,
    /// Median, ms.
    pub p50_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Largest, ms.
    pub max_ms: f64,
    /// Transactions the writer committed (group commits, each holding one write or more).
    pub commits: u64,
    /// Writes those transactions held, after merging a run's writes made in one group.
    pub writes: u64,
}

/// Microsecond histogram of attempt commits (1 µs to 60 s, 3 significant digits: ~100 KiB),
/// and the count of transactions and of the writes in them.
#[derive(Debug)]
struct LatencyRecord(Option<hdrhistogram::Histogram<u64>>, u64, u64);

impl LatencyRecord {
    fn new() -> Self {
        Self(
            hdrhistogram::Histogram::new_with_bounds(1, 60_000_000, 3).ok(),
            0,
            0,
        )
    }

    fn add(&mut self, since: Instant) {
        let micros = u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX);
        if let Some(h) = &mut self.0 {
            h.saturating_record(micros.max(1));
        }
    }
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Message::Write(..) => "Write",
            Message::Begin(..) => "Begin",
            Message::Event(..) => "Event",
            Message::End(_) => "End",
            Message::Flush(_) => "Flush",
            Message::Batch(_) => "Batch",
            Message::Call(_) => "Call",
        })
    }
}

impl HistoryWriter {
    /// Starts the store thread [`STORE_THREAD_NAME`] owning `store`'s connection (the history
    /// and the batch queue in it), and `retryscope-wal`, which copies the WAL back
    /// every [`CHECKPOINT_EVERY`] with a connection of its own, so no commit waits for that
    /// copy's fsyncs. (When the checkpoint connection cannot open, the actor's connection keeps
    /// SQLite's own checkpoints.)
    ///
    /// # Errors
    /// [`HistoryError::WriterGone`] when the OS cannot start a thread.
    pub fn spawn(store: HistoryStore) -> Result<Self, HistoryError> {
        Self::spawn_with(store, Some(GATHER_WINDOW))
    }

    /// [`Self::spawn`] with group commits gathered for `window` instead of [`GATHER_WINDOW`]
    /// (the history benchmark compares windows: a longer one commits less often and makes each
    /// write wait longer).
    ///
    /// # Errors
    /// As [`Self::spawn`].
    pub fn spawn_gathering(store: HistoryStore, window: Duration) -> Result<Self, HistoryError> {
        Self::spawn_with(store, Some(window))
    }

    /// Starts the store thread for a process that records a run or two and ends
    /// (`retryscope run`, `curl`): no checkpoint thread, and the WAL is left for a later process
    /// to copy back (`HistoryStore::leave_checkpoints_to_later_processes`), so the process
    /// ends without waiting for a checkpoint's fsyncs; each write is committed as it comes (no
    /// [`GATHER_WINDOW`]: there are no other runs' writes to wait for).
    ///
    /// # Errors
    /// [`HistoryError::Sql`] when the checkpoint settings cannot be made;
    /// [`HistoryError::WriterGone`] when the OS cannot start the thread.
    pub fn spawn_for_one_shot(store: HistoryStore) -> Result<Self, HistoryError> {
        store.leave_checkpoints_to_later_processes()?;
        Self::spawn_with(store, None)
    }

    /// `gather`: a long-running store, with a checkpoint thread and group commits gathered for
    /// that window; `None`: a one-shot process's.
    fn spawn_with(store: HistoryStore, gather: Option<Duration>) -> Result<Self, HistoryError> {
        let long_running = gather.is_some();
        // Set by the checkpoint thread when frames were left; the actor copies them after its
        // next commit ([`HistoryStore::catch_up_checkpoint`]).
        let catch_up = Arc::new(AtomicBool::new(false));
        let (mut checkpoint_stop, mut checkpoint_thread) = (None, None);
        if long_running
            && let Ok(checkpointer) = Checkpointer::open(store.path())
            && store.take_over_checkpoints().is_ok()
        {
            let (stop_tx, stop_rx) = sync_channel::<()>(1);
            let wanted = Arc::clone(&catch_up);
            let handle = std::thread::Builder::new()
                .name(CHECKPOINT_THREAD_NAME.into())
                .spawn(move || {
                    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                        stop_rx.recv_timeout(CHECKPOINT_EVERY)
                    {
                        // A failed checkpoint is retried next time; the data is in the WAL.
                        if checkpointer
                            .checkpoint()
                            .is_ok_and(|frames| frames >= CATCH_UP_FRAMES)
                        {
                            wanted.store(true, Ordering::Relaxed);
                        }
                    }
                })
                .map_err(|e| {
                    HistoryError::WriterGone(format!("cannot start the checkpoint thread: {e}"))
                })?;
            checkpoint_stop = Some(stop_tx);
            checkpoint_thread = Some(handle);
        }
        let queue = BatchQueue::new(store, super::memory_secret_store("no secrets yet").store);
        // Unbounded, with its depth counted: a send never blocks, and past WRITER_QUEUE only a
        // run's start and end, batch commits, calls and flushes are queued (few per run).
        let (tx, rx) = channel();
        let depth = Arc::new(AtomicUsize::new(0));
        let dropped = Arc::new(Mutex::new(HashMap::new()));
        let queue_end = Queue {
            rx,
            depth: Arc::clone(&depth),
            dropped: Arc::clone(&dropped),
        };
        let failure = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&failure);
        let latency = Arc::new(Mutex::new(LatencyRecord::new()));
        let times = Arc::clone(&latency);
        let thread = std::thread::Builder::new()
            .name(STORE_THREAD_NAME.into())
            .spawn(move || write_loop(queue, &queue_end, &slot, &times, &catch_up, gather))
            .map_err(|e| HistoryError::WriterGone(format!("cannot start the thread: {e}")))?;
        LIVE_WRITERS.fetch_add(1, Ordering::SeqCst);
        Ok(Self {
            tx: Some(tx),
            depth,
            dropped,
            thread: Some(thread),
            failure,
            latency,
            keys: AtomicU64::new(0),
            told: AtomicBool::new(false),
            checkpoint_stop,
            checkpoint_thread,
        })
    }

    /// How many store actors (each a [`STORE_THREAD_NAME`] thread) are alive in the process:
    /// one per data folder in use ([`crate::service::Core::history_writer`]).
    pub fn live_count() -> usize {
        LIVE_WRITERS.load(Ordering::SeqCst)
    }

    /// How long attempt records took from [`Self::send`] to their commit, so far; `None` before
    /// the first one.
    pub fn attempt_commit_latency(&self) -> Option<CommitLatency> {
        let record = self.latency.lock().ok()?;
        let h = record.0.as_ref().filter(|h| !h.is_empty())?;
        #[allow(clippy::cast_precision_loss)] // microseconds far below 2^52
        let ms = |micros: u64| micros as f64 / 1000.0;
        Some(CommitLatency {
            count: h.len(),
            p50_ms: ms(h.value_at_quantile(0.5)),
            p99_ms: ms(h.value_at_quantile(0.99)),
            max_ms: ms(h.max()),
            commits: record.1,
            writes: record.2,
        })
    }

    /// Queues `write` (never blocks, never dropped: imports and tests).
    ///
    /// # Errors
    /// The first failure of the writer (after which it keeps applying later writes), or
    /// [`HistoryError::WriterGone`] when its thread ended.
    pub fn send(&self, write: HistoryWrite) -> Result<(), HistoryError> {
        self.post(Message::Write(write, Instant::now()))
    }

    /// Starts recording a run: the writer makes its [`HistoryRecorder`] from `seed` on its own
    /// thread; the run then sends its events with [`Self::record_event`]. Never blocks.
    ///
    /// # Errors
    /// As [`Self::send`].
    pub fn record_run(&self, seed: RecorderSeed) -> Result<RunKey, HistoryError> {
        let key = RunKey(self.keys.fetch_add(1, Ordering::Relaxed).wrapping_add(1));
        self.post(Message::Begin(key, Box::new(seed)))?;
        Ok(key)
    }

    /// Records `event` of the run `key` (masked already, as [`HistoryRecorder::fold_masked`]
    /// takes it): the writer folds it into rows and commits them. After the run's
    /// [`RunEvent::RunFinished`] the key is spent. Never blocks: while [`WRITER_QUEUE`]
    /// messages wait, an event other than the run's start and end is counted instead of queued
    /// (the engine never waits for the disk), and the run's outcome message says so.
    ///
    /// # Errors
    /// As [`Self::send`].
    pub fn record_event(&self, key: RunKey, event: Masked<RunEvent>) -> Result<(), HistoryError> {
        let essential = matches!(
            *event,
            RunEvent::RunStarted { .. } | RunEvent::RunFinished { .. }
        );
        if !essential && self.depth.load(Ordering::Relaxed) >= WRITER_QUEUE {
            self.check()?;
            if let Ok(mut dropped) = self.dropped.lock() {
                *dropped.entry(key).or_insert(0) += 1;
            }
            return Ok(());
        }
        self.post(Message::Event(key, Box::new(event), Instant::now()))
    }

    /// Forgets the run `key` without its [`RunEvent::RunFinished`] (a run dropped before it
    /// ended; the next open marks it `interrupted` once this process is gone). Never blocks:
    /// with a full queue the recorder stays until the writer ends.
    pub fn end_run(&self, key: RunKey) {
        let _ = self.enqueue(Message::End(key));
    }

    /// Commits `changes` to items of batch `batch_id` (a full id) in one transaction, each
    /// item's end with its run's end (the `run` of [`BatchChange::Ended`]), after every write queued
    /// before it; returns once committed. All or none, except that a run end which cannot be
    /// written (its run was deleted) is left out and kept as the writer's first failure.
    ///
    /// # Errors
    /// [`BatchError::WrongState`] when an item to mark `running` is not pending (nothing is
    /// committed then); SQL errors; [`HistoryError::WriterGone`] when the writer's thread ended.
    pub async fn commit_batch(
        &self,
        batch_id: &str,
        changes: Vec<BatchChange>,
    ) -> Result<(), BatchError> {
        if changes.is_empty() {
            return Ok(());
        }
        let (reply, replied) = tokio::sync::oneshot::channel();
        // Not `post`: an earlier failure of the history (a run deleted while it ran) does not
        // stop the batch's own commits.
        self.enqueue(Message::Batch(Box::new(BatchCommit {
            batch_id: batch_id.to_owned(),
            changes,
            reply,
        })))?;
        replied.await.map_err(|_| BatchError::History(gone()))?
    }

    /// Runs `job` on the store thread with the process's connection (the history and the batch
    /// queue), after every message queued before it (writes queued earlier are committed
    /// first), and resolves to its result. For async callers: the task awaits the reply, no
    /// tokio worker runs SQLite.
    ///
    /// # Errors
    /// [`HistoryError::WriterGone`] when the store thread ended (an earlier failure of a run's
    /// write does not stop calls).
    pub async fn call<R, F>(&self, job: F) -> Result<R, HistoryError>
    where
        F: FnOnce(&mut BatchQueue) -> R + Send + 'static,
        R: Send + 'static,
    {
        let (reply, replied) = tokio::sync::oneshot::channel();
        self.queue_job(Box::new(move |queue| {
            let _ = reply.send(job(queue));
        }))?;
        replied.await.map_err(|_| gone())
    }

    /// [`Self::call`] for a thread outside the runtime (the CLI's main thread, tests): blocks
    /// until the reply. Never call it on a tokio worker or the UI thread.
    ///
    /// # Errors
    /// As [`Self::call`].
    pub fn call_blocking<R, F>(&self, job: F) -> Result<R, HistoryError>
    where
        F: FnOnce(&mut BatchQueue) -> R + Send + 'static,
        R: Send + 'static,
    {
        let (reply, replied) = sync_channel(1);
        self.queue_job(Box::new(move |queue| {
            let _ = reply.send(job(queue));
        }))?;
        replied.recv().map_err(|_| gone())
    }

    /// Queues `job` without waiting for it (it sends its own reply, e.g. to a window's channel).
    ///
    /// # Errors
    /// As [`Self::call`].
    pub fn queue_job(
        &self,
        job: Box<dyn FnOnce(&mut BatchQueue) + Send>,
    ) -> Result<(), HistoryError> {
        self.enqueue(Message::Call(job))
    }

    /// [`Self::enqueue`] unless the writer failed already.
    fn post(&self, message: Message) -> Result<(), HistoryError> {
        self.check()?;
        self.enqueue(message)
    }

    /// Queues `message`, counting it in the queue's depth.
    fn enqueue(&self, message: Message) -> Result<(), HistoryError> {
        self.depth.fetch_add(1, Ordering::Relaxed);
        self.tx
            .as_ref()
            .ok_or_else(|| HistoryError::WriterGone("closed".into()))?
            .send(message)
            .map_err(|_| gone())
    }

    /// Waits until every write queued before this call is committed.
    ///
    /// # Errors
    /// As [`Self::send`].
    pub fn flush(&self) -> Result<(), HistoryError> {
        self.flush_within(None)
    }

    /// [`Self::flush`], waiting at most `limit` (`None`: as long as it takes).
    ///
    /// # Errors
    /// As [`Self::send`]; [`HistoryError::Locked`] when `limit` passed first (another program
    /// holds the database locked, or the disk fell far behind).
    pub fn flush_within(&self, limit: Option<Duration>) -> Result<(), HistoryError> {
        if !self.flushed(limit)? {
            return Err(HistoryError::Locked(limit.unwrap_or_default()));
        }
        self.check()
    }

    /// Whether everything queued before this call was applied within `limit`.
    fn flushed(&self, limit: Option<Duration>) -> Result<bool, HistoryError> {
        let (done_tx, done_rx) = sync_channel(1);
        self.enqueue(Message::Flush(done_tx))?;
        match limit {
            None => done_rx.recv().map(|()| true).map_err(|_| gone()),
            Some(limit) => match done_rx.recv_timeout(limit) {
                Ok(()) => Ok(true),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Ok(false),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(gone()),
            },
        }
    }

    /// Commits what is queued, stops the thread and reports the first failure, if any.
    ///
    /// # Errors
    /// As [`Self::send`].
    pub fn close(mut self) -> Result<(), HistoryError> {
        self.close_now()
    }

    /// [`Self::close`] within `limit`: when what is queued is not committed by then, the thread
    /// is left to finish on its own (the process ends meanwhile; SQLite keeps the database
    /// whole) and [`HistoryError::Locked`] says so.
    ///
    /// # Errors
    /// As [`Self::flush_within`].
    pub fn close_within(mut self, limit: Duration) -> Result<(), HistoryError> {
        if self.flushed(Some(limit))? {
            return self.close_now();
        }
        // Dropping the handles does not wait for the threads.
        self.checkpoint_stop = None;
        self.checkpoint_thread = None;
        self.thread = None;
        self.tx = None;
        Err(HistoryError::Locked(limit))
    }

    /// Ends the checkpoint thread (the actor's connection checkpoints when it closes).
    fn stop_checkpoints(&mut self) {
        self.checkpoint_stop = None;
        if let Some(t) = self.checkpoint_thread.take() {
            let _ = t.join();
        }
    }

    /// Ends the thread once it has applied what is queued; the first failure unless a caller
    /// was told it already.
    fn close_now(&mut self) -> Result<(), HistoryError> {
        self.stop_checkpoints();
        self.tx = None;
        if let Some(t) = self.thread.take()
            && t.join().is_err()
        {
            return Err(HistoryError::WriterGone("its thread panicked".into()));
        }
        if self.told.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.check()
    }

    fn check(&self) -> Result<(), HistoryError> {
        let failed = match self.failure.lock() {
            Ok(f) => f.clone().map_or(Ok(()), Err),
            Err(_) => Err(HistoryError::WriterGone("its thread panicked".into())),
        };
        if failed.is_err() {
            self.told.store(true, Ordering::Relaxed);
        }
        failed
    }
}

fn gone() -> HistoryError {
    HistoryError::WriterGone("its thread ended".into())
}

impl Drop for HistoryWriter {
    fn drop(&mut self) {
        LIVE_WRITERS.fetch_sub(1, Ordering::SeqCst);
        self.stop_checkpoints();
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Most queued writes committed in one transaction.
const GROUP_MAX: usize = 256;

/// How long the writer, woken from idle by a write, lets the writes that follow it (the rest of
/// the attempt's or run's burst, other runs) queue up before committing them all in one
/// transaction. Bounds the extra send-to-commit time of a write; 10,000 runs back to back then
/// cost one wake and one commit per window instead of three each per run (BENCHMARKS.md).
pub const GATHER_WINDOW: Duration = Duration::from_micros(500);

/// Applies messages as they come. Woken from idle by a write, the actor waits
/// [`GATHER_WINDOW`] and commits everything queued by then in one transaction (group commit);
/// when writes queued up while it was committing, it commits those at once without waiting.
/// Either way no write waits for later ones beyond the window, so each finished attempt is
/// committed within about a millisecond of its send, and a burst costs one commit, not many. A
/// batch commit or a call ends the group: it runs after the writes before it are committed.
/// After a commit, when the checkpoint thread asked for it, the WAL is started over. Without
/// `gather` (a one-shot process) it does not wait.
fn write_loop(
    mut queue: BatchQueue,
    messages: &Queue,
    failure: &Mutex<Option<HistoryError>>,
    latency: &Mutex<LatencyRecord>,
    catch_up: &AtomicBool,
    gather: Option<Duration>,
) {
    let mut recorders: HashMap<RunKey, HistoryRecorder> = HashMap::new();
    // The last run's profile and its JSON form (runs back to back mostly share one).
    let mut last_profile = None;
    loop {
        let first = match messages.try_recv() {
            Ok(m) => m,
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                match messages.recv() {
                    Ok(m) => {
                        if let Some(window) = gather
                            && !matches!(
                                m,
                                Message::Flush(_) | Message::Call(_) | Message::Batch(_)
                            )
                        {
                            // Senders do not wake a sleeping actor: the burst queues for free.
                            std::thread::sleep(window);
                        }
                        m
                    }
                    Err(_) => return,
                }
            }
            Err(std::sync::mpsc::TryRecvError::Disconnected) => return,
        };
        let mut writes: Vec<(HistoryWrite, Instant)> = Vec::new();
        let mut flushes = Vec::new();
        // A batch commit or a call ends the group: it runs after the writes before it.
        let mut batch: Option<(Box<BatchCommit>, Vec<HistoryWrite>)> = None;
        let mut call: Option<Job> = None;
        let mut next = Some(first);
        while let Some(message) = next {
            match message {
                Message::Write(w, sent) => writes.push((w, sent)),
                Message::Begin(key, seed) => {
                    recorders.insert(key, seed.into_recorder_with(&mut last_profile));
                }
                Message::Event(key, event, sent) => {
                    let finished = matches!(**event, RunEvent::RunFinished { .. });
                    if let Some(w) = recorders.get_mut(&key).and_then(|r| r.fold_masked(*event)) {
                        writes.push((messages.with_dropped(key, w, finished), sent));
                    }
                    if finished {
                        recorders.remove(&key);
                    }
                }
                Message::End(key) => {
                    recorders.remove(&key);
                    messages.take_dropped(key);
                }
                Message::Flush(done) => flushes.push(done),
                Message::Batch(mut commit) => {
                    let runs = fold_run_ends(messages, &mut recorders, &mut commit.changes);
                    batch = Some((commit, runs));
                    break;
                }
                Message::Call(job) => {
                    call = Some(job);
                    break;
                }
            }
            next = if writes.len() < GROUP_MAX {
                messages.try_recv().ok()
            } else {
                None
            };
        }
        let writes = merge_group(writes);
        commit_group(&mut queue.store, &writes, failure);
        if let Some((commit, runs)) = batch {
            let (result, run_failure) =
                commit_batch(&mut queue.store, &commit.batch_id, &runs, &commit.changes);
            if let Some(e) = run_failure {
                keep_first(failure, e);
            }
            let _ = commit.reply.send(result);
        }
        if let Some(job) = call {
            // A job that panics loses its reply (its caller hears the store is gone), not the
            // actor.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&mut queue)));
        }
        if catch_up.swap(false, Ordering::Relaxed) {
            // A failure leaves the frames for the checkpoint thread's next turn.
            let _ = queue.store.catch_up_checkpoint();
        }
        if let Ok(mut l) = latency.lock() {
            if !writes.is_empty() {
                l.1 += 1;
                l.2 += writes.len() as u64;
            }
            for (w, sent) in &writes {
                if matches!(w, HistoryWrite::AttemptFinished(_)) {
                    l.add(*sent);
                }
            }
        }
        for done in flushes {
            let _ = done.send(());
        }
    }
}

/// The history writes of the run ends in `changes` (each taken out of its change), folded by
/// their runs' recorders, which are done then.
fn fold_run_ends(
    queue: &Queue,
    recorders: &mut HashMap<RunKey, HistoryRecorder>,
    changes: &mut [BatchChange],
) -> Vec<HistoryWrite> {
    let mut runs = Vec::new();
    for change in changes {
        if let BatchChange::Ended { run, .. } = change
            && let Some(end) = run.take()
            && let Some(mut recorder) = recorders.remove(&end.key)
            && let Some(w) = recorder.fold_masked(*end.event)
        {
            runs.push(queue.with_dropped(end.key, w, true));
        }
    }
    runs
}

/// The writer's end of the channel: counts what it takes off the queue, and knows the detail
/// events dropped per run.
struct Queue {
    rx: Receiver<Message>,
    depth: Arc<AtomicUsize>,
    dropped: Arc<Mutex<HashMap<RunKey, u64>>>,
}

impl Queue {
    fn try_recv(&self) -> Result<Message, std::sync::mpsc::TryRecvError> {
        let m = self.rx.try_recv()?;
        self.depth.fetch_sub(1, Ordering::Relaxed);
        Ok(m)
    }

    fn recv(&self) -> Result<Message, std::sync::mpsc::RecvError> {
        let m = self.rx.recv()?;
        self.depth.fetch_sub(1, Ordering::Relaxed);
        Ok(m)
    }

    /// How many detail events of run `key` were dropped (forgotten then).
    fn take_dropped(&self, key: RunKey) -> u64 {
        self.dropped
            .lock()
            .ok()
            .and_then(|mut d| d.remove(&key))
            .unwrap_or(0)
    }

    /// `write`, and when it is run `key`'s end (`finished`) and detail of it was dropped, its
    /// outcome message saying how much.
    fn with_dropped(&self, key: RunKey, mut write: HistoryWrite, finished: bool) -> HistoryWrite {
        if !finished {
            return write;
        }
        let n = self.take_dropped(key);
        if n > 0
            && let HistoryWrite::RunFinished(end) = &mut write
        {
            end.message.push_str(&dropped_note(n));
        }
        write
    }
}

/// What a run's outcome message says when `n` of its detail events were not recorded.
pub(super) fn dropped_note(n: u64) -> String {
    format!(
        " (history: {} of this run not recorded, the history writer fell behind)",
        crate::model::counted(n, "detail event", "detail events")
    )
}

/// Keeps `e` as the writer's first failure unless one is kept already.
fn keep_first(failure: &Mutex<Option<HistoryError>>, e: HistoryError) {
    if let Ok(mut slot) = failure.lock()
        && slot.is_none()
    {
        *slot = Some(e);
    }
}

/// Commits `writes` in one transaction; when that fails, one by one, so one bad write (kept as
/// the first failure) does not lose the others.
fn commit_group(
    store: &mut HistoryStore,
    writes: &[(HistoryWrite, Instant)],
    failure: &Mutex<Option<HistoryError>>,
) {
    if writes.len() > 1 {
        match store.apply_all(writes.iter().map(|(w, _)| w)) {
            Ok(()) => return,
            // One by one, each would wait for the lock again: the group is lost whole.
            Err(e @ HistoryError::Locked(_)) => return keep_first(failure, e),
            Err(_) => {}
        }
    }
    for (w, _) in writes {
        if let Err(e) = store.apply(w)
            && let Ok(mut slot) = failure.lock()
            && slot.is_none()
        {
            *slot = Some(e);
        }
    }
}
