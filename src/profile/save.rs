//! Writing profiles: pretty JSON, atomically (temp file in the same folder, fsync, rename).

use crate::model::RetryProfile;
use std::path::{Path, PathBuf};

/// Why a save failed. The file that was at the path before is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The path has no file name or its folder cannot be determined.
    #[error("cannot save to {}: not a file path", .0.display())]
    BadPath(PathBuf),
    /// Creating, writing, syncing or renaming the temporary file failed.
    #[error("cannot save profile ({step}): {source}: {}", .path.display())]
    Io {
        /// The step that failed (`create temp file`, `write`, `sync`, `rename`).
        step: &'static str,
        /// Target path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// The profile as pretty-printed JSON with a trailing newline (the on-disk form).
pub fn to_json_pretty(profile: &RetryProfile) -> String {
    // Serializing plain data with string keys cannot fail; fall back to compact just in case.
    let mut text = serde_json::to_string_pretty(profile)
        .or_else(|_| serde_json::to_string(profile))
        .unwrap_or_default();
    text.push('\n');
    text
}

/// Saves `profile` to `path` atomically: the JSON is written to a temporary file in the same
/// folder, flushed to disk (`fsync`) and renamed over `path`, so readers see either the old
/// file or the complete new one, never a half-written file.
///
/// # Errors
/// [`SaveError`] when any step fails; the old file at `path` is then untouched and the
/// temporary file is removed.
pub fn save_atomic(path: &Path, profile: &RetryProfile) -> Result<(), SaveError> {
    write_atomic(path, to_json_pretty(profile).as_bytes(), |_| Ok(()))
}

/// [`save_atomic`] over raw bytes, with a hook run just before the rename (tests inject
/// failures there). The writing itself is [`crate::store::write_atomic_with_hook`].
pub(crate) fn write_atomic(
    path: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), SaveError> {
    crate::store::write_atomic_with_hook(path, bytes, crate::store::Access::Shared, before_rename)
        .map_err(|e| match e {
            crate::store::WriteError::BadPath(p)
            | crate::store::WriteError::NoFolder(p)
            | crate::store::WriteError::IsFolder(p) => SaveError::BadPath(p),
            crate::store::WriteError::Io { step, path, source } => {
                SaveError::Io { step, path, source }
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_before_rename_keeps_old_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("p.json");
        std::fs::write(&target, "old").expect("seed old file");
        let err = write_atomic(&target, b"new", |_| {
            Err(std::io::Error::other("injected failure"))
        })
        .expect_err("injected failure");
        assert!(err.to_string().contains("injected failure"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "old");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "temp file left behind: {names:?}");
    }

    #[test]
    fn replaces_existing_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("p.json");
        std::fs::write(&target, "old").expect("seed old file");
        write_atomic(&target, b"new", |_| Ok(())).expect("saves");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
    }
}
