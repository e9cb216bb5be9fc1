//! Reads a response body in chunks, keeping only the first [`BODY_PREVIEW_CAP`] bytes and
//! counting the rest, so memory stays bounded for any body size.

use super::classify::{Phase, classify};
use crate::model::{BodyPreview, NetError};

/// Bytes of a response body kept for display (1 MiB); the full size is still counted.
pub const BODY_PREVIEW_CAP: usize = 1024 * 1024;

/// Streams `response`'s body to the end, keeping its first `cap` bytes; every byte also goes to
/// `sink` when there is one (as attempt `attempt`'s body).
///
/// # Errors
/// A classified [`NetError`] (`body` or `timeout`) when the body fails mid-way; its message
/// says how many bytes had arrived and the status.
///
/// `read_timeout` is the client's read timeout, quoted when it ends the body.
pub(crate) async fn read_preview(
    response: &mut reqwest::Response,
    read_timeout: Option<std::time::Duration>,
    cap: usize,
    sink: Option<(&dyn super::BodySink, u32)>,
) -> Result<BodyPreview, NetError> {
    let mut preview = BodyPreview::default();
    if let Some((sink, attempt)) = sink {
        sink.begin(attempt);
    }
    let end = |complete: bool| {
        if let Some((sink, _)) = sink {
            sink.end(complete);
        }
    };
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if let Some((sink, _)) = sink {
                    sink.chunk(&chunk);
                }
                keep_chunk(&mut preview, &chunk, cap);
            }
            Ok(None) => {
                end(true);
                return Ok(preview);
            }
            Err(e) => {
                end(false);
                let mut error = classify(&e, Phase::Body, read_timeout);
                error.message = format!(
                    "{} (status {}, body failed after {} bytes)",
                    error.message,
                    response.status().as_u16(),
                    preview.total_bytes
                );
                return Err(error);
            }
        }
    }
}

/// Adds `chunk` to `preview`, keeping at most `cap` bytes. When the cap cuts through a UTF-8
/// character of a text body, the cut moves back to that character's start (up to 3 bytes fewer),
/// so the preview still reads as text rather than as a hex dump.
fn keep_chunk(preview: &mut BodyPreview, chunk: &[u8], cap: usize) {
    preview.total_bytes += chunk.len() as u64;
    if preview.truncated {
        return;
    }
    let room = cap.saturating_sub(preview.bytes.len());
    let keep = room.min(chunk.len());
    preview.bytes.extend_from_slice(&chunk[..keep]);
    if keep < chunk.len() {
        preview.truncated = true;
        // Only the end can be an incomplete character when everything before it is text.
        if let Err(e) = std::str::from_utf8(&preview.bytes)
            && e.error_len().is_none()
        {
            preview.bytes.truncate(e.valid_up_to());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preview_of(chunks: &[&[u8]], cap: usize) -> BodyPreview {
        let mut preview = BodyPreview::default();
        for chunk in chunks {
            keep_chunk(&mut preview, chunk, cap);
        }
        preview
    }

    #[test]
    fn a_cap_inside_a_multibyte_character_cuts_before_it() {
        // "aé€😀" is 1 + 2 + 3 + 4 bytes; a cap at every byte inside a character keeps text.
        let body = "aé€😀 and more".as_bytes();
        for cap in 1..=10 {
            let p = preview_of(&[body], cap);
            let text = std::str::from_utf8(&p.bytes).expect("still text, not a hex dump");
            assert!(body.starts_with(text.as_bytes()));
            assert!(
                cap - p.bytes.len() <= 3,
                "cap {cap}: kept {}",
                p.bytes.len()
            );
            assert!(p.truncated);
            assert_eq!(p.total_bytes, body.len() as u64);
        }
        assert_eq!(
            preview_of(&[body], 2).bytes,
            b"a",
            "cut before the 2-byte é"
        );
        assert_eq!(
            preview_of(&[body], 5).bytes,
            "aé".as_bytes(),
            "cut before €"
        );
        // Split across chunks the same way, and later chunks are only counted.
        let (a, b) = body.split_at(4);
        let p = preview_of(&[a, b, b"tail"], 8);
        assert_eq!(p.bytes, "aé€".as_bytes());
        assert_eq!(p.total_bytes, body.len() as u64 + 4);
    }

    #[test]
    fn binary_bodies_and_uncut_bodies_are_kept_as_they_are() {
        let binary = [0xFF_u8, 0xFE, 0x00, 0xC3, 0xA9, 0xE2];
        assert_eq!(
            preview_of(&[&binary], 5).bytes,
            binary[..5],
            "not text: no cut"
        );
        let p = preview_of(&["é".as_bytes()], 2);
        assert_eq!((p.bytes.as_slice(), p.truncated), ("é".as_bytes(), false));
    }
}
