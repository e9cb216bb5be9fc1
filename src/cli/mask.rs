//! How the CLI prints header lines: secret values (the one rule, [`crate::model::secrets`])
//! as `***`, control characters escaped.

use crate::model::KeyValue;
use crate::model::secrets::shown_header_value;

/// `Name: value`, or `Name: ***` when the row is secret ([`KeyValue::is_secret`]); control
/// characters escaped.
pub fn header_line(h: &KeyValue) -> String {
    format!(
        "{}: {}",
        escape_controls(&h.name),
        escape_controls(shown_header_value(&h.name, &h.value, h.secret))
    )
}

pub use crate::model::quote::escape_controls;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_never_hold_raw_control_characters() {
        let line = header_line(&KeyValue::new("X-A", "a\nb\u{1b}[31m"));
        assert_eq!(line, "X-A: a\\nb\\u{1b}[31m");
    }

    #[test]
    fn secret_header_lines_are_masked() {
        assert_eq!(
            header_line(&KeyValue::new("X-Session", "s1")),
            "X-Session: ***"
        );
        let mut marked = KeyValue::new("X-Plain", "v");
        marked.secret = true;
        assert_eq!(header_line(&marked), "X-Plain: ***");
    }
}
