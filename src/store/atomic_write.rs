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
    let mut file = AtomicFile::create_export(path)?;
    file.write(bytes)?;
    file.commit()
}

/// `path` as a file the user named in a save dialog: with `extension` added when it has none
/// (`report` → `report.html`), else as it is.
pub fn with_default_extension(path: PathBuf, extension: &str) -> PathBuf {
    if path.extension().is_some() {
        path
    } else {
        path.with_extension(extension)
    }
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
    let mut file = AtomicFile::create(path, access)?;
    file.write(bytes)?;
    file.commit_with_hook(before_rename)
}

/// A file written in pieces and put in place whole at the end: the bytes go to a temporary
/// file, and [`AtomicFile::commit`] renames it over the target (readers see the old file or
/// the complete new one). A symlink is followed; a target that is not a regular file (a
/// device, a FIFO) gets the bytes copied into it at commit instead. Dropped without a commit,
/// the temporary file is removed and the target left as it was.
#[derive(Debug)]
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    /// The path as the user gave it, for messages.
    shown: PathBuf,
    /// The symlink-resolved target.
    target: PathBuf,
    /// The target is not a regular file: copy into it rather than rename over it.
    through: bool,
}

impl AtomicFile {
    /// Starts a file at `path` with `access`, creating its folder when missing (the app's
    /// own data).
    ///
    /// # Errors
    /// [`WriteError::BadPath`] without a file name, [`WriteError::IsFolder`] for a folder,
    /// [`WriteError::Io`] when the folder or the temporary file cannot be created.
    pub fn create(path: &Path, access: Access) -> Result<Self, WriteError> {
        if path.file_name().is_none() {
            return Err(WriteError::BadPath(path.to_owned()));
        }
        let target = follow_symlinks(path).map_err(io_error(path, "follow symlink"))?;
        let existing = std::fs::metadata(&target).ok();
        if existing.as_ref().is_some_and(std::fs::Metadata::is_dir) {
            return Err(WriteError::IsFolder(target));
        }
        let through = existing.as_ref().is_some_and(|m| !m.is_file());
        let mut builder = tempfile::Builder::new();
        builder.prefix(".retryscope-").suffix(".tmp");
        let tmp = if through {
            builder.tempfile()
        } else {
            let dir = folder_of(&target);
            std::fs::create_dir_all(&dir).map_err(io_error(path, "create folder"))?;
            let replaced = existing.map(|m| m.permissions());
            if access == Access::Shared
                && let Some(mode) = replaced.or_else(new_shared_permissions)
            {
                // Created with the replaced file's mode, else 0666: the umask applies either way.
                builder.permissions(mode);
            }
            builder.tempfile_in(&dir)
        }
        .map_err(io_error(path, "create temp file"))?;
        Ok(Self {
            tmp,
            shown: path.to_owned(),
            target,
            through,
        })
    }

    /// [`Self::create`] for a file the user asked for ([`write_export`]'s rules).
    ///
    /// # Errors
    /// [`WriteError::NoFolder`] when the folder does not exist; else as [`Self::create`].
    pub fn create_export(path: &Path) -> Result<Self, WriteError> {
        let dir = folder_of(path);
        if !dir.is_dir() {
            return Err(WriteError::NoFolder(dir));
        }
        Self::create(path, Access::Shared)
    }

    /// Appends `bytes`.
    ///
    /// # Errors
    /// [`WriteError::Io`] (`write`) naming the target.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.tmp
            .write_all(bytes)
            .map_err(io_error(&self.shown, "write"))
    }

    /// Puts the file in place: flushed to disk and renamed over the target, or copied into a
    /// target that is not a regular file.
    ///
    /// # Errors
    /// [`WriteError::Io`] naming the step; the target is then as it was (a device may have
    /// received part of the bytes).
    pub fn commit(self) -> Result<(), WriteError> {
        self.commit_with_hook(|_| Ok(()))
    }

    /// [`Self::commit`] with a hook run on the temporary file just before the rename.
    ///
    /// # Errors
    /// As [`Self::commit`]; a hook error counts as a failed `write`.
    pub fn commit_with_hook(
        self,
        before_rename: impl FnOnce(&Path) -> std::io::Result<()>,
    ) -> Result<(), WriteError> {
        let shown = self.shown;
        let mut tmp = self.tmp;
        tmp.flush().map_err(io_error(&shown, "write"))?;
        if self.through {
            return copy_through(tmp.as_file_mut(), &self.target)
                .map_err(io_error(&shown, "write"));
        }
        tmp.as_file().sync_all().map_err(io_error(&shown, "sync"))?;
        before_rename(tmp.path()).map_err(io_error(&shown, "write"))?;
        // On error `persist` hands the temp file back; dropping it deletes it.
        tmp.persist(&self.target)
            .map_err(|e| io_error(&shown, "rename")(e.error))?;
        // Make the rename itself durable where the platform allows syncing a directory.
        if let Ok(d) = std::fs::File::open(folder_of(&self.target)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// A maker of the [`WriteError::Io`] of `step` on `path`.
fn io_error(path: &Path, step: &'static str) -> impl FnOnce(std::io::Error) -> WriteError {
    let path = path.to_owned();
    move |source| WriteError::Io { step, path, source }
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

/// Copies everything in `from` into an existing non-regular file (a device, a FIFO) in place,
/// as a shell's `>` does; nothing to sync or rename.
///
/// # Errors
/// The OS error of opening or writing (`/dev/full` gives "No space left on device").
fn copy_through(from: &mut std::fs::File, path: &Path) -> std::io::Result<()> {
    use std::io::Seek;
    from.rewind()?;
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    std::io::copy(from, &mut file)?;
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
