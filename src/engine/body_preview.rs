//! Reads a response body in chunks, keeping only the first [`BODY_PREVIEW_CAP`] bytes and
//! counting the rest, so memory stays bounded for any body size.

use super::classify::{Phase, classify};
use crate::model::{BodyPreview, NetError};

/// Bytes of a response body kept for display (1 MiB); the full size is still counted.
pub const BODY_PREVIEW_CAP: usize = 1024 * 1024;

/// Most bytes of a response body a run keeps when asked for whole bodies
/// ([`PreparedRun::keep_whole_bodies`](super::PreparedRun::keep_whole_bodies), used by
/// `retryscope run -o FILE`): 100 MiB, the same limit as a request body file.
pub const WHOLE_BODY_LIMIT: usize = 100 * 1024 * 1024;

/// Streams `response`'s body to the end, keeping its first `cap` bytes.
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
) -> Result<BodyPreview, NetError> {
    let mut preview = BodyPreview::default();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                preview.total_bytes += chunk.len() as u64;
                let room = cap.saturating_sub(preview.bytes.len());
                let keep = room.min(chunk.len());
                preview.bytes.extend_from_slice(&chunk[..keep]);
                if keep < chunk.len() {
                    preview.truncated = true;
                }
            }
            Ok(None) => return Ok(preview),
            Err(e) => {
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
