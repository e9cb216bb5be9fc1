//! The one history writer: a named thread that owns the database connection and applies
//! [`HistoryWrite`]s from a bounded channel, committing each as it arrives (so a `kill -9`
//! loses nothing already sent). Callers never wait on SQLite except when the channel is full.

use super::history::HistoryStore;
use super::history_error::HistoryError;
use super::history_records::HistoryWrite;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// How many writes may wait for the writer before [`HistoryWriter::send`] blocks.
pub const WRITER_QUEUE: usize = 1024;

enum Message {
    Write(HistoryWrite),
    Flush(SyncSender<()>),
}

/// Handle of the writer thread. Dropping it (or [`Self::close`]) lets the thread finish the
/// queued writes and end.
#[derive(Debug)]
pub struct HistoryWriter {
    tx: Option<SyncSender<Message>>,
    thread: Option<JoinHandle<()>>,
    failure: Arc<Mutex<Option<HistoryError>>>,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Message::Write(_) => "Write",
            Message::Flush(_) => "Flush",
        })
    }
}

impl HistoryWriter {
    /// Starts the thread `history-writer` owning `store`.
    ///
    /// # Errors
    /// [`HistoryError::WriterGone`] when the OS cannot start a thread.
    pub fn spawn(store: HistoryStore) -> Result<Self, HistoryError> {
        let (tx, rx) = sync_channel(WRITER_QUEUE);
        let failure = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&failure);
        let thread = std::thread::Builder::new()
            .name("history-writer".into())
            .spawn(move || write_loop(store, &rx, &slot))
            .map_err(|e| HistoryError::WriterGone(format!("cannot start the thread: {e}")))?;
        Ok(Self {
            tx: Some(tx),
            thread: Some(thread),
            failure,
        })
    }

    /// Queues `write` (blocking only while [`WRITER_QUEUE`] writes wait).
    ///
    /// # Errors
    /// The first failure of the writer (after which it keeps applying later writes), or
    /// [`HistoryError::WriterGone`] when its thread ended.
    pub fn send(&self, write: HistoryWrite) -> Result<(), HistoryError> {
        self.check()?;
        self.tx
            .as_ref()
            .ok_or_else(|| HistoryError::WriterGone("closed".into()))?
            .send(Message::Write(write))
            .map_err(|_| HistoryError::WriterGone("its thread ended".into()))
    }

    /// Waits until every write queued before this call is committed.
    ///
    /// # Errors
    /// As [`Self::send`].
    pub fn flush(&self) -> Result<(), HistoryError> {
        let (done_tx, done_rx) = sync_channel(1);
        self.tx
            .as_ref()
            .ok_or_else(|| HistoryError::WriterGone("closed".into()))?
            .send(Message::Flush(done_tx))
            .map_err(|_| HistoryError::WriterGone("its thread ended".into()))?;
        done_rx
            .recv()
            .map_err(|_| HistoryError::WriterGone("its thread ended".into()))?;
        self.check()
    }

    /// Commits what is queued, stops the thread and reports the first failure, if any.
    ///
    /// # Errors
    /// As [`Self::send`].
    pub fn close(mut self) -> Result<(), HistoryError> {
        self.tx = None;
        if let Some(t) = self.thread.take()
            && t.join().is_err()
        {
            return Err(HistoryError::WriterGone("its thread panicked".into()));
        }
        self.check()
    }

    fn check(&self) -> Result<(), HistoryError> {
        match self.failure.lock() {
            Ok(f) => f.clone().map_or(Ok(()), Err),
            Err(_) => Err(HistoryError::WriterGone("its thread panicked".into())),
        }
    }
}

impl Drop for HistoryWriter {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn write_loop(
    mut store: HistoryStore,
    rx: &Receiver<Message>,
    failure: &Mutex<Option<HistoryError>>,
) {
    while let Ok(message) = rx.recv() {
        match message {
            Message::Write(w) => {
                if let Err(e) = store.apply(&w)
                    && let Ok(mut slot) = failure.lock()
                    && slot.is_none()
                {
                    *slot = Some(e);
                }
            }
            Message::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}
