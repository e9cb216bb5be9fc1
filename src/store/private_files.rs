//! Files only the user may read: the history database (it keeps response bodies) and the run
//! logs. On Unix folders this module creates are `0700` and files `0600`; elsewhere the
//! platform's defaults apply (a user's profile folder is already private on Windows).

use std::fs::File;
use std::io;
use std::path::Path;

/// Creates `dir` and any missing parents; each folder created here is `0700` on Unix. A
/// folder that already exists keeps its mode (the user's choice).
///
/// # Errors
/// The OS error of the folder that could not be created.
pub(crate) fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Options that create a file `0600` on Unix (the caller adds read, write, append, create).
pub(crate) fn private_options() -> std::fs::OpenOptions {
    #[allow(unused_mut, reason = "only Unix sets a mode")]
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Opens `path` for appending, creating it `0600` on Unix when it does not exist.
///
/// # Errors
/// The OS error.
pub(crate) fn open_private_append(path: &Path) -> io::Result<File> {
    private_options().create(true).append(true).open(path)
}

/// Takes group and other access away from the existing file `path` (Unix; files written by
/// versions that created them `0644`). A missing file is fine.
///
/// # Errors
/// The OS error of reading or changing the mode.
pub(crate) fn make_private(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match std::fs::metadata(path) {
            Ok(m) => m.permissions().mode(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o700))?;
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}
