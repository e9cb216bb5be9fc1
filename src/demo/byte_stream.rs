//! A response body of `n` bytes produced chunk by chunk, so `/bytes?n=100000000` needs no
//! 100 MB buffer on the server.

use axum::body::{Bytes, HttpBody};
use hyper::body::{Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Size of each chunk, bytes.
const CHUNK_LEN: usize = 64 * 1024;

/// The bytes every chunk is cut from (ASCII `x`, so previews print).
static CHUNK: [u8; CHUNK_LEN] = [b'x'; CHUNK_LEN];

/// `remaining` bytes of `x`, with an exact size hint (so a `Content-Length` is sent).
#[derive(Debug)]
pub(crate) struct ByteStream {
    remaining: u64,
}

impl ByteStream {
    /// A body of `len` bytes.
    pub(crate) fn new(len: u64) -> Self {
        Self { remaining: len }
    }
}

impl HttpBody for ByteStream {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if this.remaining == 0 {
            return Poll::Ready(None);
        }
        let n = usize::try_from(this.remaining).map_or(CHUNK_LEN, |r| r.min(CHUNK_LEN));
        this.remaining -= n as u64;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&CHUNK[..n])))))
    }

    fn is_end_stream(&self) -> bool {
        self.remaining == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}
