//! `run -o FILE` / `-o -`: every attempt's response body is spooled to a temporary file as it
//! arrives (memory holds only the preview, whatever the body's size), and the final attempt's
//! is put in place when the run ends: renamed over FILE (atomically, as every export), or
//! copied to stdout. Also what the progress line reads while a body downloads.

use super::download_progress::BodyMeter;
use super::final_response::FinalResponse;
use super::run::SaveBody;
use crate::engine::BodySink;
use crate::store::AtomicFile;
use std::io::{Read, Seek, Write};
use std::sync::{Arc, Mutex};

/// The [`BodySink`] of `run -o`.
#[derive(Debug)]
pub struct BodySpool {
    to: SaveBody,
    /// The body of the attempt received last (or being received).
    current: Mutex<Option<Spooled>>,
    /// Fed every body too, for the progress line.
    meter: Arc<BodyMeter>,
}

/// One attempt's body on its way to the target.
#[derive(Debug)]
struct Spooled {
    attempt: u32,
    /// The temporary file, or why it could not be written (said when the run ends).
    file: Result<Spool, String>,
    bytes: u64,
    complete: bool,
}

/// Where the bytes wait: a temporary file beside the target, or an anonymous temporary file
/// for stdout.
#[derive(Debug)]
enum Spool {
    File(AtomicFile),
    Stdout(std::fs::File),
}

impl Spool {
    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Self::File(file) => file
                .write(bytes)
                .map_err(|e| format!("cannot write the body: {e}")),
            Self::Stdout(file) => file
                .write_all(bytes)
                .map_err(|e| format!("cannot hold the body for stdout (temporary file): {e}")),
        }
    }
}

impl BodySpool {
    /// A spool for `to` that feeds `meter` as well.
    pub fn new(to: SaveBody, meter: Arc<BodyMeter>) -> Self {
        Self {
            to,
            current: Mutex::new(None),
            meter,
        }
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Option<Spooled>> {
        self.current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn open(&self) -> Result<Spool, String> {
        match &self.to {
            SaveBody::File(path) => AtomicFile::create_export(path)
                .map(Spool::File)
                .map_err(|e| format!("cannot write the body: {e}")),
            SaveBody::Stdout => tempfile::tempfile()
                .map(Spool::Stdout)
                .map_err(|e| format!("cannot hold the body for stdout (temporary file): {e}")),
        }
    }

    /// Puts the final attempt's body in place and returns its size in bytes.
    ///
    /// # Errors
    /// A lowercase message ending with the target (a path, or `stdout`): no response to save
    /// (the final attempt ended in a network error), a body that did not arrive whole, or a
    /// write that failed (the file at the path, if any, is then untouched). On stdout, how many
    /// bytes went out before it was closed or failed.
    pub fn save(&self, last: &FinalResponse) -> Result<u64, String> {
        let shown = self.to.shown();
        last.check_answered(&shown)?;
        let spooled = self.current().take();
        let Some(spooled) = spooled.filter(|s| s.attempt == last.attempt()) else {
            return Err(format!(
                "attempt {}'s body was not received; not written: {shown}",
                last.attempt()
            ));
        };
        if !spooled.complete {
            return Err(format!(
                "the final body did not arrive whole ({} bytes); not written: {shown}",
                spooled.bytes
            ));
        }
        match spooled.file? {
            Spool::File(file) => file
                .commit()
                .map_err(|e| format!("cannot write the body: {e}"))?,
            Spool::Stdout(mut file) => copy_to_stdout(&mut file, spooled.bytes)?,
        }
        Ok(spooled.bytes)
    }
}

impl BodySink for BodySpool {
    fn begin(&self, attempt: u32) {
        self.meter.begin(attempt);
        let file = self.open();
        // The earlier attempt's temporary file is removed here.
        *self.current() = Some(Spooled {
            attempt,
            file,
            bytes: 0,
            complete: false,
        });
    }

    fn chunk(&self, bytes: &[u8]) {
        self.meter.chunk(bytes);
        let mut current = self.current();
        let Some(current) = current.as_mut() else {
            return;
        };
        current.bytes += bytes.len() as u64;
        if let Ok(spool) = &mut current.file
            && let Err(message) = spool.write(bytes)
        {
            current.file = Err(message);
        }
    }

    fn end(&self, complete: bool) {
        self.meter.end(complete);
        if let Some(current) = self.current().as_mut() {
            current.complete = complete;
        }
    }
}

/// Copies the spooled body (`total` bytes) to stdout byte for byte.
///
/// # Errors
/// When stdout was closed or could not be written before the whole body went out, how many
/// bytes did (`the body was not delivered whole: stdout was closed after 65536 of 5000000
/// bytes`; a write error itself is said once by [`super::out`]).
fn copy_to_stdout(file: &mut std::fs::File, total: u64) -> Result<(), String> {
    let held = |e: std::io::Error| format!("cannot read the body back (temporary file): {e}");
    file.rewind().map_err(held)?;
    let mut buffer = vec![0; 64 * 1024];
    let mut written = 0u64;
    loop {
        let read = file.read(&mut buffer).map_err(held)?;
        if read == 0 {
            return Ok(());
        }
        let out = super::out::write_stdout_counted(&buffer[..read]);
        written += out as u64;
        if out < read {
            let what = match super::out::stdout_lost() {
                Some(super::out::StdoutLost::Closed) => "was closed",
                _ => "could not be written",
            };
            return Err(format!(
                "the body was not delivered whole: stdout {what} after {written} of {total} bytes"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AttemptOutcome, BodyPreview, ResponseSummary};

    fn answered(attempt: u32) -> FinalResponse {
        let mut last = FinalResponse::default();
        last.keep(
            attempt,
            AttemptOutcome::Response(ResponseSummary {
                status: 200,
                reason: "OK".into(),
                version: "HTTP/1.1".into(),
                headers: Vec::new(),
                body: BodyPreview::default(),
            }),
        );
        last
    }

    #[test]
    fn only_the_final_attempts_whole_body_is_put_in_place() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("body.bin");
        std::fs::write(&path, b"old").expect("seed");
        let meter = Arc::new(BodyMeter::default());
        let spool = BodySpool::new(SaveBody::File(path.clone()), Arc::clone(&meter));
        spool.begin(1);
        spool.chunk(b"first attempt");
        spool.end(true);
        spool.begin(2);
        spool.chunk(b"second ");
        assert_eq!(meter.progress().map(|p| p.1), Some(7), "the meter is fed");
        spool.chunk(b"attempt");
        spool.end(true);
        assert_eq!(
            std::fs::read(&path).expect("read"),
            b"old",
            "not before the end"
        );
        assert_eq!(spool.save(&answered(2)), Ok(14));
        assert_eq!(std::fs::read(&path).expect("read"), b"second attempt");
        let left: Vec<_> = std::fs::read_dir(dir.path()).expect("ls").collect();
        assert_eq!(left.len(), 1, "no temporary file is left");
    }

    #[test]
    fn a_body_cut_short_or_of_another_attempt_is_not_saved() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("body.bin");
        let spool = BodySpool::new(SaveBody::File(path.clone()), Arc::default());
        spool.begin(1);
        spool.chunk(b"half");
        spool.end(false);
        let err = spool.save(&answered(1)).expect_err("cut short");
        assert!(
            err.starts_with("the final body did not arrive whole (4 bytes)"),
            "{err}"
        );
        spool.begin(1);
        spool.end(true);
        let err = spool.save(&answered(2)).expect_err("another attempt");
        assert!(
            err.starts_with("attempt 2's body was not received"),
            "{err}"
        );
        assert!(!path.exists());
    }
}
