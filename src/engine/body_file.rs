//! Request bodies read from a file: read once before attempt 1, with a size limit.
//!
//! The whole body is kept in memory so that every attempt sends the same bytes, so the file must
//! be a regular file of at most [`MAX_BODY_FILE_BYTES`]; devices and pipes (`/dev/zero`, a FIFO)
//! are refused instead of being read without end.

use super::spec_error::SpecError;
use crate::store::input_file::{BODY_FILE, InputFileError, check_input_file, read_input_file};
use std::path::Path;

pub use crate::model::request_limits::MAX_BODY_FILE_BYTES;

fn body_error(path: &str, e: &InputFileError) -> SpecError {
    SpecError::BodyFile {
        path: path.to_owned(),
        reason: e.to_string(),
    }
}

/// Checks that `path` is a regular file within [`MAX_BODY_FILE_BYTES`]; returns its size in bytes.
///
/// # Errors
/// [`SpecError::BodyFile`] naming the path: unreadable, a directory, not a regular file, or too large.
pub fn check_body_file(path: &str) -> Result<u64, SpecError> {
    check_input_file(Path::new(path), BODY_FILE).map_err(|e| body_error(path, &e))
}

/// Reads the body file, never more than the limit (the file may grow between the check and
/// the read).
///
/// # Errors
/// [`SpecError::BodyFile`] as [`check_body_file`], or when reading fails or passes the limit.
pub(crate) fn read_body_file(path: &str) -> Result<Vec<u8>, SpecError> {
    read_input_file(Path::new(path), BODY_FILE).map_err(|e| body_error(path, &e))
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
