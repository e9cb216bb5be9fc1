//! How many items of a batch are in each state (the progress bar's counts).

use super::batch_item_state::BatchItemState;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Items per state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BatchCounts {
    /// Items not sent yet.
    pub pending: u64,
    /// Items in flight.
    pub running: u64,
    /// Items done.
    pub done: u64,
    /// Items that ended in error.
    pub error: u64,
    /// Items cancelled.
    pub cancelled: u64,
}

impl BatchCounts {
    /// Every item.
    pub fn total(&self) -> u64 {
        self.pending + self.running + self.done + self.error + self.cancelled
    }

    /// Items in a final state (done, error, cancelled).
    pub fn finished(&self) -> u64 {
        self.done + self.error + self.cancelled
    }

    /// The count of `state`.
    pub fn get(&self, state: BatchItemState) -> u64 {
        match state {
            BatchItemState::Pending => self.pending,
            BatchItemState::Running => self.running,
            BatchItemState::Done => self.done,
            BatchItemState::Error => self.error,
            BatchItemState::Cancelled => self.cancelled,
        }
    }

    /// The count of `state`, to change.
    pub fn get_mut(&mut self, state: BatchItemState) -> &mut u64 {
        match state {
            BatchItemState::Pending => &mut self.pending,
            BatchItemState::Running => &mut self.running,
            BatchItemState::Done => &mut self.done,
            BatchItemState::Error => &mut self.error,
            BatchItemState::Cancelled => &mut self.cancelled,
        }
    }

    /// One item moved from `from` to `to` (a count never goes below 0).
    pub fn moved(&mut self, from: BatchItemState, to: BatchItemState) {
        let f = self.get_mut(from);
        *f = f.saturating_sub(1);
        *self.get_mut(to) += 1;
    }

    /// `3 done, 1 error, 0 cancelled, 6 pending` (running shown only when some are).
    pub fn summary(&self) -> String {
        let mut text = format!(
            "{} done, {} error, {} cancelled, {} pending",
            self.done, self.error, self.cancelled, self.pending
        );
        if self.running > 0 {
            let _ = write!(text, ", {} running", self.running);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_keep_the_total() {
        let mut c = BatchCounts {
            pending: 2,
            ..BatchCounts::default()
        };
        c.moved(BatchItemState::Pending, BatchItemState::Running);
        c.moved(BatchItemState::Running, BatchItemState::Done);
        assert_eq!(c.total(), 2);
        assert_eq!(c.finished(), 1);
        assert_eq!(c.summary(), "1 done, 0 error, 0 cancelled, 1 pending");
        c.moved(BatchItemState::Running, BatchItemState::Error);
        assert_eq!(c.running, 0, "never below 0");
    }
}
