//! The engine as a service for a UI: its own tokio runtime on a named thread, commands in,
//! events out, nothing blocking the caller.

use super::{RunHandle, RunOptions, Waker, start_run};
use crate::model::{RequestSpec, RetryProfile, RunEvent, RunId};
use std::collections::HashMap;
use tokio::sync::mpsc;

/// Capacity of the command channel (UI → engine).
pub const COMMAND_CAPACITY: usize = 256;
/// Capacity of the event channel (engine → UI); a run waits while it is full.
pub const EVENT_CAPACITY: usize = 4096;
/// Worker threads of the engine's runtime.
pub const ENGINE_WORKERS: usize = 2;

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
    },
    /// Cancel a run (no effect on a finished or unknown run).
    Cancel(RunId),
    /// Skip a run's current wait (no effect outside a wait).
    SkipWait(RunId),
}

/// The engine as a service for a UI: its own tokio runtime ([`ENGINE_WORKERS`] workers) driven
/// from a thread named `retryscope-engine`; commands in, events out. Nothing here blocks the
/// caller. Dropping the service stops the thread and every run.
pub struct EngineService {
    commands: mpsc::Sender<Command>,
    events: mpsc::Receiver<RunEvent>,
    next_id: RunId,
}

impl EngineService {
    /// Starts the runtime thread. `waker` is called after every queued event (keep it cheap,
    /// e.g. `ctx.request_repaint_after(10 ms)`).
    ///
    /// # Errors
    /// When the runtime or its thread cannot be created.
    pub fn spawn(waker: Waker) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(ENGINE_WORKERS)
            .thread_name("retryscope-engine-worker")
            .enable_all()
            .build()?;
        let (commands, command_rx) = mpsc::channel(COMMAND_CAPACITY);
        let (event_tx, events) = mpsc::channel(EVENT_CAPACITY);
        std::thread::Builder::new()
            .name("retryscope-engine".into())
            .spawn(move || runtime.block_on(command_loop(command_rx, event_tx, waker)))?;
        Ok(Self {
            commands,
            events,
            next_id: 1,
        })
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

/// Serves commands until the service is dropped.
async fn command_loop(
    mut commands: mpsc::Receiver<Command>,
    events: mpsc::Sender<RunEvent>,
    waker: Waker,
) {
    let mut runs: HashMap<RunId, RunHandle> = HashMap::new();
    while let Some(command) = commands.recv().await {
        runs.retain(|_, handle| !handle.is_finished());
        match command {
            Command::Start {
                run_id,
                spec,
                profile,
                seed,
            } => {
                let options = RunOptions { run_id, seed };
                let handle = start_run(spec, profile, options, events.clone(), Some(waker.clone()));
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
}
