//! The one rule for every file the product reads whole (profiles, imported settings, batch
//! lists, request bodies, CA files, files picked in the window): a regular file, never a
//! directory, device or pipe (`/dev/zero`, a FIFO: no end to read), of at most its kind's
//! limit, which is enforced again while reading (a file may grow between the check and the
//! read). Every file that cannot be read is said in one layout, the file first:
//! [`cannot_read`].

use std::io::Read as _;
use std::path::Path;

/// A kind of input file: what it is (for messages) and the most bytes read of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputKind {
    /// What the file is, after "the limit for": `a profile`, `a request body`.
    pub what: &'static str,
    /// Most bytes read.
    pub max_bytes: u64,
}

const MIB: u64 = 1024 * 1024;

/// A profile file (16 MiB; real profiles are a few KiB).
pub const PROFILE_FILE: InputKind = InputKind {
    what: "a profile",
    max_bytes: 16 * MIB,
};

/// Another tool's retry settings read by `profile import` (16 MiB, as a profile).
pub const IMPORTED_SETTINGS: InputKind = InputKind {
    what: "retry settings to import",
    max_bytes: 16 * MIB,
};

/// A request body read from a file ([`crate::model::request_limits::MAX_BODY_FILE_BYTES`]).
pub const BODY_FILE: InputKind = InputKind {
    what: "a request body",
    max_bytes: crate::model::request_limits::MAX_BODY_FILE_BYTES,
};

/// A CA certificate file (1 MiB: a few certificates).
pub const CA_FILE: InputKind = InputKind {
    what: "a CA file",
    max_bytes: MIB,
};

/// A saved request or environment of the data folder (16 MiB; real ones are a few KiB).
pub const SAVED_FILE: InputKind = InputKind {
    what: "a saved request or environment",
    max_bytes: 16 * MIB,
};

/// A batch list (1 GiB).
pub const BATCH_LIST: InputKind = InputKind {
    what: "a batch list",
    max_bytes: 1024 * MIB,
};

/// A file picked in the window (256 MiB: a HAR of a long browser session).
pub const PICKED_FILE: InputKind = InputKind {
    what: "a file opened in the window",
    max_bytes: 256 * MIB,
};

/// Why a file cannot be read as input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputFileError {
    /// The OS refused (lowercase: `no such file or directory (os error 2)`).
    #[error("{0}")]
    Unreadable(String),
    /// A folder.
    #[error("it is a directory")]
    Directory,
    /// A device, pipe or socket.
    #[error("it is not a regular file (a device or a pipe has no end to read)")]
    NotRegular,
    /// Larger than the kind's limit.
    #[error("it is {len} bytes, more than the {} limit for {}", size(.kind.max_bytes), .kind.what)]
    TooLarge {
        /// Its size, bytes.
        len: u64,
        /// What it was read as.
        kind: InputKind,
    },
    /// Grew past the limit while being read.
    #[error("it grew past the {} limit for {} while being read", size(.kind.max_bytes), .kind.what)]
    Grew {
        /// What it was read as.
        kind: InputKind,
    },
}

/// `16 MiB`, `1 MiB`, `512 KiB`.
fn size(bytes: u64) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{} KiB", bytes / 1024)
    }
}

/// `FILE: cannot read WHAT: REASON`, the one sentence for a file (or folder) that cannot be
/// read, the file first as every message about a place in a file
/// ([`crate::model::file_message`]): `list.csv: cannot read the list: it is a directory`.
pub fn cannot_read(
    file: impl std::fmt::Display,
    what: impl std::fmt::Display,
    reason: impl std::fmt::Display,
) -> String {
    let message = format_args!("cannot read {what}: {reason}");
    crate::model::file_message(file, None::<u64>, None, message)
}

fn unreadable(e: &std::io::Error) -> InputFileError {
    let text = e.to_string();
    let mut chars = text.chars();
    let lower = chars.next().map_or_else(String::new, |c| {
        c.to_lowercase().collect::<String>() + chars.as_str()
    });
    InputFileError::Unreadable(lower)
}

/// Checks `path` against the rule without reading it; returns its size in bytes.
///
/// # Errors
/// [`InputFileError`]: unreadable, a directory, not a regular file, or over `kind`'s limit.
pub fn check_input_file(path: &Path, kind: InputKind) -> Result<u64, InputFileError> {
    let meta = std::fs::metadata(path).map_err(|e| unreadable(&e))?;
    if meta.is_dir() {
        return Err(InputFileError::Directory);
    }
    if !meta.is_file() {
        return Err(InputFileError::NotRegular);
    }
    if meta.len() > kind.max_bytes {
        return Err(InputFileError::TooLarge {
            len: meta.len(),
            kind,
        });
    }
    Ok(meta.len())
}

/// The whole of `path` after [`check_input_file`], never more than `kind`'s limit.
///
/// # Errors
/// As [`check_input_file`], a read error, or [`InputFileError::Grew`].
pub fn read_input_file(path: &Path, kind: InputKind) -> Result<Vec<u8>, InputFileError> {
    let len = check_input_file(path, kind)?;
    let file = std::fs::File::open(path).map_err(|e| unreadable(&e))?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(kind.max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(&e))?;
    if bytes.len() as u64 > kind.max_bytes {
        return Err(InputFileError::Grew { kind });
    }
    Ok(bytes)
}

/// [`read_input_file`] as UTF-8 text (a byte-order mark passed over).
///
/// # Errors
/// As [`read_input_file`]; text that is not UTF-8 is [`InputFileError::Unreadable`] saying so.
pub fn read_input_text(path: &Path, kind: InputKind) -> Result<String, InputFileError> {
    let bytes = read_input_file(path, kind)?;
    crate::model::utf8_text(&bytes)
        .map(str::to_owned)
        .map_err(|e| InputFileError::Unreadable(e.message("the file")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: InputKind = InputKind {
        what: "a test file",
        max_bytes: 4,
    };

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ok = dir.path().join("ok");
        std::fs::write(&ok, b"1234").expect("write");
        assert_eq!(read_input_file(&ok, TINY), Ok(b"1234".to_vec()));
        let big = dir.path().join("big");
        std::fs::write(&big, b"12345").expect("write");
        let err = read_input_file(&big, TINY).expect_err("too large");
        assert_eq!(
            err.to_string(),
            "it is 5 bytes, more than the 0 KiB limit for a test file"
        );
        assert_eq!(
            read_input_file(dir.path(), TINY),
            Err(InputFileError::Directory)
        );
        assert_eq!(
            check_input_file(Path::new("/dev/zero"), PROFILE_FILE),
            Err(InputFileError::NotRegular)
        );
        let missing = read_input_file(&dir.path().join("none"), TINY).expect_err("missing");
        assert!(missing.to_string().starts_with("no such file"), "{missing}");
        assert_eq!(
            InputFileError::TooLarge {
                len: 20_000_000,
                kind: PROFILE_FILE
            }
            .to_string(),
            "it is 20000000 bytes, more than the 16 MiB limit for a profile"
        );
        assert_eq!(
            cannot_read("l.csv", "the list", InputFileError::Directory),
            "l.csv: cannot read the list: it is a directory"
        );
    }
}
