//! A server's delay hint that the profile's strategy does not read: said in the wait's
//! explanation, so a diagnosing user sees that the server asked for a delay and the profile
//! waited its own way (`… = 1342 ms; the server asked for a delay (Retry-After: 2), which this
//! profile's exponential strategy does not read`).

use crate::model::{AttemptOutcome, Strategy};

/// The delay headers a server sends, as DESIGN §3 reads them with `response_header`.
const DELAY_HEADERS: [&str; 7] = [
    "retry-after",
    "retry-after-ms",
    "x-ms-retry-after-ms",
    "ratelimit",
    "ratelimit-reset",
    "x-ratelimit-reset",
    "grpc-retry-pushback-ms",
];

/// Whether `name` is one of the delay headers a server sends (`Retry-After`, `retry-after-ms`,
/// `x-ms-retry-after-ms`, `RateLimit`, `RateLimit-Reset`, `X-RateLimit-Reset`,
/// `grpc-retry-pushback-ms`; any case).
pub fn is_delay_header(name: &str) -> bool {
    DELAY_HEADERS.iter().any(|h| name.eq_ignore_ascii_case(h))
}

/// Longest header value quoted, characters.
const QUOTED_CHARS: usize = 40;

/// The note for `outcome`'s delay headers when `strategy` does not read them (every computed
/// strategy); `None` when the response has none or there is no response.
pub fn unread_delay_note(outcome: &AttemptOutcome, strategy: Strategy) -> Option<String> {
    let hint = delay_hint(outcome)?;
    Some(format!(
        "the server asked for a delay ({hint}), which this profile's {} strategy does not read",
        strategy.id()
    ))
}

/// `Retry-After: 2`: the first delay header of `outcome`'s response as people write it (value
/// trimmed, cut to 40 characters, control characters escaped); `None` without one.
pub fn delay_hint(outcome: &AttemptOutcome) -> Option<String> {
    let AttemptOutcome::Response(r) = outcome else {
        return None;
    };
    let (name, value) = r.headers.iter().find(|(name, _)| is_delay_header(name))?;
    let value = crate::model::quote::escape_controls(&crate::model::quote::cut_chars(
        value.trim(),
        QUOTED_CHARS,
    ));
    Some(format!("{}: {value}", shown_name(name)))
}

/// The preview's and the Lab's warning when the last run's server sent a delay header
/// (`hint`, from [`delay_hint`], on attempt `attempt`) that `strategy` does not read; `None`
/// for the strategies that may read it (`response_header`, `custom`).
pub fn ignored_delay_warning(hint: &str, attempt: u32, strategy: Strategy) -> Option<String> {
    if matches!(strategy, Strategy::ResponseHeader | Strategy::Custom) {
        return None;
    }
    Some(format!(
        "The last run's server asked for a delay ({hint} on attempt {attempt}); this profile's {} \
         strategy does not read it and waits its own way. The response_header strategy honours it \
         (with this one as its fallback).",
        strategy.id()
    ))
}

/// `Retry-After`, `X-Ms-Retry-After-Ms`: the header name as people write it.
fn shown_name(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| {
                format!(
                    "{}{}",
                    first.to_ascii_uppercase(),
                    chars.as_str().to_ascii_lowercase()
                )
            })
        })
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(headers: &[(&str, &str)]) -> AttemptOutcome {
        crate::testkit::response(429, headers, "")
    }

    #[test]
    fn a_delay_header_the_strategy_does_not_read_is_named() {
        assert_eq!(
            unread_delay_note(&response(&[("retry-after", "2")]), Strategy::Exponential).as_deref(),
            Some(
                "the server asked for a delay (Retry-After: 2), which this profile's exponential strategy does not read"
            )
        );
        let ms = unread_delay_note(
            &response(&[("x-ms-retry-after-ms", "1500")]),
            Strategy::Fixed,
        );
        assert!(ms.is_some_and(|n| n.contains("(X-Ms-Retry-After-Ms: 1500)")));
        assert_eq!(
            unread_delay_note(&response(&[("date", "x")]), Strategy::Fixed),
            None
        );
    }

    #[test]
    fn the_preview_warns_only_for_strategies_that_ignore_the_hint() {
        let w = ignored_delay_warning("Retry-After: 2", 1, Strategy::Exponential);
        assert!(
            w.as_deref().is_some_and(|w| w.starts_with(
                "The last run's server asked for a delay (Retry-After: 2 on attempt 1); this profile's exponential strategy does not read it"
            )),
            "{w:?}"
        );
        assert_eq!(
            ignored_delay_warning("Retry-After: 2", 1, Strategy::ResponseHeader),
            None
        );
        assert_eq!(
            ignored_delay_warning("Retry-After: 2", 1, Strategy::Custom),
            None
        );
    }
}
