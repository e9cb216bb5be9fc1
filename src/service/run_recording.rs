//! What happens to every event of a run before a face shows it, written once for both faces:
//! mask it with the one secrets rule, fold it into history rows (committed by the one
//! [`HistoryWriter`] as each attempt finishes) and write its log line, naming the run by its
//! history id.

use crate::engine::{PreparedRun, RunHandle};
use crate::model::secrets::Masked;
use crate::model::{RequestSpec, RetryProfile, RunEvent};
use crate::store::{HistoryError, HistoryStore, HistoryWriter, RecorderSeed, RunEnd, RunKey};
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

/// Drives `run` on the calling task beside a loop that hands each of its events (arriving on
/// `events`, the receiver of the sender the run was prepared with) to `each`; once `stop`
/// resolves, the run is cancelled through `handle` and still ends with its `RunFinished`.
/// Returns when the run has ended and every event has been handed on. For faces that await a
/// run (a batch item, a watch's slot): no task of its own per run.
pub async fn drive_events(
    run: PreparedRun,
    handle: &RunHandle,
    mut events: tokio::sync::mpsc::Receiver<RunEvent>,
    stop: impl Future<Output = ()>,
    mut each: impl FnMut(RunEvent),
) {
    let handed = async {
        tokio::pin!(stop);
        let mut cancelling = false;
        loop {
            let event = tokio::select! {
                event = events.recv() => event,
                () = &mut stop, if !cancelling => {
                    cancelling = true;
                    handle.cancel();
                    continue;
                }
            };
            let Some(event) = event else { break };
            each(event);
        }
    };
    tokio::join!(run.drive(), handed);
}

/// One run's recording: its history id, the shared writer (which folds the run's events into
/// rows on its own thread), the secret values to mask and the first write failure (after which
/// the run goes on unrecorded).
#[derive(Debug)]
pub struct RunRecording {
    secrets: Vec<String>,
    history: Option<Recorded>,
    failure: Option<HistoryError>,
    failure_reported: bool,
    /// True for a batch item's run: its end is held back for [`Self::take_end`] (committed
    /// with the item's end) instead of sent to the writer.
    hold_end: bool,
    /// The end held back, once it came.
    held_end: Option<RunEnd>,
    /// How the run log names the run when not by its history id alone (a watch's run:
    /// `ID (watch WATCH_ID)`).
    log_name: Option<String>,
}

/// A recorded run: its id, its key with the writer (`None` once its start could not be sent
/// or it finished) and the writer.
#[derive(Debug)]
struct Recorded {
    id: String,
    key: Option<RunKey>,
    writer: Arc<HistoryWriter>,
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
        Self::start(spec, profile, secrets, writer, body_cap, |seed| seed)
    }

    /// [`Self::new`] for a run of watch `watch_id` (DESIGN.md §12): its history row names the
    /// watch (`runs.watch_id`), and so do its log lines (`run ID (watch WATCH_ID) …`).
    pub fn for_watch(
        spec: &RequestSpec,
        profile: &RetryProfile,
        secrets: &[String],
        writer: Option<Arc<HistoryWriter>>,
        body_cap: usize,
        watch_id: String,
    ) -> Self {
        let log_name = format!(" (watch {watch_id})");
        let mut recording = Self::start(spec, profile, secrets, writer, body_cap, |seed| {
            seed.with_watch(watch_id)
        });
        recording.log_name = recording.history_id().map(|id| format!("{id}{log_name}"));
        recording
    }

    /// [`Self::new`] for the run of a batch item: the run's history row names the item
    /// (`batch_item_id`, `BATCH_ID/POSITION`), and its end is not sent to the writer but held
    /// for [`Self::take_end`], so the batch commits it with the item's end.
    pub fn for_batch_item(
        spec: &RequestSpec,
        profile: &RetryProfile,
        secrets: &[String],
        writer: Option<Arc<HistoryWriter>>,
        body_cap: usize,
        batch_item_id: String,
    ) -> Self {
        let mut recording = Self::start(spec, profile, secrets, writer, body_cap, |seed| {
            seed.with_batch_item(batch_item_id)
        });
        recording.hold_end = true;
        recording
    }

    fn start(
        spec: &RequestSpec,
        profile: &RetryProfile,
        secrets: &[String],
        writer: Option<Arc<HistoryWriter>>,
        body_cap: usize,
        tag: impl FnOnce(RecorderSeed) -> RecorderSeed,
    ) -> Self {
        let mut all = secrets.to_vec();
        all.extend(crate::model::secrets::secret_values(spec));
        all.retain(|s| !s.is_empty());
        all.sort();
        all.dedup();
        let mut failure = None;
        let history = writer.map(|writer| {
            let seed = tag(RecorderSeed::new(spec, profile, all.clone(), body_cap));
            let id = seed.id().to_owned();
            let key = writer.record_run(seed).map_err(|e| failure = Some(e)).ok();
            Recorded { id, key, writer }
        });
        Self {
            secrets: all,
            history,
            failure,
            failure_reported: false,
            hold_end: false,
            held_end: None,
            log_name: None,
        }
    }

    /// The run's history id (UUID v7), when it is recorded.
    pub fn history_id(&self) -> Option<&str> {
        self.history.as_ref().map(|r| r.id.as_str())
    }

    /// Every secret value masked in this run's events.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// Masks `event` by the one rule (the only place a run's events are masked), records it
    /// (the writer commits it off this thread; never blocks: past
    /// [`crate::store::WRITER_QUEUE`] waiting messages the run's detail is dropped and its
    /// record says so) and logs it; returns the masked event, which is what every view takes.
    /// The first failure stops recording (see [`Self::take_failure`]).
    pub fn observe(&mut self, event: RunEvent) -> Masked<RunEvent> {
        let event = crate::model::secrets::mask_event(event, &self.secrets);
        match &mut self.history {
            Some(r) => {
                if let Some(key) = r.key.filter(|_| self.failure.is_none()) {
                    let finished = matches!(*event, RunEvent::RunFinished { .. });
                    if finished {
                        r.key = None;
                    }
                    if finished && self.hold_end {
                        self.held_end = Some(RunEnd::new(key, event.clone()));
                    } else if let Err(e) = r.writer.record_event(key, event.clone()) {
                        // Masked above with the recorder's own secret values (`all` in
                        // `new`); the writer folds it
                        // ([`crate::store::HistoryRecorder::fold_masked`]).
                        self.failure = Some(e);
                    }
                }
                crate::store::log_event_as(&event, self.log_name.as_deref().unwrap_or(&r.id));
            }
            None => crate::store::log_event(&event),
        }
        event
    }

    /// The run's end held back for its batch item (see [`Self::for_batch_item`]), once; `None`
    /// before the run finished, when it is not recorded, or for a run that is no batch item.
    pub fn take_end(&mut self) -> Option<RunEnd> {
        self.held_end.take()
    }

    /// Waits until everything recorded so far is committed (so a reader sees the whole run).
    ///
    /// # Errors
    /// The writer's first failure.
    pub fn flush(&self) -> Result<(), HistoryError> {
        match &self.history {
            Some(r) => r.writer.flush(),
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

impl Drop for RunRecording {
    /// A run dropped before its end: the writer forgets its recorder.
    fn drop(&mut self) {
        if let Some(Recorded {
            key: Some(key),
            writer,
            ..
        }) = &self.history
        {
            writer.end_run(*key);
        }
    }
}
