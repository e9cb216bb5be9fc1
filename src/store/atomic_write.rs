//! Atomic file writes: temp file in the same folder, fsync, rename over the target.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why an atomic write failed. The file that was at the path before is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The path has no file name or its folder cannot be determined.
    #[error("not a file path: {}", .0.display())]
    BadPath(PathBuf),
    /// Creating, writing, syncing or renaming the temporary file failed.
    #[error("{step} failed: {source}: {}", .path.display())]
    Io {
        /// The step that failed (`create folder`, `create temp file`, `write`, `sync`, `rename`).
        step: &'static str,
        /// Target path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder is written,
/// flushed to disk (`fsync`) and renamed over `path`, so readers see the old file or the
/// complete new one, never half a file. The folder is created when missing.
///
/// # Errors
/// [`WriteError`] when any step fails; the old file is then untouched and the temporary file
/// removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_atomic_with_hook(path, bytes, |_| Ok(()))
}

/// [`write_atomic`] with a hook run on the temporary file just before the rename (tests inject
/// failures there; a hook error counts as a failed `write`).
///
/// # Errors
/// As [`write_atomic`].
pub fn write_atomic_with_hook(
    path: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    if path.file_name().is_none() {
        return Err(WriteError::BadPath(path.to_owned()));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let io = |step: &'static str| {
        let path = path.to_owned();
        move |source: std::io::Error| WriteError::Io { step, path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io("create folder"))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".retryscope-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(io("create temp file"))?;
    tmp.write_all(bytes).map_err(io("write"))?;
    tmp.flush().map_err(io("write"))?;
    tmp.as_file().sync_all().map_err(io("sync"))?;
    before_rename(tmp.path()).map_err(io("write"))?;
    // On error `persist` hands the temp file back; dropping it deletes it.
    tmp.persist(path).map_err(|e| io("rename")(e.error))?;
    // Make the rename itself durable where the platform allows syncing a directory.
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
