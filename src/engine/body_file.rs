//! Request bodies read from a file: read once before attempt 1, with a size limit.
//!
//! The whole body is kept in memory so that every attempt sends the same bytes, so the file must
//! be a regular file of at most [`MAX_BODY_FILE_BYTES`]; devices and pipes (`/dev/zero`, a FIFO)
//! are refused instead of being read without end.

use super::spec_error::SpecError;
use std::io::Read;
use std::path::Path;

pub use crate::model::request_limits::MAX_BODY_FILE_BYTES;

/// Checks that `path` is a regular file within [`MAX_BODY_FILE_BYTES`]; returns its size in bytes.
///
/// # Errors
/// [`SpecError::BodyFile`] naming the path: unreadable, a directory, not a regular file, or too large.
pub fn check_body_file(path: &str) -> Result<u64, SpecError> {
    let fail = |reason: String| SpecError::BodyFile {
        path: path.to_owned(),
        reason,
    };
    let meta =
        std::fs::metadata(Path::new(path)).map_err(|e| fail(e.to_string().to_lowercase()))?;
    if meta.is_dir() {
        return Err(fail("it is a directory".into()));
    }
    if !meta.is_file() {
        return Err(fail(
            "it is not a regular file (devices and pipes have no end to send)".into(),
        ));
    }
    if meta.len() > MAX_BODY_FILE_BYTES {
        return Err(fail(format!(
            "it is {} bytes, more than the {} MiB limit for a request body",
            meta.len(),
            MAX_BODY_FILE_BYTES / (1024 * 1024)
        )));
    }
    Ok(meta.len())
}

/// Reads the body file after [`check_body_file`], never more than the limit (the file may grow
/// between the check and the read).
///
/// # Errors
/// [`SpecError::BodyFile`] as [`check_body_file`], or when reading fails or passes the limit.
pub(crate) fn read_body_file(path: &str) -> Result<Vec<u8>, SpecError> {
    check_body_file(path)?;
    let fail = |reason: String| SpecError::BodyFile {
        path: path.to_owned(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string().to_lowercase()))?;
    let mut bytes = Vec::new();
    file.take(MAX_BODY_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string().to_lowercase()))?;
    if bytes.len() as u64 > MAX_BODY_FILE_BYTES {
        return Err(fail(format!(
            "it grew past the {} MiB limit for a request body while being read",
            MAX_BODY_FILE_BYTES / (1024 * 1024)
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_directories_are_refused() {
        let err = check_body_file("/dev/zero").expect_err("a device");
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let dir = std::env::temp_dir();
        let err = check_body_file(&dir.display().to_string()).expect_err("a directory");
        assert!(err.to_string().contains("directory"), "{err}");
    }

    #[test]
    fn a_regular_file_is_read_whole() {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        std::io::Write::write_all(&mut file, b"same bytes").expect("write");
        let path = file.path().display().to_string();
        assert_eq!(check_body_file(&path).expect("regular"), 10);
        assert_eq!(read_body_file(&path).expect("read"), b"same bytes");
    }
}
