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

/// The steps of a path string like `backoff.headers[0].name` or `retry_on[""]` (the root has
/// none). A key that is not a plain name is written as a JSON string in brackets (see
/// [`render`]).
pub fn parse(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            rest = after;
        } else if let Some(quoted) = rest.strip_prefix('[').filter(|r| r.starts_with('"')) {
            let mut keys = serde_json::Deserializer::from_str(quoted).into_iter::<String>();
            let Some(Ok(key)) = keys.next() else { break };
            let after = &quoted[keys.byte_offset()..];
            steps.push(Step::Key(key));
            rest = after.strip_prefix(']').unwrap_or(after);
        } else if let Some(inner) = rest.strip_prefix('[') {
            let Some((index, after)) = inner
                .split_once(']')
                .and_then(|(n, after)| Some((n.parse().ok()?, after)))
            else {
                break;
            };
            steps.push(Step::Index(index));
            rest = after;
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            steps.push(Step::Key(rest[..end].to_owned()));
            rest = &rest[end..];
        }
    }
    steps
}

/// `backoff.headers[0].name`. A key that is not a plain name (letters, digits, `_`, `-`), such
/// as an unknown key `""` or `[tatus`, is written `[""]` / `["[tatus"]`, so that the path stays
/// readable and unambiguous.
pub fn render(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(key) if is_plain(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Key(key) => {
                out.push('[');
                out.push_str(&serde_json::to_string(key).unwrap_or_default());
                out.push(']');
            }
            Step::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// A key written bare in a path.
fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
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
            "[\"\"]",
            "retry_on[\"[tatus\"]",
            "a[\"x.y\"].b[\"\\\"]\"][0]",
        ] {
            assert_eq!(render(&parse(path)), path);
        }
        assert_eq!(parse("a[3]"), [Step::Key("a".into()), Step::Index(3)]);
        assert_eq!(
            parse("retry_on[\"[tatus\"]"),
            [Step::Key("retry_on".into()), Step::Key("[tatus".into())]
        );
        assert_eq!(parse("[\"\"]"), [Step::Key(String::new())]);
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
