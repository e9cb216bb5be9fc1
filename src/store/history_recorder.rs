//! Folds a run's [`RunEvent`]s into history rows ([`HistoryWrite`]), masking every secret
//! with the one rule ([`secrets::mask_event`]) and capping body previews.

use super::history_records::{
    AttemptRecord, AttemptStart, HistoryWrite, PhaseTimings, RecordedOutcome, RunRecord, WaitRecord,
};
use crate::model::secrets;
use crate::model::{AttemptOutcome, RequestSpec, RetryProfile, RunEvent};
use chrono::{DateTime, FixedOffset};
use std::collections::HashMap;
use std::sync::Arc;

/// Turns the events of one run into rows. One recorder per run.
#[derive(Debug)]
pub struct HistoryRecorder {
    id: String,
    /// The masked request and profile, moved into the run's record by `RunStarted` (once;
    /// `None` after).
    request: Option<RequestSpec>,
    profile: Arc<serde_json::Value>,
    /// Method and (masked) URL of the request, for an attempt whose start was not seen.
    method: String,
    url: String,
    secrets: Vec<String>,
    body_cap: usize,
    batch_item_id: Option<String>,
    starts: HashMap<u32, (DateTime<FixedOffset>, f64, String, String)>,
    last_attempt: u32,
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
        }
    }

    /// The same seed for the run of a batch item: its run row names the item
    /// (`BATCH_ID/POSITION`, see `crate::service::batch_item_id`).
    #[must_use]
    pub fn with_batch_item(mut self, batch_item_id: String) -> Self {
        self.batch_item_id = Some(batch_item_id);
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
            method: request.method.clone(),
            url: request.url.clone(),
            request: Some(request),
            profile,
            secrets: all,
            body_cap: self.body_cap,
            batch_item_id: self.batch_item_id,
            starts: HashMap::new(),
            last_attempt: 0,
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
    /// none).
    pub fn fold(&mut self, event: &RunEvent) -> Option<HistoryWrite> {
        let masked = secrets::mask_event(event.clone(), &self.secrets);
        self.fold_masked(masked)
    }

    /// [`Self::fold`] for an event already passed through [`secrets::mask_event`] with this
    /// recorder's secret values (or more), as the app core's run recording does before anything
    /// sees an event: masking twice costs the same again and changes nothing.
    pub fn fold_masked(&mut self, event: RunEvent) -> Option<HistoryWrite> {
        match event {
            RunEvent::RunStarted {
                seed,
                profile,
                method,
                url,
                started_at,
                ..
            } => Some(HistoryWrite::RunStarted(Box::new(RunRecord {
                // A run starts once: a second `RunStarted` (the engine never sends one) makes
                // no row (its id is taken anyway).
                request: self.request.take()?,
                id: self.id.clone(),
                started_at,
                ended_at: None,
                app_version: env!("CARGO_PKG_VERSION").to_owned(),
                method,
                url,
                profile_name: profile,
                profile: Arc::clone(&self.profile),
                seed,
                outcome: None,
                outcome_message: None,
                last_status: None,
                attempts: 0,
                elapsed_ms: None,
                batch_item_id: self.batch_item_id.clone(),
                attempt_started: None,
            }))),
            RunEvent::AttemptStarted {
                attempt,
                method,
                url,
                started_at,
                offset_ms,
                ..
            } => {
                let start = AttemptStart {
                    number: attempt,
                    started_at,
                    offset_ms,
                    method: method.clone(),
                    url: url.clone(),
                };
                self.starts
                    .insert(attempt, (started_at, offset_ms, method, url));
                Some(HistoryWrite::AttemptStarted {
                    run_id: self.id.clone(),
                    start: Box::new(start),
                })
            }
            RunEvent::AttemptFinished {
                attempt,
                mut outcome,
                hops,
                timings,
                verdict,
                ..
            } => {
                let (started_at, offset_ms, method, url) =
                    self.starts.remove(&attempt).unwrap_or_else(|| {
                        (
                            chrono::Local::now().fixed_offset(),
                            0.0,
                            self.method.clone(),
                            self.url.clone(),
                        )
                    });
                if let AttemptOutcome::Response(r) = &mut outcome
                    && r.body.bytes.len() > self.body_cap
                {
                    r.body.bytes.truncate(self.body_cap);
                    r.body.truncated = true;
                }
                self.last_attempt = attempt;
                Some(HistoryWrite::AttemptFinished(Box::new(AttemptRecord {
                    run_id: self.id.clone(),
                    number: attempt,
                    started_at,
                    offset_ms,
                    method,
                    url,
                    phases: PhaseTimings::from_timings(&timings),
                    timings,
                    outcome,
                    hops,
                    verdict,
                    wait: None,
                    budget: Vec::new(),
                })))
            }
            RunEvent::WaitScheduled {
                planned_ms,
                explanation,
                offset_ms,
                ..
            } => Some(HistoryWrite::WaitPlanned {
                run_id: self.id.clone(),
                attempt: self.last_attempt,
                wait: Box::new(WaitRecord {
                    planned_ms,
                    explanation,
                    offset_ms,
                    measured_ms: None,
                    skipped: false,
                }),
            }),
            RunEvent::BudgetChanged {
                attempt, change, ..
            } => Some(HistoryWrite::BudgetChanged {
                run_id: self.id.clone(),
                attempt,
                change: Box::new(change),
            }),
            RunEvent::WaitFinished {
                actual_ms, skipped, ..
            } => Some(HistoryWrite::WaitFinished {
                run_id: self.id.clone(),
                attempt: self.last_attempt,
                measured_ms: actual_ms,
                skipped,
            }),
            RunEvent::RunFinished {
                outcome,
                attempts,
                elapsed_ms,
                ..
            } => Some(HistoryWrite::RunFinished {
                run_id: self.id.clone(),
                ended_at: chrono::Local::now().fixed_offset(),
                outcome: RecordedOutcome::from(outcome.kind),
                message: outcome.message,
                last_status: outcome.last_status,
                attempts,
                elapsed_ms,
            }),
        }
    }
}
