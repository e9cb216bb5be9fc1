//! "Did you mean …?" for unknown fields and variants, from serde's own list of expected names.

/// The closest name in `candidates` to `typo`, if one is close enough to be a useful hint.
///
/// Closeness is Jaro–Winkler similarity (`strsim`), which favours shared prefixes such as
/// `base_delay` → `base_delay_ms`; a candidate needs a similarity of at least 0.8.
pub fn closest<'a>(typo: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let typo = typo.to_ascii_lowercase();
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(&typo, &c.to_ascii_lowercase()), *c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// Parsed form of serde's `unknown field `x`, expected one of `a`, `b`` messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// `field` or `variant`.
    pub what: &'static str,
    /// The name that was not recognised.
    pub name: String,
    /// Names serde expected, in its order.
    pub expected: Vec<String>,
}

/// Recognises serde's unknown-field / unknown-variant messages.
pub fn parse_unknown(message: &str) -> Option<UnknownName> {
    let (what, rest) = if let Some(rest) = message.strip_prefix("unknown field `") {
        ("field", rest)
    } else if let Some(rest) = message.strip_prefix("unknown variant `") {
        ("variant", rest)
    } else {
        return None;
    };
    let (name, tail) = rest.split_once('`')?;
    // Every other back-quoted token in the tail is an expected name.
    let expected = tail
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    Some(UnknownName {
        what,
        name: name.to_owned(),
        expected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_ms_suffix() {
        let candidates = [
            "strategy",
            "base_delay_ms",
            "max_delay_ms",
            "jitter_window_ms",
        ];
        assert_eq!(closest("base_delay", &candidates), Some("base_delay_ms"));
        assert_eq!(closest("zzz", &candidates), None);
    }

    #[test]
    fn parses_serde_messages() {
        let u = parse_unknown(
            "unknown field `base_delay`, expected one of `strategy`, `base_delay_ms`",
        )
        .expect("recognised");
        assert_eq!(u.name, "base_delay");
        assert_eq!(u.expected, vec!["strategy", "base_delay_ms"]);
        let v = parse_unknown("unknown variant `expo`, expected `fixed`").expect("recognised");
        assert_eq!(v.what, "variant");
        assert_eq!(v.expected, vec!["fixed"]);
        assert!(parse_unknown("missing field `name`").is_none());
    }
}
