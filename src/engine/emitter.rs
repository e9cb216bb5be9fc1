//! Sends a run's events on the bounded channel, then calls the waker.

use super::Waker;
use crate::model::RunEvent;
use tokio::sync::mpsc;

/// The receiver is gone: nobody listens, so the run stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Closed;

/// Event sink of one run.
#[derive(Clone)]
pub(crate) struct Emitter {
    events: mpsc::Sender<RunEvent>,
    waker: Option<Waker>,
}

impl Emitter {
    /// A sink over `events`, calling `waker` after each queued event.
    pub(crate) fn new(events: mpsc::Sender<RunEvent>, waker: Option<Waker>) -> Self {
        Self { events, waker }
    }

    /// Queues `event` (waiting while the channel is full), then wakes the front end. URL
    /// credentials and secret query values in the event's URLs and messages are masked first
    /// ([`crate::model::secrets::mask_event_urls`]).
    ///
    /// # Errors
    /// [`Closed`] when the receiver was dropped.
    pub(crate) async fn emit(&self, event: RunEvent) -> Result<(), Closed> {
        self.events
            .send(crate::model::secrets::mask_event_urls(event))
            .await
            .map_err(|_| Closed)?;
        if let Some(waker) = &self.waker {
            waker();
        }
        Ok(())
    }
}
