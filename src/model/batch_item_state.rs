//! The life of one batch item (DESIGN.md §10): `pending → running → done | error |
//! cancelled`.

use serde::{Deserialize, Serialize};

/// Where a batch item is in its life.
#[derive(strum::IntoStaticStr, strum::Display)]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchItemState {
    /// Queued, not sent yet (or sent by a process that ended, and queued again).
    Pending,
    /// Its run is in progress.
    Running,
    /// Its run succeeded and every assertion of the batch held.
    Done,
    /// Its run did not succeed (gave up, stopped, deadline, error) or an assertion failed.
    Error,
    /// The user cancelled it (or the whole batch) before it ended.
    Cancelled,
}

impl BatchItemState {
    /// Every state, in the order of the item's life.
    pub const ALL: [BatchItemState; 5] = [
        Self::Pending,
        Self::Running,
        Self::Done,
        Self::Error,
        Self::Cancelled,
    ];

    /// The `snake_case` id stored and printed (`pending`).
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// The state with id `id`, if any.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.id() == id)
    }

    /// True for `done`, `error` and `cancelled`: the item will not be sent again unless the
    /// user asks (re-run failed).
    pub fn is_final(self) -> bool {
        matches!(self, Self::Done | Self::Error | Self::Cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_final_states() {
        for s in BatchItemState::ALL {
            assert_eq!(BatchItemState::from_id(s.id()), Some(s));
            assert_eq!(
                serde_json::to_value(s).ok(),
                Some(serde_json::Value::String(s.id().to_owned()))
            );
        }
        assert_eq!(BatchItemState::from_id("finished"), None);
        assert!(!BatchItemState::Pending.is_final());
        assert!(!BatchItemState::Running.is_final());
        assert!(BatchItemState::Error.is_final());
    }
}
