//! Format migrations: a `retryscope-profile/1` document is read as `/2` (DESIGN.md §7).
//!
//! Version 2 only adds optional fields and lifts limits (`max_retries` up to `u32::MAX` or
//! `null`), so every valid `/1` document is a valid `/2` document once its tag is changed;
//! the migration is that change. Saving writes `/2`, and the front ends say so with
//! [`upgrade_note`].

use crate::model::{PROFILE_FORMAT, PROFILE_FORMAT_V1};
use serde_json::Value;

/// An upgrade done while loading: the tag the file had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upgrade {
    /// The file's format tag (`retryscope-profile/1`).
    pub from: &'static str,
}

impl Upgrade {
    /// The note shown when such a profile is opened or saved (see [`upgrade_note`]).
    pub fn note(self) -> String {
        upgrade_note(self.from)
    }
}

/// `this profile is in the older format retryscope-profile/1; saving it writes
/// retryscope-profile/2 (same settings; retryscope versions before 2 cannot read that)`.
pub fn upgrade_note(from: &str) -> String {
    format!(
        "this profile is in the older format {from}; saving it writes {PROFILE_FORMAT} (same settings; older retryscope versions cannot read that)"
    )
}

/// Rewrites an older format tag in `doc` to [`PROFILE_FORMAT`]; what was upgraded, if anything.
pub(super) fn migrate(doc: &mut Value) -> Option<Upgrade> {
    let object = doc.as_object_mut()?;
    match object.get("format") {
        Some(Value::String(s)) if s == PROFILE_FORMAT_V1 => {
            object.insert("format".into(), Value::from(PROFILE_FORMAT));
            Some(Upgrade {
                from: PROFILE_FORMAT_V1,
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_v1_tag_is_rewritten() {
        let mut v1 = serde_json::json!({"format": "retryscope-profile/1", "name": "x"});
        assert_eq!(
            migrate(&mut v1),
            Some(Upgrade {
                from: PROFILE_FORMAT_V1
            })
        );
        assert_eq!(v1["format"], PROFILE_FORMAT);
        let mut v2 = serde_json::json!({"format": "retryscope-profile/2"});
        assert_eq!(migrate(&mut v2), None);
        let mut other = serde_json::json!({"format": "retryscope-profile/9"});
        assert_eq!(migrate(&mut other), None);
        assert_eq!(other["format"], "retryscope-profile/9");
    }
}
