//! The attempt loop: tokio + reqwest. The only layer that touches the network.
//!
//! STUB: signatures are the contract; the engine work replaces the bodies.

use crate::model::{RequestSpec, RetryProfile, RunEvent, RunId};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Called after each event is queued, so a UI can `request_repaint`. Must be cheap.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Options of one run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Run id carried by every event.
    pub run_id: RunId,
    /// Seed; `None` = the profile's seed, else a fresh random one (reported in `RunStarted`).
    pub seed: Option<u64>,
}

/// Controls one running run.
#[derive(Debug, Clone)]
pub struct RunHandle {
    /// The run's id.
    pub run_id: RunId,
    cancel: CancellationToken,
    skip: Arc<tokio::sync::Notify>,
}

impl RunHandle {
    /// Ends the run within 50 ms, mid-request or mid-wait (`RunFinished` with `cancelled`).
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Ends the current wait now so the next attempt starts (no effect outside a wait).
    pub fn skip_wait(&self) {
        self.skip.notify_one();
    }
}

/// Starts a run on the current tokio runtime; events go to `events` (bounded), then `waker` is called.
/// Must be called from within a tokio runtime.
pub fn start_run(
    spec: RequestSpec,
    profile: RetryProfile,
    options: RunOptions,
    events: mpsc::Sender<RunEvent>,
    waker: Option<Waker>,
) -> RunHandle {
    let _ = (spec, profile, events, waker);
    RunHandle {
        run_id: options.run_id,
        cancel: CancellationToken::new(),
        skip: Arc::new(tokio::sync::Notify::new()),
    }
}

/// A command from a front end to the engine service.
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
    /// Cancel a run.
    Cancel(RunId),
    /// Skip a run's current wait.
    SkipWait(RunId),
}

/// The engine as a service for a UI: its own tokio runtime on a named thread, commands in,
/// events out. Nothing here blocks the caller.
pub struct EngineService {
    commands: mpsc::Sender<Command>,
    events: mpsc::Receiver<RunEvent>,
    next_id: RunId,
}

impl EngineService {
    /// Starts the runtime thread. `waker` is called whenever events are queued.
    ///
    /// # Errors
    /// When the runtime or its thread cannot be created.
    pub fn spawn(waker: Waker) -> std::io::Result<Self> {
        let _ = waker;
        let (commands, _rx) = mpsc::channel(64);
        let (_tx, events) = mpsc::channel(1024);
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
