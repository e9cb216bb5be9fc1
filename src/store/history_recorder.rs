//! A run's masked events as history rows ([`HistoryWrite`]): the history record is a view of
//! the run's [`RunFold`] (the one fold), written row by row as each event changes one, with
//! body previews capped.

use super::history_records::{AttemptRecord, FinishedRun, HistoryWrite, RunRecord};
use crate::model::secrets::{self, Masked};
use crate::model::{AttemptOutcome, RequestSpec, RetryProfile, RunEvent, RunFold};
use std::sync::Arc;

/// Turns the events of one run into rows. One recorder per run.
#[derive(Debug)]
pub struct HistoryRecorder {
    id: String,
    /// The masked request and profile, moved into the run's record by `RunStarted` (once;
    /// `None` after).
    request: Option<RequestSpec>,
    profile: Arc<serde_json::Value>,
    secrets: Vec<String>,
    body_cap: usize,
    batch_item_id: Option<String>,
    watch_id: Option<String>,
    /// The run's fold, keeping only the row in progress.
    fold: RunFold,
}

/// What a [`HistoryRecorder`] is made from, cheap to make on the run's thread (a fresh UUID v7
/// and copies of the request and profile): [`super::HistoryWriter::record_run`] makes the
/// recorder from it on the writer's thread, where masking the request and encoding the profile
/// cost the run nothing.
#[derive(Debug, Clone)]
pub struct RecorderSeed {
    id: String,
    request: RequestSpec,
    profile: RetryProfile,
    secrets: Vec<String>,
    body_cap: usize,
    batch_item_id: Option<String>,
    watch_id: Option<String>,
}

impl RecorderSeed {
    /// A seed for a run of `request` (as sent) under `profile`, with the arguments of
    /// [`HistoryRecorder::new`]. The run gets a fresh UUID v7.
    pub fn new(
        request: &RequestSpec,
        profile: &RetryProfile,
        secret_values: Vec<String>,
        body_cap: usize,
    ) -> Self {
        Self {
            id: uuid::Uuid::now_v7().to_string(),
            request: request.clone(),
            profile: profile.clone(),
            secrets: secret_values,
            body_cap,
            batch_item_id: None,
            watch_id: None,
        }
    }

    /// The same seed for the run of a batch item: its run row names the item
    /// (`BATCH_ID/POSITION`, see `crate::service::batch_item_id`).
    #[must_use]
    pub fn with_batch_item(mut self, batch_item_id: String) -> Self {
        self.batch_item_id = Some(batch_item_id);
        self
    }

    /// The same seed for a run of a watch: its run row names the watch (`runs.watch_id`).
    #[must_use]
    pub fn with_watch(mut self, watch_id: String) -> Self {
        self.watch_id = Some(watch_id);
        self
    }

    /// The run's history id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The recorder (masks the request with the one rule, encodes the profile).
    pub fn into_recorder(self) -> HistoryRecorder {
        self.into_recorder_with(&mut None)
    }

    /// [`Self::into_recorder`], reusing the profile's JSON form when the profile is `last`'s
    /// (the writer keeps the last one: runs back to back mostly share their profile); `last`
    /// then holds this seed's profile.
    pub(crate) fn into_recorder_with(
        self,
        last: &mut Option<(RetryProfile, Arc<serde_json::Value>)>,
    ) -> HistoryRecorder {
        let profile = match last {
            Some((p, json)) if *p == self.profile => Arc::clone(json),
            _ => {
                let json = Arc::new(
                    serde_json::to_value(&self.profile).unwrap_or(serde_json::Value::Null),
                );
                *last = Some((self.profile, Arc::clone(&json)));
                json
            }
        };
        let mut all = self.secrets;
        all.extend(secrets::secret_values(&self.request));
        let request = secrets::mask_spec(&self.request, &all);
        HistoryRecorder {
            id: self.id,
            request: Some(request.into_inner()),
            profile,
            secrets: all,
            body_cap: self.body_cap,
            batch_item_id: self.batch_item_id,
            watch_id: self.watch_id,
            fold: RunFold::default(),
        }
    }
}

impl HistoryRecorder {
    /// A recorder for a run of `request` (as sent) under `profile`. `secret_values` are the
    /// values to hide wherever they appear (secret variables, [`secrets::secret_values`] of the
    /// request); `body_cap` is the most body bytes kept per attempt. The run gets a fresh UUID v7.
    pub fn new(
        request: &RequestSpec,
        profile: &RetryProfile,
        secret_values: Vec<String>,
        body_cap: usize,
    ) -> Self {
        RecorderSeed::new(request, profile, secret_values, body_cap).into_recorder()
    }

    /// The run's history id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The row change `event` makes, if any (`AttemptStarted` notes the start on the run's row;
    /// the attempt's own row is written once it has finished; a second `RunStarted` makes
    /// none). The event is masked with this recorder's secret values first.
    pub fn fold(&mut self, event: &RunEvent) -> Option<HistoryWrite> {
        self.fold_masked(secrets::mask_event(event.clone(), &self.secrets))
    }

    /// [`Self::fold`] for an event masked already (as the app core's run recording does before
    /// anything sees an event; it masks with this recorder's secret values or more).
    pub fn fold_masked(&mut self, event: Masked<RunEvent>) -> Option<HistoryWrite> {
        /// Which part of the fold an event changes.
        enum Step {
            Started,
            Attempt,
            Finished,
            Budget(u32, Box<crate::model::BudgetChange>),
            Wait(u32),
            WaitEnd(u32),
            End,
        }
        let step = match &*event {
            RunEvent::RunStarted { .. } => Step::Started,
            RunEvent::AttemptStarted { .. } => Step::Attempt,
            RunEvent::AttemptFinished { .. } => Step::Finished,
            RunEvent::BudgetChanged {
                attempt, change, ..
            } => Step::Budget(*attempt, Box::new(change.clone())),
            RunEvent::WaitScheduled { retry, .. } => Step::Wait(*retry),
            RunEvent::WaitFinished { retry, .. } => Step::WaitEnd(*retry),
            RunEvent::RunFinished { .. } => Step::End,
        };
        // The recorder's fold takes the run's events whatever their in-process number.
        if self.fold.run_id() != event.run_id() {
            self.fold = std::mem::take(&mut self.fold).renumbered(event.run_id());
        }
        if !self.fold.apply(event) {
            return None;
        }
        self.fold.keep_last_row();
        let run_id = self.id.clone();
        let row = self.fold.attempts.last_mut();
        Some(match (step, row) {
            (Step::Started, _) => {
                let h = self.fold.header.clone()?;
                HistoryWrite::RunStarted(Box::new(RunRecord {
                    // A run starts once: a second `RunStarted` (the engine never sends one)
                    // makes no row (its id is taken anyway).
                    request: self.request.take()?,
                    id: run_id,
                    started_at: h.started_at,
                    ended_at: None,
                    app_version: env!("CARGO_PKG_VERSION").to_owned(),
                    method: h.method,
                    url: h.url,
                    profile_name: h.profile,
                    profile: Arc::clone(&self.profile),
                    seed: h.seed,
                    outcome: None,
                    outcome_message: None,
                    last_status: None,
                    attempts: 0,
                    elapsed_ms: None,
                    batch_item_id: self.batch_item_id.clone(),
                    watch_id: self.watch_id.clone(),
                    attempt_started: None,
                }))
            }
            (Step::Attempt, Some(row)) => HistoryWrite::AttemptStarted {
                run_id,
                start: Box::new(row.clone()),
            },
            (Step::Finished, Some(row)) => {
                if let Some(AttemptOutcome::Response(r)) =
                    row.result.as_mut().map(|r| &mut r.outcome)
                    && r.body.bytes.len() > self.body_cap
                {
                    r.body.bytes.truncate(self.body_cap);
                    r.body.truncated = true;
                }
                HistoryWrite::AttemptFinished(Box::new(AttemptRecord {
                    run_id,
                    row: row.clone(),
                }))
            }
            (Step::Budget(attempt, change), _) => HistoryWrite::BudgetChanged {
                run_id,
                attempt,
                change,
            },
            (Step::Wait(attempt), Some(row)) => HistoryWrite::WaitPlanned {
                run_id,
                attempt,
                wait: Box::new(row.wait.clone()?),
            },
            (Step::WaitEnd(attempt), Some(row)) => {
                let wait = row.wait.as_ref()?;
                HistoryWrite::WaitFinished {
                    run_id,
                    attempt,
                    measured_ms: wait.actual_ms?,
                    skipped: wait.skipped,
                }
            }
            (Step::End, _) => {
                let f = self.fold.finish.as_ref()?;
                HistoryWrite::RunFinished(FinishedRun {
                    run_id,
                    ended_at: chrono::Local::now().fixed_offset(),
                    outcome: f.outcome.kind,
                    message: f.outcome.message.clone(),
                    last_status: f.outcome.last_status,
                    attempts: f.attempts,
                    elapsed_ms: f.elapsed_ms,
                })
            }
            (_, None) => return None,
        })
    }
}
