//! The final-outcome banner: tidy text derived from `RunOutcome`.

use super::units::format_secs;
use crate::model::{OutcomeKind, RunOutcome};

/// A finished run's banner: its kind (for the colour) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Banner {
    /// How the run ended.
    pub kind: OutcomeKind,
    /// Banner text, e.g. `Succeeded on attempt 3 after 4.1 s`, `Stopped: 404 is not retryable`.
    pub text: String,
}

impl Banner {
    /// Builds the banner from the engine's outcome, the number of attempts made and the run's
    /// elapsed time in ms.
    ///
    /// The engine's lowercase `message` is kept and capitalised; when it does not already start
    /// with the kind's word it is prefixed (`Stopped: 404 is not retryable`); an empty message
    /// falls back to text built from `attempts`, `elapsed_ms` and `last_status`.
    pub fn from_outcome(outcome: &RunOutcome, attempts: u32, elapsed_ms: f64) -> Self {
        let message = outcome.message.trim();
        let lead = &lead_word(outcome.kind);
        let text = if message.is_empty() {
            fallback_text(outcome, attempts, elapsed_ms)
        } else if starts_with_ignore_case(message, lead)
            || (outcome.kind == OutcomeKind::Cancelled
                && starts_with_ignore_case(message, "canceled"))
            || (outcome.kind == OutcomeKind::Deadline
                && message.to_lowercase().contains("deadline"))
        {
            capitalize(message)
        } else {
            format!("{}: {message}", capitalize(lead))
        };
        Banner {
            kind: outcome.kind,
            text,
        }
    }
}

/// The word a banner of this kind starts with: its id in words (`gave up`), `deadline reached`.
fn lead_word(kind: OutcomeKind) -> String {
    match kind {
        OutcomeKind::Deadline => "deadline reached".to_owned(),
        other => other.id().replace('_', " "),
    }
}

fn fallback_text(outcome: &RunOutcome, attempts: u32, elapsed_ms: f64) -> String {
    let status = outcome
        .last_status
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    let plural = if attempts == 1 { "attempt" } else { "attempts" };
    match outcome.kind {
        OutcomeKind::Succeeded => format!(
            "Succeeded on attempt {attempts} after {}",
            format_secs(elapsed_ms)
        ),
        OutcomeKind::GaveUp => format!("Gave up after {attempts} {plural}{status}"),
        OutcomeKind::Stopped => format!("Stopped after {attempts} {plural}{status}"),
        OutcomeKind::Deadline => "Deadline reached".to_owned(),
        OutcomeKind::Cancelled => "Cancelled".to_owned(),
        OutcomeKind::Error => "Error".to_owned(),
        OutcomeKind::Interrupted => "Interrupted".to_owned(),
    }
}

fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// Upper-cases the first character only (`gave up after 4 attempts (503)` → `Gave up …`).
fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(kind: OutcomeKind, message: &str, last_status: Option<u16>) -> RunOutcome {
        RunOutcome {
            kind,
            message: message.to_owned(),
            last_status,
        }
    }

    #[test]
    fn an_interrupted_past_run_is_not_called_an_error() {
        let b = Banner::from_outcome(
            &outcome(
                OutcomeKind::Interrupted,
                "interrupted after 2 attempts",
                None,
            ),
            2,
            1510.0,
        );
        assert_eq!(b.text, "Interrupted after 2 attempts");
        let e = Banner::from_outcome(&outcome(OutcomeKind::Error, "bad script", None), 1, 0.0);
        assert_eq!(e.text, "Error: bad script");
    }

    #[test]
    fn engine_messages_are_capitalised_or_prefixed() {
        let cases = [
            (
                outcome(
                    OutcomeKind::Succeeded,
                    "succeeded on attempt 3 after 4.1 s",
                    Some(200),
                ),
                "Succeeded on attempt 3 after 4.1 s",
            ),
            (
                outcome(
                    OutcomeKind::GaveUp,
                    "gave up after 4 attempts (503)",
                    Some(503),
                ),
                "Gave up after 4 attempts (503)",
            ),
            (
                outcome(OutcomeKind::Stopped, "404 is not retryable", Some(404)),
                "Stopped: 404 is not retryable",
            ),
            (
                outcome(
                    OutcomeKind::Stopped,
                    "stopped: 404 is not retryable",
                    Some(404),
                ),
                "Stopped: 404 is not retryable",
            ),
            (
                outcome(OutcomeKind::Deadline, "deadline reached", None),
                "Deadline reached",
            ),
            (
                outcome(
                    OutcomeKind::Deadline,
                    "the next wait would pass the deadline",
                    None,
                ),
                "The next wait would pass the deadline",
            ),
            (
                outcome(OutcomeKind::Cancelled, "cancelled", None),
                "Cancelled",
            ),
            (
                outcome(OutcomeKind::Error, "script returned NaN", None),
                "Error: script returned NaN",
            ),
        ];
        for (o, want) in cases {
            assert_eq!(Banner::from_outcome(&o, 3, 4100.0).text, want);
        }
    }

    #[test]
    fn empty_messages_fall_back_to_counts() {
        let b = Banner::from_outcome(&outcome(OutcomeKind::Succeeded, "", Some(200)), 3, 4_140.0);
        assert_eq!(b.text, "Succeeded on attempt 3 after 4.1 s");
        let b = Banner::from_outcome(&outcome(OutcomeKind::GaveUp, " ", Some(503)), 4, 9_000.0);
        assert_eq!(b.text, "Gave up after 4 attempts (503)");
        let b = Banner::from_outcome(&outcome(OutcomeKind::Cancelled, "", None), 1, 10.0);
        assert_eq!(b.text, "Cancelled");
    }
}
