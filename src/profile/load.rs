//! Parsing a profile document: syntax, the format tag, the shape (through the shipped JSON
//! Schema), then the semantic rules, every problem at once with field path and line:column.

use super::field_path::{Step, parse, related, render};
use super::issue::{ProfileErrors, ProfileIssue};
use super::migrate::{Upgrade, migrate};
use super::positions::{Position, Positions};
use super::problem::{Kind, Problem};
use super::repair::checked_copy;
use super::shape::{self, MAX_VIOLATIONS};
use super::validate::rules;
use crate::model::{PROFILE_FORMAT, PROFILE_FORMAT_V1, RetryProfile};
use serde_json::Value;
use std::path::Path;

/// Problems listed at most; the rest are counted in one last line.
pub const MAX_LISTED_PROBLEMS: usize = 100;

/// A profile read from a document, and the format upgrade done on the way (if any).
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The profile, tagged with the current format.
    pub profile: RetryProfile,
    /// Set when the document had an older format tag (`retryscope-profile/1`): front ends show
    /// [`Upgrade::note`] (saving writes the current format).
    pub upgrade: Option<Upgrade>,
    /// Settings that are valid but never take effect ([`super::warnings`]), each with its
    /// field path and line:column, in document order. Not errors: the profile loaded.
    pub warnings: Vec<ProfileIssue>,
}

/// Parses and validates a profile document ([`load_str_noted`] without the upgrade note).
///
/// # Errors
/// As [`load_str_noted`].
pub fn load_str(text: &str) -> Result<RetryProfile, ProfileErrors> {
    load_str_noted(text).map(|l| l.profile)
}

/// Parses and validates a profile document, saying whether its format was upgraded.
///
/// Order of checks: JSON syntax (stops at the first error), that the document is an object and
/// its `format` tag is `retryscope-profile/2` or the older `retryscope-profile/1` (read as `/2`,
/// see `src/profile/migrate.rs`; anything else stops there too), then everything else at once:
/// the shape against the shipped JSON Schema `assets/retry-profile.schema.json` (unknown fields
/// with "did you mean", missing fields, wrong types, ranges, unknown names), keys given twice,
/// and the semantic rules of [`super::validate()`] on a copy without the broken values (see
/// `src/profile/repair.rs`). At most [`MAX_LISTED_PROBLEMS`] are listed, in document order.
///
/// # Errors
/// Every problem found, each with field path and 1-based line:column.
pub fn load_str_noted(text: &str) -> Result<Loaded, ProfileErrors> {
    let mut value: Value = serde_json::from_str(text).map_err(|e| {
        ProfileErrors::single(ProfileIssue::syntax(
            Some(e.line()),
            Some(crate::model::char_column(text, e.line(), e.column())),
            format!("invalid JSON: {}", bare_message(&e)),
        ))
    })?;
    if let Some(problem) = gate(&value) {
        let issue = problem.issue();
        return Err(positioned(vec![(problem.anchor().to_vec(), issue)], text));
    }
    let upgrade = migrate(&mut value);
    let mut problems = shape::problems(&value, MAX_VIOLATIONS);
    // `"nme": …` is an unknown field that means `name`: not also a missing `name`.
    let meant: Vec<Vec<Step>> = problems
        .iter()
        .filter_map(|p| {
            let meant = p.meant()?;
            let (_, parent) = p.path.split_last()?;
            Some([parent, &[Step::Key(meant.to_owned())]].concat())
        })
        .collect();
    problems.retain(|p| !(p.kind == Kind::Missing && meant.contains(&p.path)));
    if problems.is_empty() {
        // serde reads the text itself, so a key given twice (which the parsed value hides) fails.
        if let Ok(mut profile) = serde_json::from_str::<RetryProfile>(text) {
            if upgrade.is_some() {
                PROFILE_FORMAT.clone_into(&mut profile.format);
            }
            let findings: Vec<_> = rules(&profile, false)
                .into_iter()
                .map(|f| (parse(&f.issue.path), f.issue))
                .collect();
            if findings.is_empty() {
                let warnings = super::warnings(&profile)
                    .into_iter()
                    .map(|w| (parse(&w.path), w));
                let warnings = in_order(warnings, &Positions::of(text));
                return Ok(Loaded {
                    profile,
                    upgrade,
                    warnings,
                });
            }
            return Err(positioned(findings, text));
        }
    }
    let positions = Positions::of(text);
    problems.extend(
        positions
            .duplicates()
            .into_iter()
            .map(|(path, _)| Problem::new(path, Kind::Repeated)),
    );
    if problems.is_empty() {
        // The schema and serde disagree (a gap in the schema): serde's own word, at its path.
        problems.push(serde_problem(text));
    }
    let mut issues: Vec<(Vec<Step>, ProfileIssue)> = problems
        .iter()
        .map(|p| (p.anchor().to_vec(), p.issue()))
        .collect();
    issues.extend(semantic_beyond(&value, &problems));
    Err(place(issues, &positions))
}

/// The semantic findings on the repaired copy that are about the file's own values: not about a
/// field already reported (or inside one, or containing one), and reading no stand-in.
fn semantic_beyond(value: &Value, problems: &[Problem]) -> Vec<(Vec<Step>, ProfileIssue)> {
    let Some(checked) = checked_copy(value, problems) else {
        return Vec::new();
    };
    // A repeated key is reported, but what is inside its last occurrence is still checked.
    let reported: Vec<String> = problems
        .iter()
        .filter(|p| p.kind != Kind::Repeated)
        .map(|p| render(&p.path))
        .collect();
    let mut out = Vec::new();
    for finding in rules(&checked.profile, true) {
        let path = checked.in_file(&finding.issue.path);
        let reads: Vec<String> = finding.reads.iter().map(|r| checked.in_file(r)).collect();
        let about_reported = reported.iter().any(|p| related(p, &path));
        let quotes_a_stand_in = checked
            .taken
            .iter()
            .any(|t| related(t, &path) || reads.iter().any(|r| related(t, r)));
        if !about_reported && !quotes_a_stand_in {
            let mut issue = finding.issue;
            issue.path.clone_from(&path);
            out.push((parse(&path), issue));
        }
    }
    out
}

/// `issues` placed in `text` (see [`place`]).
fn positioned(issues: Vec<(Vec<Step>, ProfileIssue)>, text: &str) -> ProfileErrors {
    place(issues, &Positions::of(text))
}

/// Each issue at the line:column of its anchor (the field, else its nearest ancestor in the
/// file), in document order.
fn in_order(
    issues: impl Iterator<Item = (Vec<Step>, ProfileIssue)>,
    positions: &Positions<'_>,
) -> Vec<ProfileIssue> {
    let mut placed: Vec<(Position, ProfileIssue)> = issues
        .map(|(anchor, mut issue)| {
            let p = positions.locate(&anchor);
            (issue.line, issue.column) = (Some(p.line), Some(p.column));
            (p, issue)
        })
        .collect();
    placed.sort_by_key(|(p, _)| *p);
    placed.into_iter().map(|(_, issue)| issue).collect()
}

/// Each issue at the line:column of its anchor (the field, else its nearest ancestor in the
/// file), in document order, at most [`MAX_LISTED_PROBLEMS`] of them.
fn place(issues: Vec<(Vec<Step>, ProfileIssue)>, positions: &Positions<'_>) -> ProfileErrors {
    let mut issues = in_order(issues.into_iter(), positions);
    if issues.len() > MAX_LISTED_PROBLEMS {
        issues.truncate(MAX_LISTED_PROBLEMS);
        // Not a count: past a point the checks stop looking (see `shape::problems`).
        issues.push(ProfileIssue::new(
            "",
            format!("more problems are not listed; fix the {MAX_LISTED_PROBLEMS} above first"),
        ));
    }
    ProfileErrors { issues }
}

/// The checks that stop at once: the document is an object, and its `format` tag is ours.
/// `/2` and the older `/1` (migrated by the caller) pass; anything else is a clear error. A
/// missing tag is reported with everything else (the schema requires it).
fn gate(value: &Value) -> Option<Problem> {
    let Some(object) = value.as_object() else {
        let message = "a profile must be a JSON object".to_owned();
        return Some(Problem::new(Vec::new(), Kind::Rule { message }));
    };
    let message = match object.get("format")? {
        Value::String(s) if s == PROFILE_FORMAT || s == PROFILE_FORMAT_V1 => return None,
        Value::String(s) if s.starts_with("retryscope-profile/") => {
            format!(
                "unsupported format `{s}`; this version of retryscope reads `{PROFILE_FORMAT}` and `{PROFILE_FORMAT_V1}`"
            )
        }
        other => {
            format!("format is {other}, not a retryscope profile; expected `{PROFILE_FORMAT}`")
        }
    };
    Some(Problem::new(
        vec![Step::Key("format".into())],
        Kind::Rule { message },
    ))
}

/// serde's first error on the text, at its path.
fn serde_problem(text: &str) -> Problem {
    let mut de = serde_json::Deserializer::from_str(text);
    let message = match serde_path_to_error::deserialize::<_, RetryProfile>(&mut de) {
        Ok(_) => "the profile does not load".to_owned(),
        Err(e) => {
            let message = bare_message(e.inner());
            return Problem::new(parse(&e.path().to_string()), Kind::Rule { message });
        }
    };
    Problem::new(Vec::new(), Kind::Rule { message })
}

/// Reads and validates a profile file ([`load_file_noted`] without the upgrade note).
///
/// # Errors
/// As [`load_file_noted`].
pub fn load_file(path: &Path) -> Result<RetryProfile, ProfileErrors> {
    load_file_noted(path).map(|l| l.profile)
}

/// Reads and validates a profile file, saying whether its format was upgraded.
///
/// # Errors
/// An unreadable file (one issue at the root, without position; the caller names the file), a
/// file that is not UTF-8 (one issue at the first bad byte's line:column) or any problem
/// [`load_str`] reports.
pub fn load_file_noted(path: &Path) -> Result<Loaded, ProfileErrors> {
    let bytes =
        crate::store::input_file::read_input_file(path, crate::store::input_file::PROFILE_FILE)
            .map_err(unreadable)?;
    load_bytes_noted(&bytes)
}

/// Parses and validates a profile document given as raw bytes (a file's contents).
///
/// # Errors
/// As [`load_bytes_noted`].
pub fn load_bytes(bytes: &[u8]) -> Result<RetryProfile, ProfileErrors> {
    load_bytes_noted(bytes).map(|l| l.profile)
}

/// [`load_bytes`], saying whether the format was upgraded.
///
/// # Errors
/// Bytes that are not UTF-8 (one issue at the first bad byte's line:column, naming a UTF-16
/// byte-order mark when there is one), or any problem [`load_str_noted`] reports.
pub fn load_bytes_noted(bytes: &[u8]) -> Result<Loaded, ProfileErrors> {
    let text = crate::model::utf8_text(bytes).map_err(|e| {
        ProfileErrors::single(ProfileIssue::syntax(
            Some(e.line),
            Some(e.column),
            e.message("the file"),
        ))
    })?;
    load_str_noted(text)
}

/// [`load_bytes_noted`] of a file someone else read (the window's file picker, off the UI
/// thread): its bytes, or why they could not be read (lowercase), with the messages of
/// [`load_file_noted`].
///
/// # Errors
/// As [`load_file_noted`].
pub fn load_read_noted(read: Result<Vec<u8>, String>) -> Result<Loaded, ProfileErrors> {
    let bytes = read.map_err(unreadable)?;
    let len = bytes.len() as u64;
    if len > MAX_PROFILE_FILE_BYTES {
        let kind = crate::store::input_file::PROFILE_FILE;
        return Err(unreadable(
            crate::store::input_file::InputFileError::TooLarge { len, kind },
        ));
    }
    load_bytes_noted(&bytes)
}

/// The one issue of a profile file that cannot be read, `why`: at the root, without position;
/// the caller writes the file first (`FILE: cannot read the profile file: …`, the layout of
/// [`crate::store::input_file::cannot_read`]).
fn unreadable(why: impl std::fmt::Display) -> ProfileErrors {
    let message = format!("cannot read the profile file: {why}");
    ProfileErrors::single(ProfileIssue::new("", message))
}

/// Largest profile file read, bytes (16 MiB; real profiles are a few KiB).
pub const MAX_PROFILE_FILE_BYTES: u64 = crate::store::input_file::PROFILE_FILE.max_bytes;

/// [`crate::model::plain_json_error`], saying `serde_json`'s nesting limit (128 arrays or objects)
/// in words.
fn bare_message(e: &serde_json::Error) -> String {
    if e.to_string().starts_with("recursion limit exceeded") {
        return "nested more than 128 levels deep (recursion limit exceeded)".into();
    }
    crate::model::plain_json_error(e)
}
