//! The engine as a service for a UI, on the process's [`Core`]: commands in, events out,
//! nothing blocking the caller; every run it starts is recorded in the history (the core's
//! writer) and logged, through the same [`RunRecording`] the CLI uses.

use super::budget_registry::BudgetRegistry;
use super::core::Core;
use super::run_recording::{HistoryPlace, RunRecording};
use crate::engine::{ClientCache, RunHandle, RunOptions, Waker, prepare_run};
use crate::model::{RequestSpec, RetryProfile, RunEvent, RunId};
use crate::store::HistoryWriter;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Capacity of the command channel (UI → engine).
pub const COMMAND_CAPACITY: usize = 256;
/// Capacity of the event channel (engine → UI); a run waits while it is full.
pub const EVENT_CAPACITY: usize = 4096;
/// Capacity of each run's own event channel (engine → recorder), events.
pub const RUN_EVENT_CAPACITY: usize = 256;

/// A command from a front end to the engine service.
// `Start` is much larger than the other variants; commands are few and short-lived, and the
// variant's shape is the contract the UI builds against, so it stays unboxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Command {
    /// Start a run with this id.
    Start {
        /// Id the UI allocated (see [`EngineService::next_run_id`]).
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
}

/// The engine as a service for a UI, running on the process's [`Core`]: commands in, events
/// out, nothing here blocks the caller. Every run draws retry budgets from the core's registry
/// and is recorded through the core's history writer. Dropping the service cancels every run;
/// each records its end (cancelled) before its task ends.
pub struct EngineService {
    commands: mpsc::Sender<Command>,
    events: mpsc::Receiver<RunEvent>,
    next_id: RunId,
    history_problem: Option<String>,
    recording: bool,
}

impl EngineService {
    /// Starts the service's command loop on `core` (which needs worker threads: the caller
    /// does not drive the runtime). `history`: record every run in the history of its data
    /// folder; `None` (or no folder): runs are logged, not recorded. A history that cannot be
    /// opened is not an error: runs go on unrecorded and [`Self::history_problem`] says why.
    /// `waker` is called after every queued event (keep it cheap, e.g.
    /// `ctx.request_repaint_after(10 ms)`).
    pub fn start(core: &Core, waker: Waker, history: Option<HistoryPlace>) -> Self {
        let (writer, body_cap, history_problem) = match history {
            Some(HistoryPlace {
                data_dir: Some(dir),
                body_cap,
            }) => match core.history_writer(&dir) {
                Ok(w) => (Some(w), body_cap, None),
                Err(e) => (
                    None,
                    body_cap,
                    Some(format!("runs are not recorded in the history: {e}")),
                ),
            },
            _ => (None, 0, None),
        };
        let recording = writer.is_some();
        let (commands, command_rx) = mpsc::channel(COMMAND_CAPACITY);
        let (event_tx, events) = mpsc::channel(EVENT_CAPACITY);
        let loop_state = Recording {
            writer,
            body_cap,
            budgets: core.budgets().clone(),
            clients: core.clients().clone(),
        };
        core.spawn(command_loop(command_rx, event_tx, waker, loop_state));
        Self {
            commands,
            events,
            next_id: 1,
            history_problem,
            recording,
        }
    }

    /// Why runs are not recorded, when the history could not be opened.
    pub fn history_problem(&self) -> Option<&str> {
        self.history_problem.as_deref()
    }

    /// True when runs are recorded in a history.
    pub fn is_recording(&self) -> bool {
        self.recording
    }

    /// A fresh run id for [`Command::Start`].
    pub fn next_run_id(&mut self) -> RunId {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sends a command without blocking; returns false if the engine is gone or saturated.
    pub fn send(&self, command: Command) -> bool {
        self.commands.try_send(command).is_ok()
    }

    /// Takes one pending event, if any, without blocking.
    pub fn try_recv(&mut self) -> Option<RunEvent> {
        self.events.try_recv().ok()
    }
}

/// What every run of the service shares: the history writer and the core's budget registry
/// and HTTP clients.
struct Recording {
    writer: Option<Arc<HistoryWriter>>,
    body_cap: usize,
    budgets: BudgetRegistry,
    clients: ClientCache,
}

/// Serves commands until the service is dropped.
async fn command_loop(
    mut commands: mpsc::Receiver<Command>,
    events: mpsc::Sender<RunEvent>,
    waker: Waker,
    recording: Recording,
) {
    let mut runs: HashMap<RunId, RunHandle> = HashMap::new();
    let mut forwarders = Vec::new();
    while let Some(command) = commands.recv().await {
        runs.retain(|_, handle| !handle.is_finished());
        forwarders.retain(|f: &tokio::task::JoinHandle<()>| !f.is_finished());
        match command {
            Command::Start {
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
                    recording.writer.clone(),
                    recording.body_cap,
                );
                let (run_tx, run_rx) = mpsc::channel(RUN_EVENT_CAPACITY);
                let budget = recording.budgets.bucket_for(&profile, &spec.url);
                let options = RunOptions {
                    run_id,
                    seed,
                    budget,
                };
                let (handle, run) = prepare_run(spec, profile, options, run_tx, None);
                tokio::spawn(run.with_clients(&recording.clients).drive());
                forwarders.push(tokio::spawn(forward(
                    run_rx,
                    record,
                    events.clone(),
                    waker.clone(),
                )));
                runs.insert(run_id, handle);
            }
            Command::Cancel(run_id) => {
                if let Some(handle) = runs.get(&run_id) {
                    handle.cancel();
                }
            }
            Command::SkipWait(run_id) => {
                if let Some(handle) = runs.get(&run_id) {
                    handle.skip_wait();
                }
            }
        }
    }
    for handle in runs.values() {
        handle.cancel();
    }
    // Let each run record its end (cancelled) before the writer is dropped.
    for f in forwarders {
        let _ = f.await;
    }
}

/// Records each event of one run, then passes it on (unmasked: the window masks what it shows,
/// with a reveal toggle) and wakes the UI. A finished run is committed before its last event
/// is passed on, so a history list refreshed on `RunFinished` shows it whole. Ends with the
/// run (its sender dropped).
async fn forward(
    mut run_events: mpsc::Receiver<RunEvent>,
    mut record: RunRecording,
    events: mpsc::Sender<RunEvent>,
    waker: Waker,
) {
    // The UI may be gone (window closing) while the run records its end: keep recording.
    let mut ui_gone = false;
    while let Some(event) = run_events.recv().await {
        let finished = matches!(event, RunEvent::RunFinished { .. });
        record.observe(event.clone());
        if finished {
            let _ = tokio::task::block_in_place(|| record.flush());
        }
        if !ui_gone {
            ui_gone = events.send(event).await.is_err();
            if !ui_gone {
                waker();
            }
        }
    }
}
