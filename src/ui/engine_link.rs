//! The workbench's view of the engine: allocate run ids, send commands, drain events.
//!
//! A trait so tests can observe the commands the UI sends ([`ChannelEngine`]) without a network.

use crate::model::{RunEvent, RunId};
use crate::service::{Command, EngineService};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};

/// Capacity of [`ChannelEngine`]'s two bounded channels (commands and events).
pub const CHANNEL_ENGINE_CAPACITY: usize = 1024;

/// What the workbench needs from an engine. Nothing here may block.
pub trait EngineLink {
    /// A fresh run id for [`Command::Start`].
    fn next_run_id(&mut self) -> RunId;
    /// Queues a command; false when the engine is gone or saturated.
    fn send(&mut self, command: Command) -> bool;
    /// Takes one pending event, if any.
    fn try_recv(&mut self) -> Option<RunEvent>;
}

impl EngineLink for EngineService {
    fn next_run_id(&mut self) -> RunId {
        EngineService::next_run_id(self)
    }

    fn send(&mut self, command: Command) -> bool {
        EngineService::send(self, command)
    }

    fn try_recv(&mut self) -> Option<RunEvent> {
        EngineService::try_recv(self)
    }
}

/// An engine stand-in over two bounded channels: the workbench's commands come out of
/// [`EngineProbe::commands`], and events pushed into [`EngineProbe::events`] reach the workbench.
/// Used by tests and by the app when the real engine cannot start.
pub struct ChannelEngine {
    next_id: RunId,
    commands: SyncSender<Command>,
    events: Receiver<RunEvent>,
}

/// The test side of a [`ChannelEngine`].
pub struct EngineProbe {
    /// Commands the workbench sent, in order.
    pub commands: Receiver<Command>,
    /// Push events here to feed the workbench.
    pub events: SyncSender<RunEvent>,
}

impl EngineProbe {
    /// Every command sent so far (drains the channel).
    pub fn drain_commands(&self) -> Vec<Command> {
        let mut out = Vec::new();
        loop {
            match self.commands.try_recv() {
                Ok(c) => out.push(c),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return out,
            }
        }
    }
}

impl ChannelEngine {
    /// A connected engine/probe pair; run ids start at 1.
    pub fn new() -> (Self, EngineProbe) {
        let (cmd_tx, cmd_rx) = sync_channel(CHANNEL_ENGINE_CAPACITY);
        let (ev_tx, ev_rx) = sync_channel(CHANNEL_ENGINE_CAPACITY);
        (
            Self {
                next_id: 1,
                commands: cmd_tx,
                events: ev_rx,
            },
            EngineProbe {
                commands: cmd_rx,
                events: ev_tx,
            },
        )
    }
}

impl EngineLink for ChannelEngine {
    fn next_run_id(&mut self) -> RunId {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn send(&mut self, command: Command) -> bool {
        self.commands.try_send(command).is_ok()
    }

    fn try_recv(&mut self) -> Option<RunEvent> {
        self.events.try_recv().ok()
    }
}
