//! Finding the profile a batch item names (issue 9): a built-in id, or a profile in the user's
//! library folder (by file name without `.json`, or by the profile's `name`). The same lookup
//! checks the names when a list is imported (an unknown one is reported with its line) and
//! finds the profiles when the items are sent.

use super::batch_runner::ProfileLookup;
use crate::model::RetryProfile;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The user's profile library folder: `<config dir>/profiles` of `dev.retryscope.Retryscope`.
pub fn default_library_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("dev", "retryscope", "Retryscope")
        .map(|d| d.config_dir().join("profiles"))
}

/// The library as last read: the folder's modification time and its profiles by name.
#[derive(Default)]
struct LibraryCache {
    stamp: Option<SystemTime>,
    read: bool,
    by_name: HashMap<String, RetryProfile>,
}

/// The `*.json` files in the profile library folder `dir`, sorted by name; empty when the
/// folder does not exist or cannot be read.
pub fn library_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        })
        .collect();
    files.sort();
    files
}

/// Reads every `*.json` profile in `dir` under its file stem and its `name` (a file that does
/// not load is left out: the library picker shows why).
fn read_library(dir: &Path) -> HashMap<String, RetryProfile> {
    let mut out = HashMap::new();
    for file in library_files(dir) {
        let Ok(profile) = crate::profile::load_file(&file) else {
            continue;
        };
        if let Some(stem) = file.file_stem() {
            out.entry(stem.to_string_lossy().into_owned())
                .or_insert_with(|| profile.clone());
        }
        out.entry(profile.name.clone()).or_insert(profile);
    }
    out
}

/// A lookup over the built-ins, then the profiles in `library` (when given). The folder is read
/// again only when its modification time changes, so a lookup per item stays cheap.
pub fn library_lookup(library: Option<PathBuf>) -> ProfileLookup {
    let cache = Mutex::new(LibraryCache::default());
    Arc::new(move |name: &str| {
        if let Some(p) = crate::profile::builtin(name) {
            return Some(p);
        }
        let dir = library.as_deref()?;
        let stamp = std::fs::metadata(dir).and_then(|m| m.modified()).ok();
        let mut cache = cache.lock().ok()?;
        if !cache.read || cache.stamp != stamp {
            cache.by_name = read_library(dir);
            cache.stamp = stamp;
            cache.read = true;
        }
        cache.by_name.get(name).cloned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_profiles_are_found_by_file_and_name_and_built_ins_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = crate::ui::profile_library::fallback_default_profile();
        p.name = "Team default".into();
        std::fs::write(
            dir.path().join("team.json"),
            serde_json::to_string(&p).unwrap(),
        )
        .unwrap();
        let lookup = library_lookup(Some(dir.path().to_path_buf()));
        assert!(lookup("team").is_some());
        assert!(lookup("Team default").is_some());
        assert!(lookup("aws-standard").is_some(), "built-ins first");
        assert!(lookup("nope").is_none());
    }
}
