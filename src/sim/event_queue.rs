//! The simulator's agenda: events in virtual time, earliest first, ties in the order scheduled.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// What happens at an event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum EventKind {
    /// A client's request reaches the server (the OCC model: its read).
    Arrive,
    /// OCC: a client's conditional write reaches the server, carrying the version it read.
    Write(u64),
    /// The server's answer reaches the client: success, or failure with the `Retry-After`
    /// seconds the server sent.
    Reply {
        /// Whether the attempt succeeded.
        ok: bool,
        /// `Retry-After` seconds, when sent.
        retry_after_s: Option<u64>,
    },
}

/// One scheduled event.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Event {
    /// Virtual time, ms.
    pub(crate) at: f64,
    seq: u64,
    /// Which client, 0-based.
    pub(crate) client: u32,
    pub(crate) kind: EventKind,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Event {}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        self.at.total_cmp(&other.at).then(self.seq.cmp(&other.seq))
    }
}

/// A min-queue of events.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Reverse<Event>>,
    next_seq: u64,
}

impl EventQueue {
    /// An empty queue with room for `capacity` events.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(capacity),
            next_seq: 0,
        }
    }

    /// Schedules `kind` for `client` at `at` ms.
    pub(crate) fn push(&mut self, at: f64, client: u32, kind: EventKind) {
        self.heap.push(Reverse(Event {
            at,
            seq: self.next_seq,
            client,
            kind,
        }));
        self.next_seq += 1;
    }

    /// The earliest event.
    pub(crate) fn pop(&mut self) -> Option<Event> {
        self.heap.pop().map(|Reverse(e)| e)
    }
}
