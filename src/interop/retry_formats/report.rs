//! What an export and an import hand back: the text or profile, and every setting that did not
//! carry over, named so the user can act on it.

use crate::model::RetryProfile;
use std::fmt;

/// A profile written in another tool's format.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportedPolicy {
    /// The file or snippet, ready to paste. For formats with comments the not-expressible
    /// list is inside it as comments; for gRPC's JSON (no comments) only in
    /// [`ExportedPolicy::not_expressed`].
    pub text: String,
    /// What the target cannot express, one sentence each (empty = nothing was lost).
    pub not_expressed: Vec<String>,
    /// Whether `text` already carries `not_expressed` as comments.
    pub commented: bool,
}

impl ExportedPolicy {
    /// `text` that carries `gaps` as comments (`commented` true) or not.
    pub fn new(text: String, gaps: Vec<String>, commented: bool) -> Self {
        Self {
            text,
            not_expressed: gaps,
            commented,
        }
    }
}

/// How far a setting of the other tool carried over into the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carried {
    /// Left out: the profile has nothing for it (yet).
    Dropped,
    /// Mapped to the nearest profile setting, which behaves differently (the reason says how).
    Approximated,
}

/// One setting of the imported file that did not map exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmapped {
    /// Where it is in the file, e.g. `methodConfig[0].retryPolicy.maxAttempts`, or
    /// `[profile dev].region` for INI files.
    pub path: String,
    /// Its value as written (short form).
    pub value: String,
    /// Left out or approximated.
    pub carried: Carried,
    /// Why, lowercase, e.g. `this converter does not map retry budgets (retry_budget) yet`.
    pub reason: String,
}

impl fmt::Display for Unmapped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.carried {
            Carried::Dropped => "not mapped",
            Carried::Approximated => "approximated",
        };
        write!(f, "{what}: {} = {}: {}", self.path, self.value, self.reason)
    }
}

/// A profile read from another tool's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedPolicy {
    /// The profile (valid: it passed [`crate::profile::validate`]).
    pub profile: RetryProfile,
    /// Every setting that was left out or approximated, in file order.
    pub unmapped: Vec<Unmapped>,
}

/// One reason a file cannot be imported: a syntax error (with position, no path) or a setting
/// whose value cannot be read (with its path, e.g. `retryPolicy.initialBackoff`); the one
/// problem type of profiles serves. `Display` writes `line:column: path: message`.
pub type FormatError = crate::profile::ProfileIssue;

impl FormatError {
    /// The error as both faces show it, the place first as compilers write it
    /// ([`crate::model::file_message`]): `FILE:3:1: cannot import AWS shared config (INI):
    /// section header …`, `FILE: cannot import …` when it has no line.
    pub fn shown(&self, format: super::RetryFormat, file: &std::path::Path) -> String {
        crate::model::file_message(
            file.display(),
            self.line,
            self.column,
            format_args!(
                "cannot import {}: {}",
                format.label(),
                self.path_and_message()
            ),
        )
    }

    /// This error with the line and column of its setting in `text` when it has a path but no
    /// position (a value that does not read): the path's keys are looked for in order, each
    /// after the one before it (`retry_policy.num_retries` finds `num_retries:` under
    /// `retry_policy:`), in JSON (`"key":`), YAML (`key:`) and INI (`key =`) alike. Unchanged
    /// when a key is not found.
    #[must_use]
    pub fn located_in(mut self, text: &str) -> Self {
        if self.line.is_none()
            && let Some((line, column)) = locate_path(text, &self.path)
        {
            self.line = Some(line);
            self.column = Some(column);
        }
        self
    }
}

/// The 1-based line and character column of the last key of `path` (`a.b[2].c`, `[N]`
/// skipped) in `text`, each key found after the previous one.
fn locate_path(text: &str, path: &str) -> Option<(usize, usize)> {
    // `[profile x]` is an INI section, found as written; `[2]` an index, skipped.
    let section = |k: &str| k.starts_with('[') && !k[1..].starts_with(|c: char| c.is_ascii_digit());
    let keys: Vec<&str> = path
        .split('.')
        .map(|k| {
            if section(k) {
                k
            } else {
                k.split('[').next().unwrap_or_default()
            }
        })
        .filter(|k| !k.is_empty())
        .collect();
    if keys.is_empty() {
        return None;
    }
    let mut from = 0;
    let mut at = None;
    for key in keys {
        let found = if section(key) {
            text[from..].find(key)?
        } else {
            find_key(&text[from..], key)?
        } + from;
        at = Some(found);
        from = found + key.len();
    }
    let at = at?;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Some((line, text[line_start..at].chars().count() + 1))
}

/// The byte offset of the first `key` in `text` written as a key: not inside a longer name,
/// and followed (after an optional closing quote and blanks) by `:` or `=`.
fn find_key(text: &str, key: &str) -> Option<usize> {
    let name_char = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(key).map(|(i, _)| i).find(|&i| {
        let before_ok = text[..i].chars().next_back().is_none_or(|c| !name_char(c));
        let after = &text[i + key.len()..];
        let after_ok = after.chars().next().is_none_or(|c| !name_char(c))
            && after
                .trim_start_matches(['"', '\''])
                .trim_start_matches([' ', '\t'])
                .starts_with([':', '=']);
        before_ok && after_ok
    })
}

/// Why a file could not be imported: every problem found, at least one. A syntax error stops
/// the reading, so it comes alone; otherwise every setting whose value cannot be read is
/// listed, or, when all of them read, every problem of the profile they make. The profile's
/// list of problems serves; `Display` writes one [`FormatError`] a line.
pub type ImportError = crate::profile::ProfileErrors;

impl ImportError {
    /// Every problem as [`FormatError::shown`] writes it, one per line.
    pub fn shown(&self, format: super::RetryFormat, file: &std::path::Path) -> String {
        let lines: Vec<String> = self.issues.iter().map(|p| p.shown(format, file)).collect();
        lines.join("\n")
    }

    /// Every problem placed in `text` ([`FormatError::located_in`]) and sorted by line and
    /// column; problems with no place keep their order, after the others.
    #[must_use]
    pub fn located_in(self, text: &str) -> Self {
        let mut issues: Vec<FormatError> = self
            .issues
            .into_iter()
            .map(|p| p.located_in(text))
            .collect();
        issues.sort_by_key(|p| (p.line.is_none(), p.line, p.column));
        Self { issues }
    }
}

/// Collects unmapped settings and values that cannot be read while an importer walks a file,
/// and which setting of the file each profile field came from (so a value the profile refuses
/// is named as the file names it).
#[derive(Debug, Default)]
pub struct Findings {
    /// Settings left out or approximated, in file order.
    pub unmapped: Vec<Unmapped>,
    /// Values that cannot be read: the walk goes on past each, so all are reported at once.
    problems: Vec<FormatError>,
    /// (profile field path, the file's setting path), latest last.
    sources: Vec<(String, String)>,
}

impl Findings {
    /// A value that cannot be read (the walk goes on).
    pub fn problem(&mut self, e: FormatError) {
        self.problems.push(e);
    }

    /// Every problem found so far and `last`, which ends the import (the file lacks what the
    /// rest needs).
    pub fn refuse(mut self, last: FormatError) -> ImportError {
        self.problems.push(last);
        ImportError {
            issues: self.problems,
        }
    }

    /// The problems found, as the import's error, when there are any.
    ///
    /// # Errors
    /// Every problem found.
    pub fn checked(&mut self) -> Result<(), ImportError> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(ImportError {
                issues: std::mem::take(&mut self.problems),
            })
        }
    }

    /// The profile field `field` (`backoff.base_delay_ms`) was set from the file's `path`
    /// (`methodConfig[0].retryPolicy.initialBackoff`).
    pub fn source(&mut self, field: &str, path: &str) {
        self.sources.push((field.to_owned(), path.to_owned()));
    }

    /// The file's setting that `field` (or the nearest field containing it) came from.
    pub fn source_of(&self, field: &str) -> Option<&str> {
        // A computed backoff may end up as a `response_header` backoff's fallback.
        let field = field.replace(".fallback", "");
        let mut at = field.as_str();
        loop {
            if let Some((_, path)) = self.sources.iter().rev().find(|(f, _)| f == at) {
                return Some(path.as_str());
            }
            at = &at[..at.rfind(['.', '['])?];
        }
    }

    /// `path = value` was left out, because `reason`.
    pub fn dropped(&mut self, path: &str, value: impl Into<String>, reason: &str) {
        self.push(path, value.into(), Carried::Dropped, reason);
    }

    /// `path = value` maps only approximately, because `reason`.
    pub fn approximated(&mut self, path: &str, value: impl Into<String>, reason: &str) {
        self.push(path, value.into(), Carried::Approximated, reason);
    }

    fn push(&mut self, path: &str, value: String, carried: Carried, reason: &str) {
        self.unmapped.push(Unmapped {
            path: path.to_owned(),
            value,
            carried,
            reason: reason.to_owned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_value_is_placed_at_its_key_in_yaml_json_and_ini() {
        let yaml = "retry_policy:\n  retry_on: \"5xx\"\n  num_retries: abc\n";
        let e = FormatError::new("retry_policy.num_retries", "bad").located_in(yaml);
        assert_eq!((e.line, e.column), (Some(3), Some(3)));
        let json = "{\"retryPolicy\": {\"maxAttempts\": 2,\n  \"initialBackoff\": \"x\"}}";
        let e = FormatError::new("methodConfig[0].retryPolicy.initialBackoff", "bad");
        let e = e.located_in(json);
        assert_eq!(
            (e.line, e.column),
            (None, None),
            "methodConfig is not in the text"
        );
        let e = FormatError::new("retryPolicy.initialBackoff", "bad").located_in(json);
        assert_eq!(
            (e.line, e.column),
            (Some(2), Some(4)),
            "the name inside its quotes"
        );
        let ini = "[profile a]\nmax_attempts = 1\n[default]\nmax_attempts = x\n";
        let e = FormatError::new("[default].max_attempts", "bad").located_in(ini);
        assert_eq!((e.line, e.column), (Some(4), Some(1)));
        // A longer name holding the key is not it.
        let e = FormatError::new("retries", "bad").located_in("max_retries: 1\nretries: 2\n");
        assert_eq!(e.line, Some(2));
    }
}
