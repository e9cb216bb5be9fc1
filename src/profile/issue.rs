//! Problems found in a document, with field path and source position: a profile, or another
//! tool's retry settings being imported ([`crate::interop::retry_formats::FormatError`]).

use std::fmt;

/// One problem in a document: a field whose value is wrong (with its path) or a syntax error
/// (with its place and no path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileIssue {
    /// Field path, e.g. `backoff.base_delay_ms`, `retry_on.status[2]` or
    /// `retryPolicy.initialBackoff` (empty for the document root and for syntax errors).
    pub path: String,
    /// 1-based line in the source, when known.
    pub line: Option<usize>,
    /// 1-based column in the source, when known.
    pub column: Option<usize>,
    /// What is wrong and what to do, lowercase.
    pub message: String,
}

impl ProfileIssue {
    /// An issue at `path` with no position yet.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// A syntax error (no field path) at `line`:`column`.
    pub fn syntax(line: Option<usize>, column: Option<usize>, message: String) -> Self {
        Self {
            line,
            column,
            ..Self::new("", message)
        }
    }

    /// `path: message`, or just the message for the document root.
    pub fn path_and_message(&self) -> String {
        if self.path.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", self.path, self.message)
        }
    }
}

impl fmt::Display for ProfileIssue {
    /// `line:column: path: message`, the place as [`crate::model::file_message`] writes it
    /// after the file (`line: …` without a column, nothing when unknown; no path when empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{l}:{c}: ")?,
            (Some(l), None) => write!(f, "{l}: ")?,
            _ => {}
        }
        f.write_str(&self.path_and_message())
    }
}

/// Every problem found in a document (never empty): a profile, or another tool's retry settings
/// ([`crate::interop::retry_formats::ImportError`]). `Display` prints one issue per line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct ProfileErrors {
    /// The problems, in document order.
    pub issues: Vec<ProfileIssue>,
}

impl ProfileErrors {
    /// A single problem.
    pub fn single(issue: ProfileIssue) -> Self {
        Self {
            issues: vec![issue],
        }
    }
}

impl From<ProfileIssue> for ProfileErrors {
    fn from(issue: ProfileIssue) -> Self {
        Self::single(issue)
    }
}
