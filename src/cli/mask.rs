//! Masking secret header values (`***`) in everything the CLI prints.

use crate::model::{AttemptOutcome, KeyValue, RunEvent};

/// The text shown instead of a secret value.
pub const MASK: &str = "***";

/// `Name: value`, or `Name: ***` when [`KeyValue::is_secret`].
pub fn header_line(h: &KeyValue) -> String {
    if h.is_secret() {
        format!("{}: {MASK}", h.name)
    } else {
        format!("{}: {}", h.name, h.value)
    }
}

/// The event with secret response header values (e.g. `set-cookie`) replaced by `***`.
pub fn event(mut event: RunEvent) -> RunEvent {
    if let RunEvent::AttemptFinished {
        outcome: AttemptOutcome::Response(r),
        ..
    } = &mut event
    {
        for (name, value) in &mut r.headers {
            if KeyValue::new(name.clone(), String::new()).is_secret() {
                *value = MASK.to_owned();
            }
        }
    }
    event
}
