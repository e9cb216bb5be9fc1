//! Parsing a profile document: syntax, format tag, shape (serde with field paths) and semantics.

use super::issue::{ProfileErrors, ProfileIssue};
use super::schema::schema_json;
use super::source_map::{Position, SourceMap, child_key, parent_path};
use super::suggest::{closest, parse_unknown};
use super::type_check;
use super::unknown_fields;
use super::validate::validate;
use crate::model::{
    Backoff, OtherStatusAction, PROFILE_FORMAT, ProfileTimeouts, RetryOn, RetryProfile, StatusSet,
};
use serde_path_to_error::Segment;
use std::path::Path;
use std::sync::LazyLock;

/// Parses and validates a profile document.
///
/// Order of checks: JSON syntax, the `format` tag (must be `retryscope-profile/1`), every
/// unknown field (found through the JSON Schema, each with a "did you mean" hint), every
/// wrong-typed string/number/boolean field (a pre-pass over the JSON value), the remaining shape
/// (enums, status sets, arrays: serde), then every semantic rule of [`super::validate()`].
/// A syntax error stops at the first problem; unknown fields, scalar type errors, shape errors
/// (enum values, status sets, arrays) and semantic problems are all reported.
///
/// # Errors
/// Every problem found, each with field path and 1-based line:column.
pub fn load_str(text: &str) -> Result<RetryProfile, ProfileErrors> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        ProfileErrors::single(ProfileIssue {
            path: String::new(),
            line: Some(e.line()),
            column: Some(e.column()),
            message: format!("invalid JSON: {}", bare_message(&e)),
        })
    })?;
    let map = SourceMap::build(text);
    check_format(&value, &map)?;
    check_unknown_fields(&value, &map)?;
    check_types(&value, &map)?;

    let mut de = serde_json::Deserializer::from_str(text);
    let profile: RetryProfile = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let mut issues = shape_issues(&e, &value, &map);
        issues.sort_by_key(|i| (i.line.unwrap_or(usize::MAX), i.column.unwrap_or(usize::MAX)));
        ProfileErrors { issues }
    })?;

    let mut issues = validate(&profile);
    if issues.is_empty() {
        return Ok(profile);
    }
    for issue in &mut issues {
        if let Some(p) = map.locate(&issue.path) {
            issue.line = Some(p.line);
            issue.column = Some(p.column);
        }
    }
    issues.sort_by_key(|i| (i.line.unwrap_or(usize::MAX), i.column.unwrap_or(usize::MAX)));
    Err(ProfileErrors { issues })
}

/// Reads and validates a profile file.
///
/// # Errors
/// An unreadable file or any problem [`load_str`] reports.
pub fn load_file(path: &Path) -> Result<RetryProfile, ProfileErrors> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ProfileErrors::single(ProfileIssue::new(
            "",
            format!("cannot read profile file: {e}: {}", path.display()),
        ))
    })?;
    load_str(&text)
}

/// The format tag gate. Migration hook: a future `retryscope-profile/2` reader, or a migration
/// from an older tag, goes here; today only `/1` exists, so anything else is a clear error.
fn check_format(value: &serde_json::Value, map: &SourceMap) -> Result<(), ProfileErrors> {
    let Some(object) = value.as_object() else {
        return Err(ProfileErrors::single(at(
            map.exact(""),
            ProfileIssue::new("", "a profile must be a JSON object"),
        )));
    };
    let issue = match object.get("format") {
        None => ProfileIssue::new(
            "format",
            format!("missing `format`; add \"format\": \"{PROFILE_FORMAT}\""),
        ),
        Some(serde_json::Value::String(s)) if s == PROFILE_FORMAT => return Ok(()),
        Some(serde_json::Value::String(s)) if s.starts_with("retryscope-profile/") => {
            ProfileIssue::new(
                "format",
                format!(
                    "unsupported format `{s}`; this version of retryscope reads `{PROFILE_FORMAT}`"
                ),
            )
        }
        Some(other) => ProfileIssue::new(
            "format",
            format!("format is {other}, not a retryscope profile; expected `{PROFILE_FORMAT}`"),
        ),
    };
    let pos = map.exact(&issue.path).or_else(|| map.exact(""));
    Err(ProfileErrors::single(at(pos, issue)))
}

/// Every unknown field at once (serde would stop at the first), each with a suggestion.
fn check_unknown_fields(value: &serde_json::Value, map: &SourceMap) -> Result<(), ProfileErrors> {
    static SCHEMA: LazyLock<serde_json::Value> =
        LazyLock::new(|| serde_json::from_str(&schema_json()).unwrap_or_default());
    let found = unknown_fields::find(&SCHEMA, value);
    if found.is_empty() {
        return Ok(());
    }
    let mut issues: Vec<ProfileIssue> = found
        .into_iter()
        .map(|u| {
            let allowed: Vec<&str> = u.allowed.iter().map(String::as_str).collect();
            let field_path = child_key(&u.parent, &u.name);
            let issue = ProfileIssue::new(
                field_path.clone(),
                unknown_field_message(&u.name, &u.parent, &allowed),
            );
            at(map.exact(&field_path), issue)
        })
        .collect();
    issues.sort_by_key(|i| (i.line.unwrap_or(usize::MAX), i.column.unwrap_or(usize::MAX)));
    Err(ProfileErrors { issues })
}

/// Every wrong-typed scalar field at once (serde would stop at the first), see [`type_check`].
fn check_types(value: &serde_json::Value, map: &SourceMap) -> Result<(), ProfileErrors> {
    let mut issues: Vec<ProfileIssue> = type_check::find(value)
        .into_iter()
        .map(|i| at(map.exact(&i.path), i))
        .collect();
    if issues.is_empty() {
        return Ok(());
    }
    issues.sort_by_key(|i| (i.line.unwrap_or(usize::MAX), i.column.unwrap_or(usize::MAX)));
    Err(ProfileErrors { issues })
}

/// "unknown field `x` at parent; did you mean `y`?" (or the list of allowed names).
fn unknown_field_message(name: &str, parent: &str, allowed: &[&str]) -> String {
    let where_ = if parent.is_empty() {
        "the top level"
    } else {
        parent
    };
    format!(
        "unknown field `{name}` at {where_}; {}",
        hint(name, allowed)
    )
}

fn hint(name: &str, allowed: &[&str]) -> String {
    match closest(name, allowed) {
        Some(best) => format!("did you mean `{best}`?"),
        None if allowed.is_empty() => "remove it".to_owned(),
        None => format!(
            "expected one of {}",
            allowed
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn at(pos: Option<Position>, mut issue: ProfileIssue) -> ProfileIssue {
    if let Some(p) = pos {
        issue.line = Some(p.line);
        issue.column = Some(p.column);
    }
    issue
}

/// Most shape errors reported per section.
const MAX_SHAPE_ISSUES: usize = 20;

/// Every shape error (bad enum value, malformed status set, wrong-typed array) of a document
/// whose deserialization failed with `first`. serde stops at the first error, so each section
/// (`retry_on`, `backoff`, `success_status`, `on_other_status`, `timeouts`) is deserialized on
/// its own, and within a section each failing value is removed from a copy and the copy tried
/// again (see [`section_issues`]). `first` is kept when no section reports its field (e.g. a
/// missing required top-level field).
fn shape_issues(
    first: &serde_path_to_error::Error<serde_json::Error>,
    doc: &serde_json::Value,
    map: &SourceMap,
) -> Vec<ProfileIssue> {
    let mut issues = Vec::new();
    section_issues::<RetryOn>(doc, "retry_on", map, &mut issues);
    section_issues::<Backoff>(doc, "backoff", map, &mut issues);
    section_issues::<StatusSet>(doc, "success_status", map, &mut issues);
    section_issues::<OtherStatusAction>(doc, "on_other_status", map, &mut issues);
    section_issues::<ProfileTimeouts>(doc, "timeouts", map, &mut issues);
    let first = shape_issue(path_string(first.path()), first, map);
    if !issues.iter().any(|i| i.path == first.path) {
        issues.push(first);
    }
    issues
}

/// The shape errors of `doc[key]` as a `T`. After each error the failing value is removed and
/// the rest tried again; when that removal leaves a required field missing, the object lacking
/// it is removed in turn (its own error already says what is wrong), up to the section itself.
fn section_issues<T: serde::de::DeserializeOwned>(
    doc: &serde_json::Value,
    key: &str,
    map: &SourceMap,
    issues: &mut Vec<ProfileIssue>,
) {
    let Some(mut value) = doc.get(key).cloned() else {
        return;
    };
    let mut removed = Removed::default();
    let mut found = 0;
    for _ in 0..2 * MAX_SHAPE_ISSUES {
        let Err(e) = serde_path_to_error::deserialize::<_, T>(&value) else {
            return;
        };
        let (path, element) = removed.original_path(key, e.path());
        let knock_on = found > 0 && e.inner().to_string().starts_with("missing field");
        if !knock_on {
            issues.push(shape_issue(path, &e, map));
            found += 1;
        }
        if found >= MAX_SHAPE_ISSUES || !remove_at(&mut value, e.path()) {
            return;
        }
        if let Some(element) = element {
            removed.0.push(element);
        }
    }
}

/// Array elements removed from a section so far: (the array's path, the element's index), both
/// as in the original document.
#[derive(Default)]
struct Removed(Vec<(String, usize)>);

impl Removed {
    /// `path` (indices in the trimmed copy) as the path in the original document, under
    /// `prefix`; plus, when it ends at an array element, that element's (array path, index).
    fn original_path(
        &self,
        prefix: &str,
        path: &serde_path_to_error::Path,
    ) -> (String, Option<(String, usize)>) {
        let mut out = prefix.to_owned();
        let mut element = None;
        for segment in path {
            element = None;
            match segment {
                Segment::Seq { index } => {
                    let mut gone: Vec<usize> = self
                        .0
                        .iter()
                        .filter(|(array, _)| *array == out)
                        .map(|&(_, i)| i)
                        .collect();
                    gone.sort_unstable();
                    let original = gone
                        .into_iter()
                        .fold(*index, |i, g| if g <= i { i + 1 } else { i });
                    element = Some((out.clone(), original));
                    out.push_str(&format!("[{original}]"));
                }
                Segment::Map { key } => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                Segment::Enum { .. } | Segment::Unknown => {}
            }
        }
        (out, element)
    }
}

/// Removes the value at `path` (an object key or an array element) from `doc`; false when
/// there is nothing there.
fn remove_at(doc: &mut serde_json::Value, path: &serde_path_to_error::Path) -> bool {
    let segments: Vec<&Segment> = path.iter().collect();
    let Some((last, parents)) = segments.split_last() else {
        return false;
    };
    let mut node = doc;
    for segment in parents {
        let next = match segment {
            Segment::Map { key } => node.get_mut(key.as_str()),
            Segment::Seq { index } => node.get_mut(*index),
            Segment::Enum { .. } | Segment::Unknown => return false,
        };
        let Some(next) = next else { return false };
        node = next;
    }
    match last {
        Segment::Map { key } => node
            .as_object_mut()
            .is_some_and(|o| o.remove(key.as_str()).is_some()),
        Segment::Seq { index } => match node.as_array_mut() {
            Some(items) if *index < items.len() => {
                items.remove(*index);
                true
            }
            _ => false,
        },
        Segment::Enum { .. } | Segment::Unknown => false,
    }
}

/// Builds the issue for a serde shape error, rewording unknown names with a suggestion.
fn shape_issue(
    path: String,
    e: &serde_path_to_error::Error<serde_json::Error>,
    map: &SourceMap,
) -> ProfileIssue {
    let inner = e.inner();
    let raw = plain_types(&bare_message(inner));
    let serde_pos = (inner.line() > 0).then(|| Position {
        line: inner.line(),
        column: inner.column(),
    });

    let Some(unknown) = parse_unknown(&raw) else {
        return at(map.exact(&path).or(serde_pos), ProfileIssue::new(path, raw));
    };
    let candidates: Vec<&str> = unknown.expected.iter().map(String::as_str).collect();
    if unknown.what == "field" {
        // serde_path_to_error's path ends with the unknown key itself.
        let (parent, field_path) = if path.ends_with(&unknown.name) {
            (parent_path(&path).to_owned(), path.clone())
        } else {
            (path.clone(), child_key(&path, &unknown.name))
        };
        let message = unknown_field_message(&unknown.name, &parent, &candidates);
        at(
            map.exact(&field_path).or(serde_pos),
            ProfileIssue::new(field_path, message),
        )
    } else {
        let message = format!(
            "unknown value `{}`; {}",
            unknown.name,
            hint(&unknown.name, &candidates)
        );
        at(
            map.exact(&path).or(serde_pos),
            ProfileIssue::new(path, message),
        )
    }
}

/// `backoff.fallback.strategy`, `retry_on.status[2]`; the root is the empty string.
fn path_string(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// Replaces Rust type names in serde messages with words a profile author knows.
fn plain_types(message: &str) -> String {
    let mut out = message.to_owned();
    for (rust, plain) in [
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected u32", "expected a whole number ≥ 0"),
        ("expected u16", "expected a whole number ≥ 0"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ] {
        if let Some(rest) = out.strip_suffix(rust) {
            out = format!("{rest}{plain}");
        }
    }
    out
}

/// serde_json's message without its trailing ` at line L column C`.
fn bare_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_owned()
}
