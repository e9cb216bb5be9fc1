//! What happens to every event of a run before a face shows it, written once for both faces:
//! mask it with the one secrets rule, fold it into history rows (committed by the one
//! [`HistoryWriter`] as each attempt finishes) and write its log line, naming the run by its
//! history id.

use crate::model::{RequestSpec, RetryProfile, RunEvent};
use crate::store::{HistoryError, HistoryRecorder, HistoryStore, HistoryWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where runs are recorded: the data folder holding `history.sqlite3` and the body cap.
#[derive(Debug, Clone)]
pub struct HistoryPlace {
    /// The data folder (`None`: unknown, nothing is recorded).
    pub data_dir: Option<PathBuf>,
    /// Most response body bytes kept per attempt.
    pub body_cap: usize,
}

/// Opens the history in `data_dir` and starts its writer thread.
///
/// # Errors
/// The store's open or migration error, or [`HistoryError::WriterGone`] when the thread cannot
/// start; the caller runs on unrecorded and says so.
pub fn open_history_writer(data_dir: &Path) -> Result<Arc<HistoryWriter>, HistoryError> {
    HistoryStore::open_in(data_dir)
        .and_then(HistoryWriter::spawn)
        .map(Arc::new)
}

/// One run's recording: the recorder folding its events, the shared writer, the secret values
/// to mask and the first write failure (after which the run goes on unrecorded).
#[derive(Debug)]
pub struct RunRecording {
    secrets: Vec<String>,
    history: Option<(HistoryRecorder, Arc<HistoryWriter>)>,
    failure: Option<HistoryError>,
    failure_reported: bool,
}

impl RunRecording {
    /// A recording of `spec` under `profile`. `secrets` are the values hidden wherever they
    /// appear (secret variables, auth values); the request's own secrets
    /// ([`crate::model::secrets::secret_values`]) are added here. `writer` = `None` (no history,
    /// `--no-history`): events are still masked and logged, named by their run number.
    pub fn new(
        spec: &RequestSpec,
        profile: &RetryProfile,
        secrets: &[String],
        writer: Option<Arc<HistoryWriter>>,
        body_cap: usize,
    ) -> Self {
        let mut all = secrets.to_vec();
        all.extend(crate::model::secrets::secret_values(spec));
        all.retain(|s| !s.is_empty());
        all.sort();
        all.dedup();
        let history = writer.map(|w| {
            (
                HistoryRecorder::new(spec, profile, all.clone(), body_cap),
                w,
            )
        });
        Self {
            secrets: all,
            history,
            failure: None,
            failure_reported: false,
        }
    }

    /// The run's history id (UUID v7), when it is recorded.
    pub fn history_id(&self) -> Option<&str> {
        self.history.as_ref().map(|(r, _)| r.id())
    }

    /// Every secret value masked in this run's events.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// Masks `event`, records it (the writer commits it off this thread; may block only while
    /// [`crate::store::WRITER_QUEUE`] writes wait) and logs it; returns the masked event. The
    /// first failure stops recording (see [`Self::take_failure`]).
    pub fn observe(&mut self, event: RunEvent) -> RunEvent {
        let event = crate::model::secrets::mask_event(event, &self.secrets);
        let mut failed = None;
        match &mut self.history {
            Some((recorder, writer)) if self.failure.is_none() => {
                // Masked above with the recorder's own secret values (`all` in `new`).
                if let Some(write) = recorder.fold_masked(event.clone())
                    && let Err(e) = writer.send(write)
                {
                    failed = Some(e);
                }
                crate::store::log_event_as(&event, recorder.id());
            }
            Some((recorder, _)) => crate::store::log_event_as(&event, recorder.id()),
            None => crate::store::log_event(&event),
        }
        if failed.is_some() {
            self.failure = failed;
        }
        event
    }

    /// Waits until everything recorded so far is committed (so a reader sees the whole run).
    ///
    /// # Errors
    /// The writer's first failure.
    pub fn flush(&self) -> Result<(), HistoryError> {
        match &self.history {
            Some((_, writer)) => writer.flush(),
            None => Ok(()),
        }
    }

    /// The first recording failure, once (later calls return `None`).
    pub fn take_failure(&mut self) -> Option<HistoryError> {
        if self.failure_reported {
            return None;
        }
        let failure = self.failure.clone()?;
        self.failure_reported = true;
        Some(failure)
    }
}
