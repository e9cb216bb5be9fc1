//! Finding every shape problem of a profile document, and a repaired copy for the semantic
//! checks, when serde alone would stop at the first problem.
//!
//! The copy starts as the document without the fields already reported (unknown fields,
//! wrong-typed scalars). Each section (`retry_on`, `backoff`, `success_status`,
//! `on_other_status`, `timeouts`) is then deserialized on its own; after each error the failing
//! value is removed and the section tried again. When a removal leaves a required field missing,
//! the object lacking it is removed in turn (its own error already says what is wrong). Array
//! elements removed along the way are remembered, so later paths (`retry_on.status[3]`) keep the
//! indices of the file. If the repaired copy then deserializes as a whole, its semantic problems
//! are reported too, except those about a field already reported or its parents and children.

use super::issue::ProfileIssue;
use super::load::shape_issue;
use super::source_map::{SourceMap, child_key};
use crate::model::{
    Backoff, OtherStatusAction, PROFILE_FORMAT, ProfileTimeouts, RetryOn, RetryProfile, StatusSet,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::Segment;

/// Most shape errors reported per section.
const MAX_SHAPE_ISSUES: usize = 20;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The steps of serde's path (enum and unknown segments carry no position and are skipped).
fn steps_of(path: &serde_path_to_error::Path) -> Vec<Step> {
    path.iter()
        .filter_map(|segment| match segment {
            Segment::Seq { index } => Some(Step::Index(*index)),
            Segment::Map { key } => Some(Step::Key(key.clone())),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect()
}

/// The steps of a path string like `backoff.headers[0].name` (the root is empty).
fn parse_steps(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            steps.push(Step::Key(key.to_owned()));
        }
        while let Some(index) = rest
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .and_then(|(n, after)| Some((n.parse().ok()?, after)))
        {
            steps.push(Step::Index(index.0));
            rest = index.1;
        }
    }
    steps
}

/// `backoff.headers[0].name`.
fn render(steps: &[Step]) -> String {
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

/// Removes the value at `steps` (an object key or an array element); false when there is
/// nothing there (or `steps` is the root).
fn remove_at(doc: &mut Value, steps: &[Step]) -> bool {
    let Some((last, parents)) = steps.split_last() else {
        return false;
    };
    let mut node = doc;
    for step in parents {
        let next = match step {
            Step::Key(key) => node.get_mut(key.as_str()),
            Step::Index(i) => node.get_mut(*i),
        };
        let Some(next) = next else { return false };
        node = next;
    }
    match last {
        Step::Key(key) => node
            .as_object_mut()
            .is_some_and(|o| o.remove(key.as_str()).is_some()),
        Step::Index(i) => match node.as_array_mut() {
            Some(items) if *i < items.len() => {
                items.remove(*i);
                true
            }
            _ => false,
        },
    }
}

/// The value at `steps` (the root for no steps).
fn value_at<'v>(doc: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    let mut node = doc;
    for step in steps {
        node = match step {
            Step::Key(key) => node.get_mut(key.as_str())?,
            Step::Index(i) => node.get_mut(*i)?,
        };
    }
    Some(node)
}

/// Array elements removed so far: (the array's path, the element's index), both as in the file.
#[derive(Default)]
struct Removed(Vec<(String, usize)>);

impl Removed {
    /// `steps` (indices in the trimmed copy) with the indices of the file.
    fn original(&self, steps: &[Step]) -> Vec<Step> {
        let mut out: Vec<Step> = Vec::with_capacity(steps.len());
        for step in steps {
            let step = match step {
                Step::Index(index) => {
                    let array = render(&out);
                    let mut gone: Vec<usize> = self
                        .0
                        .iter()
                        .filter(|(a, _)| *a == array)
                        .map(|&(_, i)| i)
                        .collect();
                    gone.sort_unstable();
                    Step::Index(
                        gone.into_iter()
                            .fold(*index, |i, g| if g <= i { i + 1 } else { i }),
                    )
                }
                key => key.clone(),
            };
            out.push(step);
        }
        out
    }

    /// Records that the element at `original` (file indices) was removed, if it is one.
    fn note(&mut self, original: &[Step]) {
        if let Some((Step::Index(i), array)) = original.split_last() {
            self.0.push((render(array), *i));
        }
    }
}

/// True when `a` and `b` are the same field or one contains the other. The document root
/// (the empty path) is related only to itself: a missing top-level field says nothing about
/// the others.
fn related(a: &str, b: &str) -> bool {
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

/// The shape problems of `doc` beyond `known` (already reported unknown fields and wrong-typed
/// scalars, each with its path), then the semantic problems `validate` finds in the repaired
/// copy (paths mapped to the file's indices, positions unset). `first` is serde's first error on
/// the whole text; it is kept when nothing else covers its field (e.g. a missing `backoff`).
pub(super) fn issues_beyond(
    doc: &Value,
    known: &[ProfileIssue],
    first: Option<&serde_path_to_error::Error<serde_json::Error>>,
    map: &SourceMap,
    validate: impl Fn(&RetryProfile) -> Vec<ProfileIssue>,
) -> Vec<ProfileIssue> {
    let mut copy = doc.clone();
    // A repeated key is reported, but its last occurrence stays: the checks run on it.
    for issue in known
        .iter()
        .filter(|i| !i.message.contains("appears more than once"))
    {
        match issue.path.as_str() {
            // Required: a placeholder keeps the rest checkable (its own issue is reported).
            "name" => copy["name"] = Value::String("(invalid)".into()),
            "format" => copy["format"] = Value::String(PROFILE_FORMAT.into()),
            path => {
                remove_at(&mut copy, &parse_steps(path));
            }
        }
    }
    let mut found: Vec<ProfileIssue> = Vec::new();
    let mut removed = Removed::default();
    let known_paths: Vec<String> = known.iter().map(|i| i.path.clone()).collect();
    let typos: Vec<String> = known
        .iter()
        .filter(|i| i.message.starts_with("unknown field"))
        .map(|i| i.path.clone())
        .collect();
    // Every field taken out of the copy (its default stands in): known problems and those the
    // sections remove.
    let mut taken: Vec<String> = known
        .iter()
        .filter(|i| !i.message.contains("appears more than once"))
        .map(|i| i.path.clone())
        .collect();
    let mut s = Section {
        map,
        removed: &mut removed,
        found: &mut found,
        known: &known_paths,
        typos: &typos,
        taken: &mut taken,
    };
    s.check::<RetryOn>(&mut copy, "retry_on");
    s.check::<Backoff>(&mut copy, "backoff");
    s.check::<StatusSet>(&mut copy, "success_status");
    s.check::<OtherStatusAction>(&mut copy, "on_other_status");
    s.check::<ProfileTimeouts>(&mut copy, "timeouts");
    // Required scalars: placeholders when absent (missing, or misspelled and removed).
    if copy.get("name").is_none() {
        copy["name"] = Value::String("(invalid)".into());
    }
    if copy.get("format").is_none() {
        copy["format"] = Value::String(PROFILE_FORMAT.into());
    }
    if copy.get("backoff").is_none() {
        // Required: a placeholder keeps the other sections' semantic checks running (every
        // issue about `backoff` itself is filtered out below, as its problem is reported).
        copy["backoff"] = serde_json::json!({ "strategy": "fixed" });
    }
    // A repeated key does not hide what is inside its last occurrence.
    let mut reported: Vec<String> = known
        .iter()
        .filter(|i| !i.message.contains("appears more than once"))
        .map(|i| i.path.clone())
        .collect();
    reported.extend(found.iter().map(|i| i.path.clone()));
    // serde's first error on the text is a safety net for anything the checks above do not
    // cover; with other problems found it would only restate one (or quote a repeated key's
    // first occurrence, which the checks rightly skip).
    if let Some(first) = first.filter(|_| known.is_empty() && found.is_empty()) {
        let issue = shape_issue(render(&steps_of(first.path())), first, map);
        if !reported.iter().any(|p| related(p, &issue.path)) {
            reported.push(issue.path.clone());
            found.push(issue);
        }
    }
    if let Ok(profile) = serde_json::from_value::<RetryProfile>(copy) {
        for mut issue in validate(&profile) {
            issue.path = render(&removed.original(&parse_steps(&issue.path)));
            if !reported.iter().any(|p| related(p, &issue.path)) && !about_a_default(&issue, &taken)
            {
                found.push(issue);
            }
        }
    }
    found
}

/// What checking one section needs: where to look up positions, what was removed so far,
/// where problems go, and the paths already reported before (unknown fields, wrong types).
struct Section<'a> {
    map: &'a SourceMap,
    removed: &'a mut Removed,
    found: &'a mut Vec<ProfileIssue>,
    known: &'a [String],
    /// Unknown fields already reported (a `nme` is most likely the missing `name`).
    typos: &'a [String],
    /// Every field removed from the copy so far (see [`about_a_default`]).
    taken: &'a mut Vec<String>,
}

impl Section<'_> {
    /// The shape problems of `copy[key]` as a `T`, removing each failing value (see the module
    /// docs); the section is left as repaired, or removed when it cannot be.
    fn check<T: DeserializeOwned>(&mut self, copy: &mut Value, key: &str) {
        let Some(value) = copy.get_mut(key) else {
            return;
        };
        let root = vec![Step::Key(key.to_owned())];
        let mut count = 0;
        // Fields removed here, by path in the file.
        let mut gone: Vec<String> = Vec::new();
        for _ in 0..4 * MAX_SHAPE_ISSUES {
            let Err(e) = serde_path_to_error::deserialize::<_, T>(&*value) else {
                return;
            };
            let steps = steps_of(e.path());
            let full = self
                .removed
                .original(&[root.clone(), steps.clone()].concat());
            let at = render(&full);
            // A required field that is missing because its bad value was removed (`strategy`),
            // or next to an unknown field that is probably its misspelling (`nme`), is a
            // consequence of a problem already reported.
            let message = e.inner().to_string();
            let missing = message
                .strip_prefix("missing field `")
                .and_then(|r| r.split_once('`'))
                .map(|(field, _)| child_key(&at, field));
            let knock_on = missing.as_ref().is_some_and(|field| {
                gone.iter().chain(self.known).any(|p| p == field)
                    || self.typos.iter().any(|p| parent_of(p) == Some(at.as_str()))
            });
            if !knock_on {
                if count == MAX_SHAPE_ISSUES {
                    self.found.push(ProfileIssue::new(
                        key,
                        format!(
                            "more problems in `{key}` are not listed; fix the {MAX_SHAPE_ISSUES} listed for it first"
                        ),
                    ));
                    break;
                }
                self.found.push(shape_issue(at.clone(), &e, self.map));
                count += 1;
            }
            // An unusable `strategy` is replaced, not its whole object dropped, so the other
            // fields of that backoff are still checked (strategy-specific rules then see `fixed`).
            if knock_on
                && missing.as_deref().is_some_and(|m| m.ends_with(".strategy"))
                && let Some(object) = value_at(value, &steps).and_then(Value::as_object_mut)
            {
                object.insert("strategy".into(), Value::String("fixed".into()));
                continue;
            }
            if !remove_at(value, &steps) {
                break;
            }
            self.taken.push(at.clone());
            gone.push(at);
            self.removed.note(&full);
        }
        // Not repairable within: drop the section so the rest of the document can still be checked.
        remove_at(copy, &root);
        self.taken.push(key.to_owned());
    }
}

/// True when a semantic `issue` names a field that was taken out of the copy (its default stood
/// in), in the same section or at the top level: `max_delay_ms 500 is smaller than
/// base_delay_ms 1000` after a bad `base_delay_ms` would quote the default, not the file.
fn about_a_default(issue: &ProfileIssue, taken: &[String]) -> bool {
    taken.iter().any(|t| {
        // Array elements are not fields; `name` and `format` get placeholders, not defaults.
        if t.ends_with(']') || t == "name" || t == "format" {
            return false;
        }
        let name = t.rsplit('.').next().unwrap_or(t);
        // A field of the same object (`backoff.base_delay_ms` for `backoff.max_delay_ms`), or a
        // whole top-level section (`success_status` for `retry_on.status[1]`).
        let same_place = parent_of(t) == parent_of(&issue.path) || !t.contains(['.', '[']);
        same_place && mentions(&issue.message, name)
    })
}

/// `text` contains `word` as a whole word (letters, digits and `_` around it do not count).
fn mentions(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(|c| !is_word(c));
        let after = text[i + word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !is_word(c));
        before && after
    })
}

/// `backoff.headers[0]` of `backoff.headers[0].nme`, `retry_on.status` of `retry_on.status[2]`;
/// `None` at the top level.
fn parent_of(path: &str) -> Option<&str> {
    let cut = path.rfind(['.', '['])?;
    Some(&path[..cut])
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
            assert_eq!(render(&parse_steps(path)), path);
        }
    }

    #[test]
    fn removed_elements_shift_later_indices_back_to_the_file() {
        let mut removed = Removed::default();
        removed.note(&parse_steps("retry_on.status[1]"));
        // The file's [3] is [2] in the copy once [1] is gone.
        let copy = parse_steps("retry_on.status[2]");
        assert_eq!(render(&removed.original(&copy)), "retry_on.status[3]");
        removed.note(&parse_steps("retry_on.status[3]"));
        assert_eq!(
            render(&removed.original(&parse_steps("retry_on.status[1]"))),
            "retry_on.status[2]"
        );
        assert_eq!(
            render(&removed.original(&parse_steps("retry_on.errors[1]"))),
            "retry_on.errors[1]"
        );
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
