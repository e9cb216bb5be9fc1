//! Field paths as the messages show them (`backoff.headers[0].name`, `retry_on.status[2]`; the
//! document root is the empty path), and as steps to walk a document with.

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// An object member.
    Key(String),
    /// An array element (0-based).
    Index(usize),
}

/// The steps of a path string like `backoff.headers[0].name` (the root has none).
pub fn parse(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !key.is_empty() {
            steps.push(Step::Key(key.to_owned()));
        }
        while let Some((index, after)) = rest
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .and_then(|(n, after)| Some((n.parse().ok()?, after)))
        {
            steps.push(Step::Index(index));
            rest = after;
        }
    }
    steps
}

/// `backoff.headers[0].name`.
pub fn render(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// True when `a` and `b` are the same field or one contains the other. The document root (the
/// empty path) is related only to itself: a missing top-level field says nothing about the others.
pub fn related(a: &str, b: &str) -> bool {
    if a.is_empty() || b.is_empty() {
        return a == b;
    }
    let inside = |child: &str, parent: &str| {
        child
            .strip_prefix(parent)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
    };
    inside(a, b) || inside(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_and_render_back() {
        for path in [
            "",
            "name",
            "backoff.headers[0].name",
            "retry_on.status[12]",
            "a[1][2].b",
        ] {
            assert_eq!(render(&parse(path)), path);
        }
        assert_eq!(parse("a[3]"), [Step::Key("a".into()), Step::Index(3)]);
    }

    #[test]
    fn related_means_same_field_or_nested() {
        assert!(related("backoff.fallback", "backoff.fallback.strategy"));
        assert!(related("retry_on.status[2]", "retry_on.status"));
        assert!(related("name", "name"));
        assert!(!related("backoff.base", "backoff.base_delay_ms"));
        assert!(!related("retry_on.status[2]", "retry_on.status[20]"));
        assert!(!related("", "name") && related("", ""));
    }
}
