//! A request saved in the request library: a name and the composer's draft, without secrets.

use super::request_draft::RequestDraft;
use serde::{Deserialize, Serialize};

/// The `format` of saved-request files; bump the number when the shape changes.
pub const SAVED_REQUEST_FORMAT: &str = "retryscope-request/1";

/// One saved request (one JSON file in the library folder).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedRequest {
    /// Always [`SAVED_REQUEST_FORMAT`] in files written by this version.
    pub format: String,
    /// Stable id (a UUID), also the file's name; survives renames.
    pub id: String,
    /// Display name (free text; several requests may share one).
    pub name: String,
    /// The request as composed, secret values blanked ([`RequestDraft::without_secrets`]).
    pub request: RequestDraft,
}

impl SavedRequest {
    /// A saved request `name` holding `request` without its secrets.
    pub fn new(id: impl Into<String>, name: impl Into<String>, request: &RequestDraft) -> Self {
        Self {
            format: SAVED_REQUEST_FORMAT.to_owned(),
            id: id.into(),
            name: name.into(),
            request: request.without_secrets(),
        }
    }

    /// Whether `query` (case-insensitive, trimmed) occurs in the name, method or URL; an empty
    /// query matches everything.
    pub fn matches(&self, query: &str) -> bool {
        let q = query.trim().to_lowercase();
        q.is_empty()
            || self.name.to_lowercase().contains(&q)
            || self.request.method.to_lowercase().contains(&q)
            || self.request.url.to_lowercase().contains(&q)
    }
}
