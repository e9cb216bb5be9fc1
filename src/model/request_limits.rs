//! The limits on what one request may hold, in one place, checked before anything is built,
//! queued or sent: every front end (command line, window, batch list, curl import) refuses a
//! request past them in our words instead of reaching a library's own limit (the `http`
//! crate's header map panics past 32,768 entries; `HeaderName` fails past 64 KiB).
//!
//! Each limit sits far above what servers accept (nginx, Node and Go refuse a request head of
//! a few KiB to 1 MiB), so a request past one could never have been answered anyway.

use super::request::{Body, RequestSpec};

/// Most enabled header rows one request may send.
pub const MAX_HEADERS: usize = 1_000;

/// Longest header row, name plus value, in bytes (64 KiB).
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// Most parts one `multipart/form-data` body may hold.
pub const MAX_MULTIPART_PARTS: usize = 1_000;

/// Largest request body read from a file (or a multipart body as a whole), bytes (100 MiB): the
/// body is kept in memory so that every attempt sends the same bytes.
pub const MAX_BODY_FILE_BYTES: u64 = 100 * 1024 * 1024;

/// A request past one of the limits above.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitProblem {
    /// More than [`MAX_HEADERS`] enabled header rows.
    #[error("{count} headers is too many: a request sends at most {MAX_HEADERS}")]
    TooManyHeaders {
        /// Enabled header rows.
        count: usize,
    },
    /// A header row longer than [`MAX_HEADER_BYTES`].
    #[error(
        "header {name} (row {}) is {bytes} bytes long: a header (name and value) holds at most {MAX_HEADER_BYTES}",
        index + 1
    )]
    HeaderTooLong {
        /// The header's name, quoted as messages quote input.
        name: String,
        /// 0-based row in the header table.
        index: usize,
        /// Name plus value, bytes.
        bytes: usize,
    },
    /// A multipart body of more than [`MAX_MULTIPART_PARTS`] parts.
    #[error("{count} parts is too many: a multipart body holds at most {MAX_MULTIPART_PARTS}")]
    TooManyParts {
        /// Parts in the body.
        count: usize,
    },
}

/// The first limit `spec` is past, if any. Cheap (no allocation, no file read): a front end may
/// call it on every keystroke.
///
/// # Errors
/// The [`LimitProblem`] found first, headers before the body.
pub fn check_limits(spec: &RequestSpec) -> Result<(), LimitProblem> {
    let enabled = || spec.headers.iter().enumerate().filter(|(_, h)| h.enabled);
    let count = enabled().count();
    if count > MAX_HEADERS {
        return Err(LimitProblem::TooManyHeaders { count });
    }
    if let Some((index, h)) =
        enabled().find(|(_, h)| h.name.len() + h.value.len() > MAX_HEADER_BYTES)
    {
        return Err(LimitProblem::HeaderTooLong {
            name: super::quote::quote_input(h.name.trim()),
            index,
            bytes: h.name.len() + h.value.len(),
        });
    }
    if let Body::Multipart { parts } = &spec.body
        && parts.len() > MAX_MULTIPART_PARTS
    {
        return Err(LimitProblem::TooManyParts { count: parts.len() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KeyValue, MultipartPart};

    fn with_headers(n: usize) -> RequestSpec {
        let mut spec = RequestSpec::get("http://127.0.0.1:1/");
        spec.headers = (0..n)
            .map(|i| KeyValue::new(format!("X-H{i}"), "v"))
            .collect();
        spec
    }

    #[test]
    fn header_count_is_bounded_and_disabled_rows_do_not_count() {
        assert_eq!(check_limits(&with_headers(MAX_HEADERS)), Ok(()));
        let mut spec = with_headers(MAX_HEADERS + 1);
        let err = check_limits(&spec).unwrap_err();
        assert_eq!(err, LimitProblem::TooManyHeaders { count: 1_001 });
        assert_eq!(
            err.to_string(),
            "1001 headers is too many: a request sends at most 1000"
        );
        spec.headers[0].enabled = false;
        assert_eq!(check_limits(&spec), Ok(()));
    }

    #[test]
    fn a_long_header_is_named_by_its_row() {
        let mut spec = with_headers(2);
        spec.headers[1].value = "v".repeat(MAX_HEADER_BYTES);
        assert_eq!(
            check_limits(&spec),
            Err(LimitProblem::HeaderTooLong {
                name: "X-H1".into(),
                index: 1,
                bytes: MAX_HEADER_BYTES + 4
            })
        );
        let shown = check_limits(&spec).expect_err("too long").to_string();
        assert!(
            shown.starts_with("header X-H1 (row 2) is 65540 bytes long"),
            "{shown}"
        );
        spec.headers[1].value.truncate(MAX_HEADER_BYTES - 4);
        assert_eq!(check_limits(&spec), Ok(()));
    }

    #[test]
    fn multipart_parts_are_bounded() {
        let mut spec = with_headers(0);
        let part = MultipartPart::from_form_value("f", "v");
        spec.body = Body::Multipart {
            parts: vec![part; MAX_MULTIPART_PARTS + 1],
        };
        assert_eq!(
            check_limits(&spec),
            Err(LimitProblem::TooManyParts { count: 1_001 })
        );
    }
}
