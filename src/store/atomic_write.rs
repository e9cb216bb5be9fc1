//! Atomic file writes: temp file in the same folder, fsync, rename over the target.
//!
//! A path that is a symlink is followed (the link stays, its target gets the new bytes), and a
//! target that is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO) is written through
//! in place: renaming over it would replace the device with a plain file.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why an atomic write failed. The file that was at the path before is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The path has no file name or its folder cannot be determined.
    #[error("not a file path: {}", .0.display())]
    BadPath(PathBuf),
    /// An export's folder does not exist (it is not created: a typo would be hidden).
    #[error("the folder does not exist (create it first): {}", .0.display())]
    NoFolder(PathBuf),
    /// The path names a folder, not a file.
    #[error("is a folder, not a file: {}", .0.display())]
    IsFolder(PathBuf),
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

/// Who may read a file that a write creates (Unix modes; elsewhere the platform default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Owner only (`0600`): the app's own data, which may hold variables or requests.
    Private,
    /// What a new file gets from the user's umask (`0666` minus umask, usually `0644`), or the
    /// mode of the file it replaces: files the user asked for (exports, saved profiles).
    Shared,
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder is written,
/// flushed to disk (`fsync`) and renamed over `path`, so readers see the old file or the
/// complete new one, never half a file. The folder is created when missing; the file is
/// [`Access::Private`] (the app's own data).
///
/// # Errors
/// [`WriteError`] when any step fails; the old file is then untouched and the temporary file
/// removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_atomic_with_hook(path, bytes, Access::Private, |_| Ok(()))
}

/// A file the user asked for (`-o`, `--har`, *Export…*): written as [`write_atomic`] does,
/// readable as the user's other files ([`Access::Shared`]), and into an existing folder only
/// (a typo in a folder name is reported, not silently created).
///
/// # Errors
/// [`WriteError::NoFolder`] when the folder does not exist; else as [`write_atomic`].
pub fn write_export(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let dir = folder_of(path);
    if !dir.is_dir() {
        return Err(WriteError::NoFolder(dir));
    }
    write_atomic_with_hook(path, bytes, Access::Shared, |_| Ok(()))
}

/// [`write_atomic`] with the file's [`Access`] and a hook run on the temporary file just before
/// the rename (tests inject failures there; a hook error counts as a failed `write`).
///
/// # Errors
/// As [`write_atomic`].
pub fn write_atomic_with_hook(
    path: &Path,
    bytes: &[u8],
    access: Access,
    before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    if path.file_name().is_none() {
        return Err(WriteError::BadPath(path.to_owned()));
    }
    let io = |step: &'static str| {
        let path = path.to_owned();
        move |source: std::io::Error| WriteError::Io { step, path, source }
    };
    let resolved = follow_symlinks(path).map_err(io("follow symlink"))?;
    let path = resolved.as_path();
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_dir() {
            return Err(WriteError::IsFolder(path.to_owned()));
        }
        if !meta.is_file() {
            return write_through(path, bytes).map_err(io("write"));
        }
    }
    let dir = folder_of(path);
    std::fs::create_dir_all(&dir).map_err(io("create folder"))?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".retryscope-").suffix(".tmp");
    let replaced = std::fs::metadata(path).ok().map(|m| m.permissions());
    if access == Access::Shared
        && let Some(mode) = replaced.or_else(new_shared_permissions)
    {
        // Created with the replaced file's mode, else 0666: the umask applies either way.
        builder.permissions(mode);
    }
    let mut tmp = builder.tempfile_in(&dir).map_err(io("create temp file"))?;
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

/// `path` with every symlink at its end followed (a dangling link gives the path it points
/// to, so the write creates the link's target); other paths unchanged.
///
/// # Errors
/// The OS error of reading a link; `ELOOP`-like `InvalidInput` after 40 links.
fn follow_symlinks(path: &Path) -> std::io::Result<PathBuf> {
    let mut at = path.to_owned();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&at)?;
                at = folder_of(&at).join(target);
            }
            _ => return Ok(at),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "more than 40 symlinks in a row",
    ))
}

/// Writes `bytes` into an existing non-regular file (a device, a FIFO) in place, as a shell's
/// `>` does; nothing to sync or rename.
///
/// # Errors
/// The OS error of opening or writing (`/dev/full` gives "No space left on device").
fn write_through(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// Whether `output` names the same existing file as `input` (through any spelling: `..`,
/// symlinks, hard links' canonical paths), so a command can refuse to write its result over
/// what it reads.
pub fn same_file(input: &Path, output: &Path) -> bool {
    match (std::fs::canonicalize(input), std::fs::canonicalize(output)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The folder a file at `path` goes in (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// The mode a new shared file is created with (the umask then applies); `None` where the
/// platform's default is already what the user's other files get.
#[cfg_attr(
    unix,
    allow(clippy::unnecessary_wraps, reason = "`None` on the other platforms")
)]
fn new_shared_permissions() -> Option<std::fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o666))
    }
    #[cfg(not(unix))]
    {
        None
    }
}
