//! Watches driven through the link (DESIGN.md §11, §12): [`WatchCommand`]s in, each watch's
//! events out as [`super::CoreEvent::Watch`] (and, for a watch shown live, its runs' events as
//! [`super::CoreEvent::Run`] under run ids taken from the face's own counter). The one loop is
//! [`super::watch_service`]'s; this part keeps each watch's stop and passes its events on.

use super::link::{CoreEvent, Out};
use super::watch_service::{self, WatchEvent, WatchParts, WatchPlan, WatchStop};
use crate::store::WatchState;
use std::collections::HashMap;
use tokio::task::JoinHandle;

/// What a face asks of watches ([`super::CoreCommand::Watch`]).
#[derive(Debug, Clone)]
pub enum WatchCommand {
    /// Start a new watch `plan.id`; `live`: its runs' events come to the face as runs of its
    /// own (the window's timeline), else only the watch's events (the CLI).
    Start {
        /// The watch.
        plan: Box<WatchPlan>,
        /// Pass each run's events on.
        live: bool,
    },
    /// Carry on watch `id` (full, or a unique start of it; its events are named by `id` as
    /// given).
    Resume {
        /// The watch's id as given.
        id: String,
        /// Pass each run's events on.
        live: bool,
    },
    /// Stop watch `id` (as named when started or resumed): the run in flight is cancelled and
    /// recorded, the watch is stored `paused` (resumable). No effect on an unknown watch.
    Stop(String),
}

/// One event of one watch ([`super::CoreEvent::Watch`]).
#[derive(Debug, Clone, PartialEq)]
pub struct WatchUpdate {
    /// The watch as the face named it (the id of its plan, or the id given to resume it).
    pub watch: String,
    /// What happened.
    pub event: WatchEvent,
}

/// The watches a link runs: how to start one (`Err`: why none can be), each one's stop and the
/// task passing its events on.
pub(super) struct Watches {
    parts: Result<WatchParts, String>,
    running: HashMap<String, (WatchStop, JoinHandle<()>)>,
}

impl Watches {
    /// Watches on `parts`, or none, for the reason given.
    pub(super) fn new(parts: Result<WatchParts, String>) -> Self {
        Self {
            parts,
            running: HashMap::new(),
        }
    }

    /// Runs `command`; a watch that cannot start is answered with [`WatchEvent::Failed`].
    pub(super) fn command(&mut self, command: WatchCommand, out: &Out) {
        self.running.retain(|_, (_, task)| !task.is_finished());
        let (id, live, start): (String, bool, Box<dyn FnOnce(WatchParts) -> _>) = match command {
            WatchCommand::Stop(id) => {
                if let Some((stop, _)) = self.running.get(&id) {
                    stop.stop(WatchState::Paused);
                }
                return;
            }
            WatchCommand::Start { plan, live } => (
                plan.id.clone(),
                live,
                Box::new(move |parts| watch_service::start(parts, *plan)),
            ),
            WatchCommand::Resume { id, live } => {
                let wanted = id.clone();
                let resume = move |parts| watch_service::resume(parts, &wanted);
                (id, live, Box::new(resume))
            }
        };
        let failed = |message: String| {
            let event = WatchEvent::Failed(message);
            out.try_send(CoreEvent::Watch(WatchUpdate {
                watch: id.clone(),
                event,
            }));
        };
        if self.running.contains_key(&id) {
            return failed(format!("watch {id} is already running"));
        }
        let mut parts = match &self.parts {
            Ok(parts) => parts.clone(),
            Err(problem) => return failed(problem.clone()),
        };
        if !live {
            parts.live = None;
        }
        let handle = start(parts);
        let task = tokio::spawn(forward(id.clone(), handle.events, out.clone()));
        self.running.insert(id, (handle.stop, task));
    }

    /// Pauses every watch at once (closing the window: each is left resumable); the future
    /// returned ends when each has recorded its end.
    pub(super) fn close(self) -> impl Future<Output = ()> {
        for (stop, _) in self.running.values() {
            stop.stop(WatchState::Paused);
        }
        async move {
            for (_, (_, task)) in self.running {
                let _ = task.await;
            }
        }
    }
}

/// Passes each event of watch `id` on until it ends; a face that is gone does not stop the
/// watch (it ends when stopped, recording its end).
async fn forward(
    id: String,
    mut events: tokio::sync::mpsc::UnboundedReceiver<WatchEvent>,
    out: Out,
) {
    let mut face_gone = false;
    while let Some(event) = events.recv().await {
        if face_gone {
            continue;
        }
        let event = match event {
            WatchEvent::Run(run) => CoreEvent::Run(*run),
            event => CoreEvent::Watch(WatchUpdate {
                watch: id.clone(),
                event,
            }),
        };
        face_gone = !out.send(event).await;
    }
}
