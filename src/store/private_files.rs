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

/// Makes `path` a private file before another library writes it with `File::create` (which
/// keeps an existing file's mode): a missing one is created `0600` holding `empty` (with its
/// folder, `0700`), an existing one loses group and other access.
///
/// # Errors
/// The OS error.
pub fn prepare_private_file(path: &Path, empty: &str) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        create_private_dir_all(dir)?;
    }
    match private_options().write(true).create_new(true).open(path) {
        Ok(mut file) => io::Write::write_all(&mut file, empty.as_bytes()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => make_private(path),
        Err(e) => Err(e),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::prepare_private_file;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &std::path::Path) -> u32 {
        std::fs::metadata(path)
            .expect("exists")
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn a_file_another_library_writes_is_made_private_first_and_keeps_its_text() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("new").join("app.ron");
        prepare_private_file(&path, "{}").expect("created");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().expect("folder")), 0o700);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "{}");
        // Written over as eframe does: the mode stays.
        std::fs::write(&path, "(window: 1)").expect("write");
        assert_eq!(mode(&path), 0o600);
        // One left readable by others loses that access and keeps its text.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        prepare_private_file(&path, "{}").expect("made private");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "(window: 1)");
    }
}
