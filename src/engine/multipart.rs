//! `multipart/form-data` bodies (RFC 7578), encoded once before attempt 1 so every attempt sends
//! the same bytes with the same boundary (reqwest's streaming `Form` can be sent only once).

use super::body_file::{MAX_BODY_FILE_BYTES, read_body_file};
use super::spec_error::SpecError;
use crate::model::{MultipartPart, PartSource};
use reqwest::header::HeaderValue;

/// The encoded body and its `Content-Type` (`multipart/form-data; boundary=…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EncodedMultipart {
    /// The body bytes.
    pub(crate) bytes: Vec<u8>,
    /// The Content-Type header value, boundary included.
    pub(crate) content_type: String,
}

/// Checks what can be checked without reading files: each file part's content type is a valid
/// header value.
///
/// # Errors
/// [`SpecError::ContentType`] for a part content type with control characters.
pub(crate) fn check_parts(parts: &[MultipartPart]) -> Result<(), SpecError> {
    for part in parts {
        if let PartSource::File {
            content_type: Some(ct),
            ..
        } = &part.source
            && HeaderValue::from_str(ct).is_err()
        {
            return Err(SpecError::ContentType(ct.clone()));
        }
    }
    Ok(())
}

/// Encodes `parts` with `boundary`, reading file parts (blocking: call it off the runtime's
/// threads). Names and file names are escaped as browsers do (WHATWG: `"` → `%22`, CR → `%0D`,
/// LF → `%0A`). The whole body is limited to [`MAX_BODY_FILE_BYTES`].
///
/// # Errors
/// [`SpecError::PartFile`] naming the part and the path when a file cannot be read or the body
/// passes the limit; [`SpecError::ContentType`] as [`check_parts`].
pub(crate) fn encode(
    parts: &[MultipartPart],
    boundary: &str,
) -> Result<EncodedMultipart, SpecError> {
    check_parts(parts)?;
    let mut bytes = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        bytes.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        let name = escape(&part.name);
        match &part.source {
            PartSource::Text { value } => {
                bytes.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
                );
                bytes.extend_from_slice(value.as_bytes());
            }
            PartSource::File { path, content_type } => {
                let data = read_body_file(path).map_err(|e| SpecError::PartFile {
                    index,
                    path: path.clone(),
                    reason: match e {
                        SpecError::BodyFile { reason, .. } => reason,
                        other => other.to_string(),
                    },
                })?;
                let filename = std::path::Path::new(path)
                    .file_name()
                    .map_or_else(|| path.clone(), |f| f.to_string_lossy().into_owned());
                let content_type = content_type
                    .as_deref()
                    .unwrap_or("application/octet-stream");
                bytes.extend_from_slice(
                    format!(
                        "Content-Disposition: form-data; name=\"{name}\"; filename=\"{}\"\r\n\
                         Content-Type: {content_type}\r\n\r\n",
                        escape(&filename)
                    )
                    .as_bytes(),
                );
                bytes.extend_from_slice(&data);
                if bytes.len() as u64 > MAX_BODY_FILE_BYTES {
                    return Err(SpecError::PartFile {
                        index,
                        path: path.clone(),
                        reason: format!(
                            "the multipart body passes the {} MiB limit for a request body",
                            MAX_BODY_FILE_BYTES / (1024 * 1024)
                        ),
                    });
                }
            }
        }
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok(EncodedMultipart {
        bytes,
        content_type: format!("multipart/form-data; boundary={boundary}"),
    })
}

/// A fresh boundary: 128 random bits in hex, so it cannot plausibly occur in the content.
pub(crate) fn new_boundary() -> String {
    format!("retryscope-{}", uuid::Uuid::new_v4().simple())
}

/// A name or file name inside a quoted `Content-Disposition` parameter.
fn escape(raw: &str) -> String {
    raw.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(name: &str, value: &str) -> MultipartPart {
        MultipartPart {
            name: name.into(),
            source: PartSource::Text {
                value: value.into(),
            },
        }
    }

    #[test]
    fn text_and_file_parts_are_encoded_in_order() {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        std::io::Write::write_all(&mut file, b"file bytes").expect("write");
        let path = file.path().display().to_string();
        let name = file
            .path()
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let parts = [
            text("a", "1"),
            MultipartPart {
                name: "up\"load".into(),
                source: PartSource::File {
                    path,
                    content_type: Some("text/plain".into()),
                },
            },
        ];
        let encoded = encode(&parts, "XyZ").expect("encodes");
        assert_eq!(encoded.content_type, "multipart/form-data; boundary=XyZ");
        assert_eq!(
            String::from_utf8(encoded.bytes).expect("utf-8"),
            format!(
                "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n\
                 --XyZ\r\nContent-Disposition: form-data; name=\"up%22load\"; filename=\"{name}\"\r\n\
                 Content-Type: text/plain\r\n\r\nfile bytes\r\n--XyZ--\r\n"
            )
        );
    }

    #[test]
    fn a_missing_file_names_the_part_and_path() {
        let parts = [
            text("a", "1"),
            MultipartPart {
                name: "f".into(),
                source: PartSource::File {
                    path: "/definitely/not/here.bin".into(),
                    content_type: None,
                },
            },
        ];
        let err = encode(&parts, "b").expect_err("missing file");
        let text = err.to_string();
        assert!(
            text.contains("body.parts[1]") && text.ends_with("/definitely/not/here.bin"),
            "{text}"
        );
    }

    #[test]
    fn boundaries_differ_and_bad_part_content_types_are_refused() {
        assert_ne!(new_boundary(), new_boundary());
        let parts = [MultipartPart {
            name: "f".into(),
            source: PartSource::File {
                path: "x".into(),
                content_type: Some("text/plain\r\nX-Evil: 1".into()),
            },
        }];
        assert!(matches!(
            check_parts(&parts),
            Err(SpecError::ContentType(_))
        ));
    }
}
