//! Masking secret header values (`***`) in everything the CLI prints.

use crate::model::{AttemptOutcome, KeyValue, RunEvent};

/// The text shown instead of a secret value.
pub const MASK: &str = "***";

/// `Name: value`, or `Name: ***` when [`KeyValue::is_secret`]; control characters escaped.
pub fn header_line(h: &KeyValue) -> String {
    if h.is_secret() {
        format!("{}: {MASK}", escape_controls(&h.name))
    } else {
        format!(
            "{}: {}",
            escape_controls(&h.name),
            escape_controls(&h.value)
        )
    }
}

/// `text` with control characters (newlines, escape, …) written as Rust escapes (`\n`,
/// `\u{1b}`), so printing it can neither break a line nor drive the terminal.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_never_hold_raw_control_characters() {
        let line = header_line(&KeyValue::new("X-A", "a\nb\u{1b}[31m"));
        assert_eq!(line, "X-A: a\\nb\\u{1b}[31m");
    }
}
