//! "Did you mean …?" for unknown fields and names, among those the schema allows.

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
}
