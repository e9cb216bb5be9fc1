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

/// Why a file could not be imported: a syntax error (with position) or a setting whose value
/// cannot be read (with its path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// Setting path (`retryPolicy.initialBackoff`), empty for syntax errors.
    pub path: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong, lowercase.
    pub message: String,
}

impl FormatError {
    /// A bad value at `path`.
    pub fn at(path: &str, message: impl Into<String>) -> Self {
        Self {
            path: path.to_owned(),
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// A syntax error at `line`:`column`.
    pub fn syntax(line: Option<usize>, column: Option<usize>, message: String) -> Self {
        Self {
            path: String::new(),
            line,
            column,
            message,
        }
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}:{c}: ")?,
            (Some(l), None) => write!(f, "line {l}: ")?,
            _ => {}
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for FormatError {}

/// Collects unmapped settings while an importer walks a file, and which setting of the file
/// each profile field came from (so a value the profile refuses is named as the file names it).
#[derive(Debug, Default)]
pub struct Findings {
    /// Settings left out or approximated, in file order.
    pub unmapped: Vec<Unmapped>,
    /// (profile field path, the file's setting path), latest last.
    sources: Vec<(String, String)>,
}

impl Findings {
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
