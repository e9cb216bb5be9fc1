//! Parsing a profile document: syntax, format tag, shape (serde with field paths) and semantics.

use super::issue::{ProfileErrors, ProfileIssue};
use super::repair;
use super::schema::schema_json;
use super::source_map::{Position, SourceMap, child_key, parent_path};
use super::suggest::{closest, parse_unknown};
use super::type_check;
use super::unknown_fields;
use super::validate::validate;
use crate::model::{PROFILE_FORMAT, RetryProfile};
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
            column: Some(e.column().max(1)),
            message: format!("invalid JSON: {}{}", bare_message(&e), bom_hint(text)),
        })
    })?;
    let map = SourceMap::build(text);
    let mut known: Vec<ProfileIssue> = check_format(&value, &map)?.into_iter().collect();
    known.extend(required_field_issues(&value, &map));
    known.extend(duplicate_key_issues(&map));
    known.extend(unknown_field_issues(&value, &map));
    known.extend(type_issues(&value, &map));
    // `"nme": …` is reported as an unknown field that means `name`: not also as a missing `name`.
    let typo_for = |field: &str| {
        known.iter().any(|i| {
            !i.path.contains(['.', '['])
                && i.message.starts_with("unknown field")
                && i.message.contains(&format!("did you mean `{field}`?"))
        })
    };
    let misspelled: Vec<String> = REQUIRED
        .iter()
        .chain(&["format"])
        .filter(|f| typo_for(f))
        .map(|f| (*f).to_owned())
        .collect();
    known.retain(|i| !(i.message.starts_with("missing") && misspelled.contains(&i.path)));

    let mut de = serde_json::Deserializer::from_str(text);
    let first = match serde_path_to_error::deserialize::<_, RetryProfile>(&mut de) {
        Ok(profile) if known.is_empty() => {
            let issues = validate(&profile);
            if issues.is_empty() {
                return Ok(profile);
            }
            return Err(sorted(issues, &map));
        }
        Ok(_) => None,
        Err(e) => Some(e),
    };
    let beyond = repair::issues_beyond(&value, &known, first.as_ref(), &map, validate);
    known.extend(beyond);
    Err(sorted(known, &map))
}

/// `issues` with positions filled in where still unset (the field, else its nearest ancestor
/// in the file), in document order.
fn sorted(mut issues: Vec<ProfileIssue>, map: &SourceMap) -> ProfileErrors {
    for issue in &mut issues {
        if issue.line.is_none()
            && let Some(p) = map.locate(&issue.path)
        {
            issue.line = Some(p.line);
            issue.column = Some(p.column);
        }
    }
    issues.sort_by_key(|i| (i.line.unwrap_or(usize::MAX), i.column.unwrap_or(usize::MAX)));
    ProfileErrors { issues }
}

/// Reads and validates a profile file.
///
/// # Errors
/// An unreadable file (one issue at the root, without position; the caller names the file) or
/// any problem [`load_str`] reports.
pub fn load_file(path: &Path) -> Result<RetryProfile, ProfileErrors> {
    let fail = |message: String| ProfileErrors::single(ProfileIssue::new("", message));
    // Only regular files of a sane size: a device (/dev/zero) or a pipe has no end, and reading
    // one whole would take all memory or hang.
    let meta =
        std::fs::metadata(path).map_err(|e| fail(format!("cannot read the profile file: {e}")))?;
    if !meta.is_file() {
        return Err(fail(
            "not a regular file (devices, pipes and folders are not profiles)".into(),
        ));
    }
    if meta.len() > MAX_PROFILE_FILE_BYTES {
        return Err(fail(format!(
            "the file is {} bytes; profiles are at most {MAX_PROFILE_FILE_BYTES} bytes",
            meta.len()
        )));
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| {
            use std::io::Read as _;
            f.take(MAX_PROFILE_FILE_BYTES + 1).read_to_string(&mut text)
        })
        .map_err(|e| fail(format!("cannot read the profile file: {e}")))?;
    load_str(&text)
}

/// Largest profile file read, bytes (16 MiB; real profiles are a few KiB).
pub const MAX_PROFILE_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The format tag gate. Migration hook: a future `retryscope-profile/2` reader, or a migration
/// from an older tag, goes here; today only `/1` exists, so anything else is a clear error.
fn check_format(
    value: &serde_json::Value,
    map: &SourceMap,
) -> Result<Option<ProfileIssue>, ProfileErrors> {
    let Some(object) = value.as_object() else {
        return Err(ProfileErrors::single(at(
            map.exact(""),
            ProfileIssue::new("", "a profile must be a JSON object"),
        )));
    };
    let issue = match object.get("format") {
        // Missing: probably ours without the tag; report it with everything else.
        None => {
            return Ok(Some(at(
                map.exact(""),
                ProfileIssue::new(
                    "format",
                    format!("missing `format`; add \"format\": \"{PROFILE_FORMAT}\""),
                ),
            )));
        }
        Some(serde_json::Value::String(s)) if s == PROFILE_FORMAT => return Ok(None),
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

/// The top-level fields every profile needs (`format` is checked by [`check_format`]).
const REQUIRED: [&str; 2] = ["name", "backoff"];

/// A missing `name` or `backoff` (serde would report only the first problem of the file).
fn required_field_issues(value: &serde_json::Value, map: &SourceMap) -> Vec<ProfileIssue> {
    REQUIRED
        .iter()
        .filter(|field| value.get(**field).is_none())
        .map(|field| {
            let hint = match *field {
                "name" => "add \"name\": \"…\" (shown in pickers)",
                _ => "add e.g. \"backoff\": {\"strategy\": \"exponential\"}",
            };
            at(
                map.exact(""),
                ProfileIssue::new(*field, format!("missing field `{field}`; {hint}")),
            )
        })
        .collect()
}

/// Every repeated key (serde reports only the first), at the repetition. The checks then run on
/// the last occurrence, as a parsed value keeps it.
fn duplicate_key_issues(map: &SourceMap) -> Vec<ProfileIssue> {
    map.duplicates()
        .iter()
        .map(|(path, pos)| {
            let name = path.rsplit('.').next().unwrap_or(path);
            at(
                Some(*pos),
                ProfileIssue::new(
                    path.clone(),
                    format!("`{name}` appears more than once; keep one"),
                ),
            )
        })
        .collect()
}

/// Every unknown field (serde would stop at the first), each with a suggestion and position.
fn unknown_field_issues(value: &serde_json::Value, map: &SourceMap) -> Vec<ProfileIssue> {
    static SCHEMA: LazyLock<serde_json::Value> =
        LazyLock::new(|| serde_json::from_str(&schema_json()).unwrap_or_default());
    unknown_fields::find(&SCHEMA, value)
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
        .collect()
}

/// Every wrong-typed scalar field (serde would stop at the first), see [`type_check`].
fn type_issues(value: &serde_json::Value, map: &SourceMap) -> Vec<ProfileIssue> {
    type_check::find(value)
        .into_iter()
        .map(|i| at(map.exact(&i.path), i))
        .collect()
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

/// Builds the issue for a serde shape error, rewording unknown names with a suggestion.
pub(super) fn shape_issue(
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

    if let Some(name) = raw
        .strip_prefix("missing field `")
        .and_then(|r| r.strip_suffix('`'))
    {
        // At the field that is missing; positioned at the object that lacks it.
        return at(
            map.exact(&path).or(serde_pos),
            ProfileIssue::new(child_key(&path, name), format!("missing field `{name}`")),
        );
    }
    if let Some(name) = raw
        .strip_prefix("duplicate field `")
        .and_then(|r| r.strip_suffix('`'))
    {
        let field_path = child_key(&path, name);
        let message = format!("`{name}` appears more than once; keep one");
        return at(
            map.exact(&field_path).or(serde_pos),
            ProfileIssue::new(field_path, message),
        );
    }
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
    // `expected struct DelayHeader` (a Rust type name) → `expected an object`.
    if let Some(at) = out.find("expected struct ") {
        out = format!("{}expected an object", &out[..at]);
    }
    if let Some(rest) = out.strip_suffix("expected string or map") {
        out = format!("{rest}expected a name (a string)");
    }
    out
}

/// A hint when the text starts with a UTF-8 byte-order mark (some Windows editors add one).
fn bom_hint(text: &str) -> &'static str {
    if text.starts_with('\u{feff}') {
        "; the file starts with a byte-order mark (BOM): save it as UTF-8 without BOM"
    } else {
        ""
    }
}

/// serde_json's message without its trailing ` at line L column C`.
fn bare_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_owned()
}
