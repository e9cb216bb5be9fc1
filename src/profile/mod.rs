//! Profiles as files: load, validate, save atomically, JSON Schema, built-ins.
//!
//! STUB: signatures are the contract; the profile work replaces the bodies.

use crate::model::RetryProfile;
use std::fmt;
use std::path::Path;

/// One problem in a profile document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileIssue {
    /// Field path, e.g. `backoff.base_delay_ms` (empty for the document root).
    pub path: String,
    /// 1-based line in the source, when known.
    pub line: Option<usize>,
    /// 1-based column in the source, when known.
    pub column: Option<usize>,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for ProfileIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{l}:{c}: {}: {}", self.path, self.message),
            _ => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// Every problem found in a document (never empty).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct ProfileErrors {
    /// The problems, in document order.
    pub issues: Vec<ProfileIssue>,
}

/// Parses and validates a profile document.
///
/// # Errors
/// Every syntax, shape and semantic problem with field path and line:column.
pub fn load_str(text: &str) -> Result<RetryProfile, ProfileErrors> {
    serde_json::from_str(text).map_err(|e| ProfileErrors {
        issues: vec![ProfileIssue {
            path: String::new(),
            line: Some(e.line()),
            column: Some(e.column()),
            message: e.to_string(),
        }],
    })
}

/// Reads and validates a profile file.
///
/// # Errors
/// An unreadable file or any problem [`load_str`] reports.
pub fn load_file(path: &Path) -> Result<RetryProfile, ProfileErrors> {
    let text = std::fs::read_to_string(path).map_err(|e| ProfileErrors {
        issues: vec![ProfileIssue {
            path: String::new(),
            line: None,
            column: None,
            message: format!("cannot read {}: {e}", path.display()),
        }],
    })?;
    load_str(&text)
}

/// A built-in profile.
#[derive(Debug, Clone)]
pub struct Builtin {
    /// Name `--builtin` takes, e.g. `servicenow-exponential`.
    pub id: &'static str,
    /// The parsed profile.
    pub profile: RetryProfile,
}

/// All built-in profiles, in listing order.
pub fn builtins() -> Vec<Builtin> {
    Vec::new()
}

/// The built-in named `id`.
pub fn builtin(id: &str) -> Option<RetryProfile> {
    builtins()
        .into_iter()
        .find(|b| b.id == id)
        .map(|b| b.profile)
}
