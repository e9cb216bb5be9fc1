//! How history rows are written and read back: the attempt statements, and the run and
//! attempt columns decoded into records (`store::history` runs the queries).

use super::history::sql;
use super::history_connection::exec;
use super::history_error::HistoryError;
use super::history_records::{AttemptRecord, PhaseTimings, RunRecord};
use crate::model::{
    AttemptOutcome, AttemptResult, AttemptRow, BodyPreview, OutcomeKind, ResponseSummary, WaitRow,
};
use chrono::{DateTime, FixedOffset};
use rusqlite::{Connection, Row, params};
use std::sync::Arc;

/// The attempt's row and (with `count`) its count on the run, on `conn` (a savepoint or the
/// group's transaction). An attempt without a result has no row (nothing is written).
pub(super) fn attempt_statements(
    conn: &Connection,
    record: &AttemptRecord,
    count: bool,
) -> Result<(), HistoryError> {
    let (a, run_id) = (&record.row, &record.run_id);
    let Some(result) = &a.result else {
        return Ok(());
    };
    let phases = PhaseTimings::from_timings(&result.timings);
    // A response is whole in its columns (schema step 6): its `outcome_json` is `''`.
    let (status, error_kind, error_message, headers, body, reason_version, outcome_json) =
        match &result.outcome {
            AttemptOutcome::Response(r) => (
                Some(r.status),
                None,
                None,
                Some(encode(&r.headers)?),
                Some(&r.body),
                Some((r.reason.as_str(), r.version.as_str())),
                String::new(),
            ),
            AttemptOutcome::Error(e) => (
                None,
                Some(e.kind.id()),
                Some(e.message.as_str()),
                None,
                None,
                None,
                encode(&result.outcome)?,
            ),
        };
    let (verdict, reason) = result.verdict.name_and_reason();
    exec(
        conn,
        "INSERT INTO attempts (run_id, number, started_at, offset_ms, method, url, dns_ms,
             connect_ms, tls_ms, sent_ms, first_byte_ms, done_ms, reused, status, error_kind,
             error_message, verdict, verdict_reason, headers_json, body_preview, body_total_bytes,
             body_truncated, outcome_json, hops_json, timings_json, verdict_json, budget_json,
             budget_before, budget_after, response_reason, response_version)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
             ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31)",
        params![
            run_id,
            a.number,
            a.started_at.to_rfc3339(),
            a.offset_ms,
            a.method,
            a.url,
            phases.dns_ms,
            phases.connect_ms,
            phases.tls_ms,
            phases.sent_ms,
            phases.first_byte_ms,
            phases.done_ms,
            phases.reused,
            status,
            error_kind,
            error_message,
            verdict,
            reason,
            headers,
            body.map(|b| b.bytes.as_slice()),
            body.map(|b| i64::try_from(b.total_bytes).unwrap_or(i64::MAX)),
            body.map(|b| b.truncated),
            outcome_json,
            encode(&result.hops)?,
            encode(&result.timings)?,
            encode(&result.verdict)?,
            if a.budget.is_empty() {
                None
            } else {
                Some(encode(&a.budget)?)
            },
            a.budget.first().map(|c| c.before),
            a.budget.last().map(|c| c.after),
            reason_version.map(|(reason, _)| reason),
            reason_version.map(|(_, version)| version),
        ],
    )
    .map_err(|e| {
        // The run's row is gone: `history delete` / `prune --yes` took a live run.
        if e.sqlite_error()
            .is_some_and(|f| f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY)
        {
            HistoryError::Sql {
                action: "insert an attempt",
                message: format!("run {run_id} was deleted from the history while it ran"),
            }
        } else {
            sql("insert an attempt")(e)
        }
    })?;
    if !count {
        return Ok(());
    }
    exec(
        conn,
        "UPDATE runs SET attempts = ?2 WHERE id = ?1 AND attempts < ?2",
        params![run_id, a.number],
    )
    .map_err(sql("count an attempt"))?;
    Ok(())
}

/// `outcome` with the `body_preview` column's bytes put back (rows written before the body
/// moved out of `outcome_json` still carry it there, and keep it).
pub(super) fn with_body_bytes(
    mut outcome: AttemptOutcome,
    body: Option<Vec<u8>>,
) -> AttemptOutcome {
    if let (AttemptOutcome::Response(r), Some(bytes)) = (&mut outcome, body)
        && r.body.bytes.is_empty()
    {
        r.body.bytes = bytes;
    }
    outcome
}

/// The run columns read back. The profile is the `profiles` row the run names (schema step 5),
/// or its own `profile_json` for a row written without one. `last_status` is set when a run finishes; for a run that never
/// did (interrupted, or still running) it is the status of its last attempt that got one.
/// A run's columns as [`run_row`] reads them. Its attempt count includes an attempt that has
/// started and not finished (a run in progress shows `1 attempt` while its first attempt waits
/// for an answer, as it does once [`HistoryStore::mark_interrupted`] has counted it).
pub(super) const RUN_COLUMNS: &str = "id, started_at, ended_at, app_version, method, url, request_json,
    profile_name,
    COALESCE((SELECT p.json FROM profiles p WHERE p.id = runs.profile_id), profile_json), seed, outcome, outcome_message,
    COALESCE(last_status, (SELECT a.status FROM attempts a WHERE a.run_id = runs.id
        AND a.status IS NOT NULL ORDER BY a.number DESC LIMIT 1)),
    MAX(attempts, COALESCE(started_attempt, 0)), elapsed_ms, batch_item_id, started_attempt, started_attempt_at,
    started_attempt_offset_ms, started_attempt_method, started_attempt_url, watch_id";

pub(super) type RowResult<T> = rusqlite::Result<Result<T, HistoryError>>;

pub(super) fn run_row(r: &Row<'_>) -> RowResult<RunRecord> {
    let id: String = r.get(0)?;
    let started: String = r.get(1)?;
    let ended: Option<String> = r.get(2)?;
    let request: String = r.get(6)?;
    let profile: String = r.get(8)?;
    let seed: String = r.get(9)?;
    let outcome: Option<String> = r.get(10)?;
    let (app_version, method, url, profile_name) = (r.get(3)?, r.get(4)?, r.get(5)?, r.get(7)?);
    let (outcome_message, last_status, attempts, elapsed_ms, batch_item_id) =
        (r.get(11)?, r.get(12)?, r.get(13)?, r.get(14)?, r.get(15)?);
    let started_number: Option<u32> = r.get(16)?;
    let started_at: Option<String> = r.get(17)?;
    let (started_offset, started_method, started_url): (
        Option<f64>,
        Option<String>,
        Option<String>,
    ) = (r.get(18)?, r.get(19)?, r.get(20)?);
    let watch_id: Option<String> = r.get(21)?;
    Ok((|| {
        let attempt_started = match (started_number, started_at) {
            (Some(number), Some(at)) => Some(AttemptRow::started(
                number,
                started_method.unwrap_or_default(),
                started_url.unwrap_or_default(),
                time(&at, &id)?,
                started_offset.unwrap_or(0.0),
            )),
            _ => None,
        };
        Ok(RunRecord {
            started_at: time(&started, &id)?,
            ended_at: ended.map(|t| time(&t, &id)).transpose()?,
            app_version,
            method,
            url,
            request: decode(&request, &id, "request")?,
            profile_name,
            profile: Arc::new(decode(&profile, &id, "profile")?),
            seed: seed.parse().map_err(|_| HistoryError::Decode {
                id: id.clone(),
                message: format!("seed `{seed}` is not a number"),
            })?,
            outcome: outcome
                .map(|o| {
                    OutcomeKind::from_id(&o).ok_or_else(|| HistoryError::Decode {
                        id: id.clone(),
                        message: format!("unknown outcome `{o}`"),
                    })
                })
                .transpose()?,
            outcome_message,
            last_status,
            attempts,
            elapsed_ms,
            batch_item_id,
            watch_id,
            attempt_started,
            id: id.clone(),
        })
    })())
}

/// An attempt's columns read back as its row (the dns … reused columns, index 6 to 12, are
/// the phases the timings hold, for SQL readers; the row takes its timings whole).
pub(super) fn attempt_row(r: &Row<'_>) -> RowResult<AttemptRow> {
    let run_id: String = r.get(0)?;
    let started: String = r.get(2)?;
    let outcome: String = r.get(13)?;
    let hops: String = r.get(14)?;
    let timings: String = r.get(15)?;
    let verdict: String = r.get(16)?;
    let planned: Option<i64> = r.get(17)?;
    let explanation: Option<String> = r.get(18)?;
    let (number, offset_ms, method, url) = (r.get(1)?, r.get(3)?, r.get(4)?, r.get(5)?);
    let (wait_offset, measured, skipped): (Option<f64>, Option<f64>, Option<bool>) =
        (r.get(19)?, r.get(20)?, r.get(21)?);
    let body: Option<Vec<u8>> = r.get(22)?;
    let budget: Option<String> = r.get(23)?;
    let response = ResponseColumns {
        status: r.get(24)?,
        reason: r.get(25)?,
        version: r.get(26)?,
        headers: r.get(27)?,
        total_bytes: r.get(28)?,
        truncated: r.get(29)?,
    };
    Ok((|| {
        let wait = match (planned, explanation) {
            (Some(p), Some(e)) => {
                let explanation: crate::model::WaitExplanation =
                    decode(&e, &run_id, "wait explanation")?;
                Some(WaitRow {
                    retry: explanation.retry,
                    planned_ms: u64::try_from(p).unwrap_or(0),
                    explanation,
                    offset_ms: wait_offset.unwrap_or(0.0),
                    actual_ms: measured,
                    skipped: skipped.unwrap_or(false),
                    interrupted: false,
                })
            }
            _ => None,
        };
        let mut row = AttemptRow::started(number, method, url, time(&started, &run_id)?, offset_ms);
        row.result = Some(AttemptResult {
            timings: decode(&timings, &run_id, "timings")?,
            outcome: if outcome.is_empty() {
                response.outcome(body, &run_id)?
            } else {
                with_body_bytes(decode(&outcome, &run_id, "outcome")?, body)
            },
            hops: decode(&hops, &run_id, "hops")?,
            verdict: decode(&verdict, &run_id, "verdict")?,
        });
        row.wait = wait;
        if let Some(json) = &budget {
            row.budget = decode(json, &run_id, "budget changes")?;
        }
        Ok(row)
    })())
}

/// The response columns of an attempt row (schema step 6), read back when its `outcome_json` is
/// `''`.
pub(super) struct ResponseColumns {
    status: Option<u16>,
    reason: Option<String>,
    version: Option<String>,
    headers: Option<String>,
    total_bytes: Option<i64>,
    truncated: Option<bool>,
}

impl ResponseColumns {
    /// The response they hold, with `body` (the `body_preview` column); an error for a row
    /// without a status (not a response).
    fn outcome(self, body: Option<Vec<u8>>, id: &str) -> Result<AttemptOutcome, HistoryError> {
        let missing = |what: &str| HistoryError::Decode {
            id: id.to_owned(),
            message: format!("outcome: an attempt without outcome_json has no {what}"),
        };
        Ok(AttemptOutcome::Response(ResponseSummary {
            status: self.status.ok_or_else(|| missing("status"))?,
            reason: self.reason.unwrap_or_default(),
            version: self.version.unwrap_or_default(),
            headers: match &self.headers {
                Some(json) => decode(json, id, "headers")?,
                None => Vec::new(),
            },
            body: BodyPreview {
                bytes: body.unwrap_or_default(),
                total_bytes: self
                    .total_bytes
                    .map_or(0, |n| u64::try_from(n).unwrap_or(0)),
                truncated: self.truncated.unwrap_or(false),
            },
        }))
    }
}

pub(super) fn time(text: &str, id: &str) -> Result<DateTime<FixedOffset>, HistoryError> {
    DateTime::parse_from_rfc3339(text).map_err(|e| HistoryError::Decode {
        id: id.to_owned(),
        message: format!("time `{text}`: {e}"),
    })
}

pub(super) fn decode<T: serde::de::DeserializeOwned>(
    json: &str,
    id: &str,
    what: &str,
) -> Result<T, HistoryError> {
    serde_json::from_str(json).map_err(|e| HistoryError::Decode {
        id: id.to_owned(),
        message: format!("{what}: {e}"),
    })
}

pub(super) fn encode<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, HistoryError> {
    serde_json::to_string(value).map_err(|e| HistoryError::Encode(e.to_string()))
}
