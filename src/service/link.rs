//! The one way a face drives the process's core (DESIGN.md §11): [`CoreCommand`]s in, one
//! stream of [`CoreEvent`]s out, through one handle, [`CoreLink`]. Behind it one task on the
//! core passes each command on without waiting for the store: a run command goes to the engine
//! part (every run draws retry budgets from the core's registry, uses its HTTP clients and is
//! recorded and logged through [`RunRecording`]), a watch command to the watches part
//! ([`super::watch_link`]: each watch's slots are runs of the same engine, recorded under the
//! watch), batch commands and history queries go, in the order asked, to the store part
//! ([`super::batch_commands`]), whose calls are jobs of the store actor. [`CoreLink::probe`] is the same handle with a [`CoreProbe`] behind it: the
//! window's tests see every command and feed the events.

use super::batch_commands::{BatchCommand, BatchReply, BatchSetup, Setup};
use super::budget_registry::BudgetRegistry;
use super::core::Core;
use super::history_queries::{HistoryReply, HistoryRequest};
use super::run_recording::RunRecording;
use super::watch_link::{WatchCommand, WatchUpdate, Watches};
use super::watch_service::{LiveRuns, WatchParts};
use crate::engine::{ClientCache, RunOptions, Waker, prepare_run};
use crate::model::{RequestSpec, RetryProfile, RunEvent, RunId};
use crate::store::{HistoryWriter, SecretStore};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::mpsc;

/// Capacity of the command channel (face → core), commands.
pub const COMMAND_CAPACITY: usize = 1024;
/// Capacity of the event channel (core → face), events; a run waits while it is full.
pub const EVENT_CAPACITY: usize = 4096;
/// Capacity of each run's own event channel (engine → recorder), events.
pub const RUN_EVENT_CAPACITY: usize = 256;

/// What a face asks of the core.
// `Start` is much larger than the other variants; commands are few and short-lived, and the
// variant's shape is the contract the faces build against, so it stays unboxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum CoreCommand {
    /// Start a run with this id; its events come back as [`CoreEvent::Run`].
    Start {
        /// Id the face allocated ([`CoreLink::next_run_id`]).
        run_id: RunId,
        /// The request.
        spec: RequestSpec,
        /// The profile.
        profile: RetryProfile,
        /// Seed override.
        seed: Option<u64>,
        /// Secret values the request was built from (secret variables, auth fields), masked in
        /// the history and the log besides what the request itself holds (DESIGN.md §9).
        secrets: Vec<String>,
    },
    /// Cancel a run (no effect on a finished or unknown run).
    Cancel(RunId),
    /// Skip a run's current wait (no effect outside a wait).
    SkipWait(RunId),
    /// A batch command, answered with [`CoreEvent::Batch`].
    Batch(BatchCommand),
    /// A history query, answered with [`CoreEvent::History`] (a page request that a newer one
    /// follows goes unanswered).
    History(HistoryRequest),
    /// A watch command; each watch's events come back as [`CoreEvent::Watch`].
    Watch(WatchCommand),
}

/// What the core tells a face.
#[derive(Debug, Clone)]
pub enum CoreEvent {
    /// An event of a run the face started (unmasked: the window masks what it shows, with a
    /// reveal toggle; a finished run is committed before its `RunFinished` arrives).
    Run(RunEvent),
    /// A batch reply, or a step of the batch being worked (committed before it is sent).
    Batch(BatchReply),
    /// A history answer.
    History(HistoryReply),
    /// An event of a watch the face started or resumed (its runs' events, for a watch shown
    /// live, come as [`CoreEvent::Run`]).
    Watch(WatchUpdate),
}

/// What a link is started with.
pub struct LinkSetup {
    /// Called after every event queued for the face (keep it cheap, e.g. a repaint request).
    pub waker: Waker,
    /// The data folder whose history the link serves and keeps batches in (the core's store
    /// actor of that folder); `None`: no history, no batches, runs not recorded.
    pub data_dir: Option<PathBuf>,
    /// Record every run the link starts in that history (else runs are only logged).
    pub record_runs: bool,
    /// Most response body bytes the history keeps per attempt.
    pub body_cap: usize,
    /// What batch commands need; `None`: the face offers no batches.
    pub batches: Option<BatchSetup>,
    /// Where a watch whose request holds secrets keeps them, for a resume by another process
    /// (the OS keyring through the core's worker); `None`: in memory only.
    pub secrets: Option<Arc<dyn SecretStore>>,
}

/// History queries asked and not yet answered or dropped, and the number of the newest page
/// request (older ones are not answered).
#[derive(Debug, Clone, Default)]
pub(super) struct Queries {
    in_flight: Arc<AtomicUsize>,
    latest_page: Arc<AtomicU64>,
}

impl Queries {
    /// Counts `command` when it is a history query; its page number (0: not a page request).
    fn asked(&self, command: &CoreCommand) -> u64 {
        let CoreCommand::History(request) = command else {
            return 0;
        };
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        match request {
            HistoryRequest::Page { .. } => self.latest_page.fetch_add(1, Ordering::SeqCst) + 1,
            _ => 0,
        }
    }

    /// One history query answered (or dropped, or never sent).
    pub(super) fn answered(&self) {
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }

    /// The number of the newest page request.
    pub(super) fn latest_page(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.latest_page)
    }
}

/// The sending half of a [`CoreLink`], for the panels that ask the core for things (the
/// History panel, the Batch tab); clones share the channel. Never blocks.
#[derive(Debug, Clone)]
pub struct CoreSender {
    commands: mpsc::Sender<(CoreCommand, u64)>,
    queries: Queries,
}

impl CoreSender {
    /// Queues `command`; false when the core is gone or saturated.
    pub fn send(&self, command: CoreCommand) -> bool {
        let history = matches!(command, CoreCommand::History(_));
        let page = self.queries.asked(&command);
        let sent = self.commands.try_send((command, page)).is_ok();
        if history && !sent {
            self.queries.answered();
        }
        sent
    }

    /// True when every history query sent so far has been answered or dropped (tests wait on
    /// it).
    pub fn queries_idle(&self) -> bool {
        self.queries.in_flight.load(Ordering::SeqCst) == 0
    }
}

/// A face's handle on the core: send [`CoreCommand`]s, drain [`CoreEvent`]s, never block.
/// Dropping it (or [`Self::stop`]) ends its task: runs are cancelled and record their end, the
/// batch being worked is paused without being marked paused by the user (the window's next
/// start resumes it).
pub struct CoreLink {
    sender: CoreSender,
    events: mpsc::Receiver<CoreEvent>,
    /// The face's run ids and runs in flight, shared with the engine part and the watches it
    /// shows live (their runs take ids from it).
    runs: LiveRuns,
    offer: LinkOffer,
    /// Told when the link's task has ended (`None`: a probe, no task).
    ended: Option<std::sync::mpsc::Receiver<()>>,
}

/// What a link serves, decided when it starts (a probe serves nothing).
#[derive(Debug, Clone, Default)]
pub struct LinkOffer {
    /// The runs it starts are recorded in a history.
    pub recording: bool,
    /// It answers history queries (its data folder's store is open).
    pub history: bool,
    /// It works batches.
    pub batches: bool,
    /// Why there is no history, when the data folder's store could not be opened.
    pub history_problem: Option<String>,
}

/// The test side of [`CoreLink::probe`] and [`CoreLink::start_probed`]: the run commands the
/// face sent, and a way to feed it events.
pub struct CoreProbe {
    commands: Mutex<mpsc::Receiver<(CoreCommand, u64)>>,
    events: mpsc::Sender<CoreEvent>,
}

impl CoreProbe {
    /// Every command passed on so far, in order (drains them).
    pub fn drain_commands(&self) -> Vec<CoreCommand> {
        let mut commands = self.commands.lock().unwrap_or_else(PoisonError::into_inner);
        std::iter::from_fn(|| commands.try_recv().ok().map(|(c, _)| c)).collect()
    }

    /// Feeds a run event to the face as the engine would; false when the face is gone or
    /// [`EVENT_CAPACITY`] events wait.
    pub fn send_run(&self, event: RunEvent) -> bool {
        self.events.try_send(CoreEvent::Run(event)).is_ok()
    }
}

impl CoreLink {
    /// Starts the link's task on `core` (which needs worker threads: the face does not drive
    /// the runtime). Opens the store actor of `setup.data_dir`; a store that cannot be opened is
    /// not an error: runs go on unrecorded, there is no history nor batches, and
    /// [`LinkOffer::history_problem`] says why.
    pub fn start(core: &Core, setup: LinkSetup) -> Self {
        Self::serve(core, setup, None).0
    }

    /// [`Self::start`] with the run commands passed to the returned probe instead of the
    /// engine (tests: a real history and batch queue, runs observed and fed by hand).
    pub fn start_probed(core: &Core, setup: LinkSetup) -> (Self, CoreProbe) {
        let (tx, commands) = mpsc::channel(COMMAND_CAPACITY);
        let (link, events) = Self::serve(core, setup, Some(tx));
        let commands = Mutex::new(commands);
        (link, CoreProbe { commands, events })
    }

    /// A link with nothing behind it: every command comes out of the probe, the events fed to
    /// the probe reach the face; it serves no history and no batches.
    pub fn probe() -> (Self, CoreProbe) {
        let (commands, command_rx) = mpsc::channel(COMMAND_CAPACITY);
        let (events_tx, events) = mpsc::channel(EVENT_CAPACITY);
        let link = Self::over(commands, events, LinkOffer::default(), None);
        let (commands, events) = (Mutex::new(command_rx), events_tx);
        (link, CoreProbe { commands, events })
    }

    fn over(
        commands: mpsc::Sender<(CoreCommand, u64)>,
        events: mpsc::Receiver<CoreEvent>,
        offer: LinkOffer,
        ended: Option<std::sync::mpsc::Receiver<()>>,
    ) -> Self {
        let queries = Queries::default();
        let sender = CoreSender { commands, queries };
        Self {
            sender,
            events,
            runs: LiveRuns {
                ids: Arc::new(AtomicU64::new(1)),
                handles: Arc::default(),
            },
            offer,
            ended,
        }
    }

    fn serve(
        core: &Core,
        setup: LinkSetup,
        probe: Option<mpsc::Sender<(CoreCommand, u64)>>,
    ) -> (Self, mpsc::Sender<CoreEvent>) {
        let store = match setup.data_dir.as_deref().map(|d| core.history_writer(d)) {
            Some(Ok(store)) => Ok(store),
            Some(Err(e)) => Err(format!("runs are not recorded in the history: {e}")),
            None => Err("the history is not available: no data folder".to_owned()),
        };
        let (commands, command_rx) = mpsc::channel(COMMAND_CAPACITY);
        let (events_tx, events) = mpsc::channel(EVENT_CAPACITY);
        let (ended_tx, ended) = std::sync::mpsc::sync_channel(1);
        let offer = LinkOffer {
            recording: store.is_ok() && setup.record_runs && probe.is_none(),
            history: store.is_ok(),
            batches: store.is_ok() && setup.batches.is_some(),
            history_problem: setup.data_dir.as_ref().and(store.as_ref().err().cloned()),
        };
        let link = Self::over(commands, events, offer, Some(ended));
        let out = Out {
            events: events_tx.clone(),
            waker: setup.waker,
        };
        let watch_parts = store.clone().map(|writer| WatchParts {
            writer,
            keyring: setup.secrets.unwrap_or_else(|| {
                Arc::new(crate::store::MemorySecretStore::new()) as Arc<dyn SecretStore>
            }),
            budgets: core.budgets().clone(),
            clients: core.clients().clone(),
            live: Some(link.runs.clone()),
        });
        let runs = match probe {
            Some(probe) => Runs::Probe(probe),
            None => Runs::Engine(Engine {
                writer: store.clone().ok().filter(|_| setup.record_runs),
                body_cap: setup.body_cap,
                budgets: core.budgets().clone(),
                clients: core.clients().clone(),
                runs: link.runs.clone(),
                forwarders: Vec::new(),
                watches: Watches::new(watch_parts.map_err(|p| format!("cannot watch: {p}"))),
            }),
        };
        let store_part = Setup {
            store,
            batches: setup.batches,
            budgets: core.budgets().clone(),
            clients: core.clients().clone(),
            out: out.clone(),
            queries: link.sender.queries.clone(),
        };
        core.spawn(async move {
            dispatch(command_rx, out, runs, store_part).await;
            let _ = ended_tx.send(());
        });
        (link, events_tx)
    }

    /// A fresh run id for [`CoreCommand::Start`].
    pub fn next_run_id(&mut self) -> RunId {
        self.runs.ids.fetch_add(1, Ordering::SeqCst)
    }

    /// Queues `command` without blocking; false when the core is gone or saturated.
    pub fn send(&self, command: CoreCommand) -> bool {
        self.sender.send(command)
    }

    /// Takes one pending event, if any, without blocking.
    pub fn try_recv(&mut self) -> Option<CoreEvent> {
        self.events.try_recv().ok()
    }

    /// Waits for the next event (a face that awaits, such as the CLI's `watch`); `None` once
    /// the link's task has ended.
    pub async fn recv(&mut self) -> Option<CoreEvent> {
        self.events.recv().await
    }

    /// A sending half for a panel that asks the core for things.
    pub fn sender(&self) -> CoreSender {
        self.sender.clone()
    }

    /// What the link serves.
    pub fn offer(&self) -> &LinkOffer {
        &self.offer
    }

    /// Ends the link as closing the window does and waits at most `wait` for its task to end
    /// (runs record their end as cancelled; the batch being worked is paused, not marked paused
    /// by the user, and its runs in flight are back to `pending`); true when it ended. No event
    /// arrives after it.
    pub fn stop(&mut self, wait: std::time::Duration) -> bool {
        self.events.close();
        self.ended
            .as_ref()
            .is_none_or(|ended| ended.recv_timeout(wait).is_ok())
    }
}

/// How the parts of a link answer its face.
#[derive(Clone)]
pub(super) struct Out {
    events: mpsc::Sender<CoreEvent>,
    waker: Waker,
}

impl Out {
    /// Passes `event` on (waiting while the face's channel is full) and wakes the face; false
    /// when the face is gone.
    pub(super) async fn send(&self, event: CoreEvent) -> bool {
        let sent = self.events.send(event).await.is_ok();
        if sent {
            (self.waker)();
        }
        sent
    }

    /// Passes `event` on unless the face's channel is full, and wakes the face.
    pub(super) fn try_send(&self, event: CoreEvent) {
        if self.events.try_send(event).is_ok() {
            (self.waker)();
        }
    }
}

/// The link's task: passes each command on until the face lets go (the link dropped or
/// stopped, or every sender dropped), then lets the store part pause its batch and the runs
/// record their end.
async fn dispatch(
    mut commands: mpsc::Receiver<(CoreCommand, u64)>,
    out: Out,
    mut runs: Runs,
    store_part: Setup,
) {
    let (to_store, store_rx) = mpsc::unbounded_channel();
    let store_task = tokio::spawn(super::batch_commands::serve(store_part, store_rx));
    loop {
        let next = tokio::select! {
            next = commands.recv() => next,
            () = out.events.closed() => None,
        };
        let Some((command, page)) = next else {
            break;
        };
        match command {
            CoreCommand::Batch(_) | CoreCommand::History(_) => {
                let _ = to_store.send((command, page));
            }
            run => match &mut runs {
                Runs::Engine(engine) => engine.command(run, &out),
                Runs::Probe(probe) => {
                    let _ = probe.try_send((run, page));
                }
            },
        }
    }
    drop(to_store);
    let _ = store_task.await;
    if let Runs::Engine(engine) = runs {
        engine.close().await;
    }
}

/// Where run commands go.
enum Runs {
    Engine(Engine),
    /// To a [`CoreProbe`] (tests).
    Probe(mpsc::Sender<(CoreCommand, u64)>),
}

/// The engine part: every run draws retry budgets from the core's registry, uses its HTTP
/// clients and is recorded through the store actor when the link records runs.
struct Engine {
    writer: Option<Arc<HistoryWriter>>,
    body_cap: usize,
    budgets: BudgetRegistry,
    clients: ClientCache,
    runs: LiveRuns,
    forwarders: Vec<tokio::task::JoinHandle<()>>,
    watches: Watches,
}

impl Engine {
    fn command(&mut self, command: CoreCommand, out: &Out) {
        self.runs.lock().retain(|_, handle| !handle.is_finished());
        self.forwarders.retain(|f| !f.is_finished());
        match command {
            CoreCommand::Start {
                run_id,
                spec,
                profile,
                seed,
                secrets,
            } => {
                let record = RunRecording::new(
                    &spec,
                    &profile,
                    &secrets,
                    self.writer.clone(),
                    self.body_cap,
                );
                let (run_tx, run_rx) = mpsc::channel(RUN_EVENT_CAPACITY);
                let budget = self.budgets.bucket_for(&profile, &spec.url);
                let options = RunOptions {
                    run_id,
                    seed,
                    budget,
                };
                let (handle, run) = prepare_run(spec, profile, options, run_tx, None);
                tokio::spawn(run.with_clients(&self.clients).drive());
                let forwarder = tokio::spawn(forward(run_rx, record, out.clone()));
                self.forwarders.push(forwarder);
                self.runs.lock().insert(run_id, handle);
            }
            CoreCommand::Cancel(run_id) => {
                if let Some(handle) = self.runs.lock().get(&run_id) {
                    handle.cancel();
                }
            }
            CoreCommand::SkipWait(run_id) => {
                if let Some(handle) = self.runs.lock().get(&run_id) {
                    handle.skip_wait();
                }
            }
            CoreCommand::Watch(command) => self.watches.command(command, out),
            CoreCommand::Batch(_) | CoreCommand::History(_) => {}
        }
    }

    /// Cancels every run and pauses every watch, and lets each record its end.
    async fn close(self) {
        // The watches first: each is paused (its run cancelled by that), not left to go on
        // after its run is cancelled.
        let watches = self.watches.close();
        for handle in self.runs.lock().values() {
            handle.cancel();
        }
        watches.await;
        for f in self.forwarders {
            let _ = f.await;
        }
    }
}

/// Records each event of one run, then passes it on and wakes the face. A finished run is
/// committed before its last event is passed on, so a history list refreshed on `RunFinished`
/// shows it whole. Ends with the run (its sender dropped); a face that is gone (window
/// closing) does not stop the recording.
async fn forward(mut run_events: mpsc::Receiver<RunEvent>, mut record: RunRecording, out: Out) {
    let mut face_gone = false;
    while let Some(event) = run_events.recv().await {
        let finished = matches!(event, RunEvent::RunFinished { .. });
        record.observe(event.clone());
        if finished {
            let _ = tokio::task::block_in_place(|| record.flush());
        }
        if !face_gone {
            face_gone = !out.send(CoreEvent::Run(event)).await;
        }
    }
}
