//! One request of a batch: what an imported list line (JSON Lines, CSV, curl, HAR
//! entry) becomes before it is queued. Plain data; the queue itself lives in the history
//! database (`crate::store`).

use super::request::RequestSpec;
use serde::{Deserialize, Serialize};

/// A request to be worked through a profile as one batch item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchRequest {
    /// The item's name shown in the table and the reports (`None`: method and URL are shown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The request as it will be sent (variables already resolved by the importer or not at all).
    pub request: RequestSpec,
    /// Name of a profile (built-in or saved) for this item only; `None` = the batch's profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Where the item came from in the imported file: 1-based line (JSON Lines, CSV, curl) or
    /// 1-based entry index (HAR); `None` when it was not imported from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_line: Option<u64>,
}

impl BatchRequest {
    /// The label shown for the item: its name, else `METHOD URL`.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => name.clone(),
            None => format!("{} {}", self.request.method, self.request.url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_falls_back_to_method_and_url() {
        let mut item = BatchRequest {
            name: None,
            request: RequestSpec::get("http://127.0.0.1:1/x"),
            profile: None,
            source_line: Some(3),
        };
        assert_eq!(item.label(), "GET http://127.0.0.1:1/x");
        item.name = Some("health".into());
        assert_eq!(item.label(), "health");
    }
}
