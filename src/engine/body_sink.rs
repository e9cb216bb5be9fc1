//! Where a front end that saves the final body (`retryscope run -o`) receives every attempt's
//! whole response body as it arrives, while the attempt's event keeps only the preview.

/// Receives each attempt's response body, chunk by chunk, from the engine's task. Calls for one
/// attempt come in order: [`BodySink::begin`], any number of [`BodySink::chunk`], then
/// [`BodySink::end`]; a later attempt begins only after the earlier one ended. The engine never
/// waits for the sink beyond the call itself, and a sink that fails keeps its error to itself
/// (the attempt goes on: its outcome is the server's, not the disk's).
pub trait BodySink: Send + Sync + std::fmt::Debug {
    /// Attempt `attempt` (1-based) starts receiving its final response's body.
    fn begin(&self, attempt: u32);
    /// The next bytes of the body.
    fn chunk(&self, bytes: &[u8]);
    /// The body ended: `complete` when it arrived whole, `false` when it failed mid-way.
    fn end(&self, complete: bool);
}
