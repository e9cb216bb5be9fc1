//! Finding the profile a batch item names: a built-in id, or a profile in the user's
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

/// What an unknown profile name is told (a built-in id or a library profile's name is wanted).
fn unknown_profile(name: &str) -> String {
    format!(
        "unknown profile `{}` (use a built-in id, see `retryscope profile builtins`, or the name of a profile in your library)",
        crate::model::quote::quote_input(name)
    )
}

/// `FILE:line:col: path: message` of a library file's first problem (and how many more).
pub(crate) fn load_problem(file: &Path, errors: &crate::profile::ProfileErrors) -> String {
    let Some(first) = errors.issues.first() else {
        return format!("{}: does not load", file.display());
    };
    let more = errors.issues.len() - 1;
    let tail = if more == 0 {
        String::new()
    } else {
        format!(
            " (and {} more)",
            crate::model::counted(more as u64, "problem", "problems")
        )
    };
    let message = format!("{}{tail}", first.path_and_message());
    crate::model::file_message(file.display(), first.line, first.column, message)
}

/// The profile `name` names: a built-in id, else a profile in the library folder `library` (by
/// file name without `.json`, or by the profile's `name`; the first file in name order wins), as
/// [`library_lookup`] finds it.
///
/// # Errors
/// A sentence for the user: the load error of the library file called `name` when it does not
/// load (its path, line and column), else "unknown profile `name` …".
pub fn find_profile(name: &str, library: Option<&Path>) -> Result<RetryProfile, String> {
    if let Some(p) = crate::profile::builtin(name) {
        return Ok(p);
    }
    let mut broken = None;
    for file in library.map(library_files).unwrap_or_default() {
        let stem_matches = file
            .file_stem()
            .is_some_and(|s| s.to_string_lossy() == name);
        match crate::profile::load_file(&file) {
            Ok(p) if stem_matches || p.name == name => return Ok(p),
            Err(e) if stem_matches && broken.is_none() => broken = Some(load_problem(&file, &e)),
            Ok(_) | Err(_) => {}
        }
    }
    Err(broken.map_or_else(
        || unknown_profile(name),
        |problem| format!("library profile `{name}` does not load: {problem}"),
    ))
}

/// The library profiles a built-in hides, as (built-in id, warning): a file whose name (without
/// `.json`) or profile `name` is a built-in id is never found under that name, as built-ins
/// come first; the warning gives its other name when that one still finds it.
fn shadowed_library_profiles(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for file in library_files(dir) {
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = crate::profile::load_file(&file).ok().map(|p| p.name);
        let mut hidden: Vec<&str> = [Some(stem.as_str()), name.as_deref()]
            .into_iter()
            .flatten()
            .filter(|n| crate::profile::builtin(n).is_some())
            .collect();
        hidden.dedup();
        for n in hidden {
            // Its other name (the profile's, or the file's) still finds it, unless a built-in
            // hides that one too.
            let other = if n == stem {
                name.as_deref()
            } else {
                Some(stem.as_str())
            };
            let how = match other {
                Some(o) if !o.trim().is_empty() && crate::profile::builtin(o).is_none() => {
                    format!(
                        "pick it by `{}`, or rename it",
                        crate::model::quote::quote_input(o)
                    )
                }
                _ => "rename it to use it".to_owned(),
            };
            out.push((
                n.to_owned(),
                format!(
                    "the built-in profile `{n}` hides the library profile of that name ({how}): {}",
                    file.display()
                ),
            ));
        }
    }
    out
}

/// A warning for each library profile in `dir` (when given) that a built-in hides and whose
/// name `specs` give (as typed: surrounding spaces ignored), each once: a command that takes
/// profile names says when a name it was given picks a built-in over a library profile
/// ("the built-in profile `aws-standard` hides the library profile of that name …: FILE").
pub fn shadowed_among<S: AsRef<str>>(dir: Option<&Path>, specs: &[S]) -> Vec<String> {
    let Some(dir) = dir else {
        return Vec::new();
    };
    let mut warnings: Vec<String> = shadowed_library_profiles(dir)
        .into_iter()
        .filter(|(name, _)| specs.iter().any(|s| s.as_ref().trim() == name))
        .map(|(_, warning)| warning)
        .collect();
    warnings.dedup();
    warnings
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

    #[test]
    fn a_broken_library_profile_says_why_and_a_hidden_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("broken.json"), "{ \"format\": ").unwrap();
        let mut p = crate::ui::profile_library::fallback_default_profile();
        p.name = "mine".into();
        std::fs::write(
            dir.path().join("aws-standard.json"),
            serde_json::to_string(&p).unwrap(),
        )
        .unwrap();
        let e = find_profile("broken", Some(dir.path())).unwrap_err();
        assert!(
            e.starts_with("library profile `broken` does not load: ")
                && e.contains("broken.json:1:"),
            "{e}"
        );
        assert!(
            find_profile("nope", Some(dir.path()))
                .unwrap_err()
                .starts_with("unknown profile `nope`")
        );
        let long = find_profile(&"x".repeat(500), Some(dir.path())).unwrap_err();
        assert!(
            long.contains("(500 characters)") && long.len() < 400,
            "{long}"
        );
        assert_eq!(find_profile("mine", Some(dir.path())).unwrap().name, "mine");
        let hidden = shadowed_library_profiles(dir.path());
        assert_eq!(hidden.len(), 1, "{hidden:?}");
        assert_eq!(hidden[0].0, "aws-standard");
        assert!(
            hidden[0].1.contains("hides the library profile"),
            "{hidden:?}"
        );
    }
}
