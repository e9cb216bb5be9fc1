//! Masking secret header values (`***`) in everything the CLI prints.

use crate::model::{AttemptOutcome, KeyValue, RequestSpec, RunEvent};

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

/// Shortest secret value masked inside a printed body (shorter ones would mask ordinary text).
const MIN_SECRET_LEN: usize = 4;

/// The secret values `spec` sends, as they may come back in a response body (an echo server):
/// each secret header's value and its credentials after the scheme (`Bearer t0ken` → also
/// `t0ken`), and the URL's password with the `Basic` credentials made from the URL.
pub fn secret_values(spec: &RequestSpec) -> Vec<String> {
    use base64::Engine as _;
    let mut values = Vec::new();
    for h in spec.headers.iter().filter(|h| h.enabled && h.is_secret()) {
        values.push(h.value.trim().to_owned());
        if let Some((_, credentials)) = h.value.trim().split_once(' ') {
            values.push(credentials.trim().to_owned());
        }
    }
    if let Ok(url) = reqwest::Url::parse(&spec.url)
        && let Some(password) = url.password()
    {
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        };
        let (user, password) = (decode(url.username()), decode(password));
        values.push(base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")));
        values.push(password);
    }
    values.retain(|v| v.len() >= MIN_SECRET_LEN);
    // Longest first, so a value containing another is masked whole.
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values.dedup();
    values
}

/// `text` with every occurrence of each of `secrets` replaced by [`MASK`].
pub fn mask_values(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), MASK);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_never_hold_raw_control_characters() {
        let line = header_line(&KeyValue::new("X-A", "a\nb\u{1b}[31m"));
        assert_eq!(line, "X-A: a\\nb\\u{1b}[31m");
    }

    #[test]
    fn secret_values_sent_are_masked_in_text() {
        let mut spec = RequestSpec::get("http://al%20ice:pa%40ss@127.0.0.1:1/");
        spec.headers
            .push(KeyValue::new("Authorization", "Bearer t0ken-123"));
        spec.headers.push(KeyValue::new("X-Plain", "visible"));
        let secrets = secret_values(&spec);
        // base64("al ice:pa@ss")
        let echoed = r#"{"authorization":"Bearer t0ken-123","x-plain":"visible","basic":"YWwgaWNlOnBhQHNz","pw":"pa@ss"}"#;
        assert_eq!(
            mask_values(echoed, &secrets),
            r#"{"authorization":"***","x-plain":"visible","basic":"***","pw":"***"}"#
        );
    }
}
