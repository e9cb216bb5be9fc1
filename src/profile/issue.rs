//! Problems found in a profile document, with field path and source position.

use std::fmt;

/// One problem in a profile document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileIssue {
    /// Field path, e.g. `backoff.base_delay_ms` or `retry_on.status[2]` (empty for the document root).
    pub path: String,
    /// 1-based line in the source, when known.
    pub line: Option<usize>,
    /// 1-based column in the source, when known.
    pub column: Option<usize>,
    /// What is wrong and what to do.
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
    /// `line:column: path: message` (position and path left out when unknown or empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, "{l}:{c}: ")?;
        }
        f.write_str(&self.path_and_message())
    }
}

/// Every problem found in a document (never empty). `Display` prints one issue per line.
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
