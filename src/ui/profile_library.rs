//! Where profiles come from (built-ins, the user's library folder, opened files) and the one
//! being edited, with its unsaved-changes state.

use crate::model::{Backoff, PROFILE_FORMAT, RetryOn, RetryProfile, StatusSet, Strategy};
use crate::profile;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The built-in selected on first run (seed 001's exponential example).
pub const DEFAULT_BUILTIN: &str = "servicenow-exponential";

/// A profile file's name stem from its profile's name: `My API (copy)` → `my-api-copy`
/// ([`crate::model::slug`]; `profile` when nothing is left).
pub fn file_stem(profile_name: &str) -> String {
    crate::model::slug(profile_name, "profile")
}

/// Where the current profile came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProfileSource {
    /// A built-in, read-only.
    Builtin(String),
    /// A file (library folder or opened elsewhere).
    File(PathBuf),
    /// Not saved anywhere yet (a duplicate or an edited copy).
    Unsaved,
}

/// One entry of the profile picker.
#[derive(Debug, Clone, PartialEq)]
pub struct PickerEntry {
    /// Shown text.
    pub label: String,
    /// Where it loads from.
    pub source: ProfileSource,
}

/// The profile being edited.
#[derive(Debug, Clone, PartialEq)]
pub struct CurrentProfile {
    /// Where it came from / is saved to.
    pub source: ProfileSource,
    /// The value in the editor.
    pub profile: RetryProfile,
    /// The value last loaded or saved (`None` = never saved).
    pub saved: Option<RetryProfile>,
}

impl Default for CurrentProfile {
    /// The [`DEFAULT_BUILTIN`], unmodified.
    fn default() -> Self {
        let profile = builtin_profile(DEFAULT_BUILTIN).unwrap_or_else(fallback_default_profile);
        Self::clean(ProfileSource::Builtin(DEFAULT_BUILTIN.into()), profile)
    }
}

impl CurrentProfile {
    /// `profile`, saved nowhere yet.
    pub fn unsaved(profile: RetryProfile) -> Self {
        Self {
            source: ProfileSource::Unsaved,
            profile,
            saved: None,
        }
    }

    /// A clean (unmodified) profile from `source`.
    pub fn clean(source: ProfileSource, profile: RetryProfile) -> Self {
        Self {
            source,
            saved: Some(profile.clone()),
            profile,
        }
    }

    /// True when the editor holds changes not saved anywhere.
    pub fn is_dirty(&self) -> bool {
        self.saved.as_ref() != Some(&self.profile)
    }

    /// Built-ins are read-only ("Duplicate to edit").
    pub fn is_read_only(&self) -> bool {
        matches!(self.source, ProfileSource::Builtin(_))
    }

    /// The file it saves to with Save, if any.
    pub fn path(&self) -> Option<&Path> {
        match &self.source {
            ProfileSource::File(p) => Some(p),
            _ => None,
        }
    }

    /// An editable unsaved copy named "… (copy)".
    #[must_use]
    pub fn duplicate(&self) -> Self {
        let mut profile = self.profile.clone();
        profile.name = format!("{} (copy)", profile.name);
        Self::unsaved(profile)
    }
}

/// The seed 001 exponential example, used when `crate::profile` has no built-in of that id.
pub fn fallback_default_profile() -> RetryProfile {
    let mut backoff = Backoff::new(Strategy::Exponential);
    backoff.base_delay_ms = 1000;
    backoff.max_delay_ms = Some(10_000);
    backoff.jitter_window_ms = 1500;
    RetryProfile {
        format: PROFILE_FORMAT.into(),
        name: "ServiceNow example (exponential)".into(),
        provider: "example".into(),
        description: "Numbers from the cloud retry configuration page's example table.".into(),
        max_retries: Some(3),
        success_status: StatusSet::default_success(),
        success_when: Vec::new(),
        retry_on: RetryOn::default(),
        on_other_status: crate::model::OtherStatusAction::Stop,
        backoff,
        deadline_ms: None,
        timeouts: crate::model::ProfileTimeouts::default(),
        seed: None,
        throttling: crate::model::Throttling::default(),
        retry_budget: None,
    }
}

/// Every built-in as (id, profile); never empty (falls back to [`fallback_default_profile`]).
pub fn builtin_profiles() -> Vec<(String, RetryProfile)> {
    let list: Vec<(String, RetryProfile)> = profile::builtins()
        .into_iter()
        .map(|b| (b.id.to_owned(), b.profile))
        .collect();
    if list.iter().any(|(id, _)| id == DEFAULT_BUILTIN) {
        list
    } else {
        let mut out = vec![(DEFAULT_BUILTIN.to_owned(), fallback_default_profile())];
        out.extend(list);
        out
    }
}

/// The built-in `id`, with the fallback for [`DEFAULT_BUILTIN`].
pub fn builtin_profile(id: &str) -> Option<RetryProfile> {
    builtin_profiles()
        .into_iter()
        .find(|(i, _)| i == id)
        .map(|(_, p)| p)
}

/// The user's library folder: `<config dir>/profiles` of `dev.retryscope.Retryscope`.
pub fn default_library_dir() -> Option<PathBuf> {
    crate::service::default_library_dir()
}

/// `*.json` files in `dir`, sorted by name; empty when the folder does not exist
/// ([`crate::service::library_files`]; call it off the frame).
pub fn scan_library(dir: &Path) -> Vec<PathBuf> {
    crate::service::library_files(dir)
}

/// Picker entries: built-ins, then library files, then other opened files.
pub fn picker_entries(library: &[PathBuf], opened: &[PathBuf]) -> Vec<PickerEntry> {
    let mut out: Vec<PickerEntry> = builtin_profiles()
        .into_iter()
        .map(|(id, p)| PickerEntry {
            label: format!("{} — built-in {id}", p.name),
            source: ProfileSource::Builtin(id),
        })
        .collect();
    for p in library {
        out.push(PickerEntry {
            label: format!("library: {}", file_name(p)),
            source: ProfileSource::File(p.clone()),
        });
    }
    for p in opened.iter().filter(|p| !library.contains(p)) {
        out.push(PickerEntry {
            label: format!("file: {}", p.display()),
            source: ProfileSource::File(p.clone()),
        });
    }
    out
}

/// The file name of `p` for display.
pub fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems_are_slugs() {
        assert_eq!(file_stem("My API (copy)"), "my-api-copy");
        assert_eq!(file_stem("???"), "profile");
    }

    #[test]
    fn default_builtin_always_exists() {
        let p = builtin_profile(DEFAULT_BUILTIN);
        assert!(p.is_some_and(|p| p.backoff.strategy == Strategy::Exponential));
    }

    #[test]
    fn duplicate_is_dirty_and_editable() {
        let c = CurrentProfile::clean(
            ProfileSource::Builtin(DEFAULT_BUILTIN.into()),
            fallback_default_profile(),
        );
        assert!(!c.is_dirty());
        assert!(c.is_read_only());
        let d = c.duplicate();
        assert!(d.is_dirty());
        assert!(!d.is_read_only());
        assert!(d.profile.name.ends_with("(copy)"));
    }

    #[test]
    fn library_scan_lists_json_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("b.json"), "{}").expect("write");
        std::fs::write(dir.path().join("a.JSON"), "{}").expect("write");
        std::fs::write(dir.path().join("notes.txt"), "x").expect("write");
        let names: Vec<String> = scan_library(dir.path())
            .iter()
            .map(|p| file_name(p))
            .collect();
        assert_eq!(names, ["a.JSON", "b.json"]);
    }
}
