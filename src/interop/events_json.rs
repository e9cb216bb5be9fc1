//! A run's events as JSON Lines (our own format: one [`RunEvent`] per line, as
//! `retryscope run --json` prints them), secrets masked.

use super::secret_rule::{is_secret_header, mask_url};
use crate::model::{AttemptOutcome, KeyValue, RunEvent, SECRET_MASK, mask_event_secrets};

/// `event` with secret response header values, URL secrets and every value in `secrets`
/// written `***`.
pub fn mask_event(event: &RunEvent, secrets: &[String]) -> RunEvent {
    let mut event = event.clone();
    match &mut event {
        RunEvent::RunStarted { url, .. } | RunEvent::AttemptStarted { url, .. } => {
            *url = mask_url(url);
        }
        RunEvent::AttemptFinished { outcome, hops, .. } => {
            for hop in hops {
                hop.url = mask_url(&hop.url);
                hop.location = mask_url(&hop.location);
            }
            if let AttemptOutcome::Response(r) = outcome {
                for (name, value) in &mut r.headers {
                    if is_secret_header(&KeyValue::new(name.clone(), String::new())) {
                        SECRET_MASK.clone_into(value);
                    }
                }
            }
        }
        _ => {}
    }
    mask_event_secrets(event, secrets)
}

/// The events as JSON Lines (each line one event, `\n` ends), masked by [`mask_event`].
pub fn events_json_lines(events: &[RunEvent], secrets: &[String]) -> String {
    let mut out = String::new();
    for e in events {
        if let Ok(line) = serde_json::to_string(&mask_event(e, secrets)) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}
