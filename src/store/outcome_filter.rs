//! What a history outcome filter selects (`history list --outcome`, the window's History panel
//! "Outcome" box): runs that ended with an outcome, or runs that have none yet, which both lists
//! show as [`RUNNING`].

use crate::model::OutcomeKind;

/// The word both lists show in the outcome column of a run that has no outcome yet.
pub const RUNNING: &str = "running";

/// Runs with this outcome, or those still running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum OutcomeFilter {
    /// Runs that ended so.
    Ended(OutcomeKind),
    /// Runs without an outcome yet ([`RUNNING`]; a run a dead process left is `interrupted`
    /// once the history is opened again).
    Running,
}

impl OutcomeFilter {
    /// Every choice, in display order: the seven outcomes, then [`RUNNING`].
    pub const ALL: [Self; 8] = [
        Self::Ended(OutcomeKind::Succeeded),
        Self::Ended(OutcomeKind::GaveUp),
        Self::Ended(OutcomeKind::Stopped),
        Self::Ended(OutcomeKind::Deadline),
        Self::Ended(OutcomeKind::Cancelled),
        Self::Ended(OutcomeKind::Error),
        Self::Ended(OutcomeKind::Interrupted),
        Self::Running,
    ];

    /// The word shown and accepted: an outcome id (`gave_up`) or [`RUNNING`].
    pub fn id(self) -> &'static str {
        match self {
            Self::Ended(o) => o.id(),
            Self::Running => RUNNING,
        }
    }

    /// The choice whose [`Self::id`] is `id` (surrounding blanks ignored).
    ///
    /// # Errors
    /// `unknown outcome `x`; use one of succeeded, …, interrupted, running`.
    ///
    /// ```
    /// use retryscope::model::OutcomeKind;
    /// use retryscope::store::OutcomeFilter;
    /// assert_eq!(OutcomeFilter::parse(" running"), Ok(OutcomeFilter::Running));
    /// assert_eq!(OutcomeFilter::parse("gave_up"), Ok(OutcomeFilter::Ended(OutcomeKind::GaveUp)));
    /// assert!(OutcomeFilter::parse("runing").is_err_and(|e| e.ends_with("interrupted, running")));
    /// ```
    pub fn parse(id: &str) -> Result<Self, String> {
        let id = id.trim();
        Self::ALL.into_iter().find(|o| o.id() == id).ok_or_else(|| {
            let all: Vec<&str> = Self::ALL.iter().map(|o| o.id()).collect();
            format!("unknown outcome `{id}`; use one of {}", all.join(", "))
        })
    }
}

impl From<OutcomeKind> for OutcomeFilter {
    fn from(outcome: OutcomeKind) -> Self {
        Self::Ended(outcome)
    }
}

/// Stored as its id, so a window state saved when the filter held only outcomes still loads.
impl From<OutcomeFilter> for String {
    fn from(filter: OutcomeFilter) -> Self {
        filter.id().to_owned()
    }
}

impl TryFrom<String> for OutcomeFilter {
    type Error = String;

    fn try_from(id: String) -> Result<Self, String> {
        Self::parse(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_an_outcome_saved_before_running_existed_still_loads() {
        for o in OutcomeFilter::ALL {
            assert_eq!(OutcomeFilter::parse(o.id()), Ok(o));
        }
        let old: Option<OutcomeFilter> = serde_json::from_str("\"gave_up\"").expect("loads");
        assert_eq!(old, Some(OutcomeKind::GaveUp.into()));
        assert_eq!(
            serde_json::to_string(&OutcomeFilter::Running).expect("saves"),
            "\"running\""
        );
    }
}
