//! "Copy as HAR": the selected run as a HAR 1.2 document on the clipboard (secrets masked), built
//! from the folded timeline (the window keeps no raw event log) and the run's request.

use super::SentRequest;
use super::run_timeline::Timeline;
use crate::interop::{HarExport, run_to_har};
use crate::model::RunEvent;
use std::sync::Arc;

/// The events that fold into `timeline`, in order (what was measured; waits still running and
/// attempts in flight are left as they are).
pub fn timeline_events(timeline: &Timeline) -> Vec<RunEvent> {
    let run_id = timeline.run_id();
    let mut out = Vec::new();
    if let Some(started_at) = timeline.started_at() {
        out.push(RunEvent::RunStarted {
            run_id,
            seed: timeline.seed().unwrap_or(0),
            profile: timeline.profile().to_owned(),
            method: timeline.method().to_owned(),
            url: timeline.url().to_owned(),
            started_at: *started_at,
            tls_unverified: timeline.tls_unverified(),
        });
    }
    for row in timeline.attempts() {
        out.push(RunEvent::AttemptStarted {
            run_id,
            attempt: row.number,
            method: row.method.clone(),
            url: row.url.clone(),
            started_at: row.started_at,
            offset_ms: row.offset_ms,
        });
        if let Some(result) = &row.result {
            out.push(RunEvent::AttemptFinished {
                run_id,
                attempt: row.number,
                outcome: result.outcome.clone(),
                hops: result.hops.clone(),
                timings: result.timings,
                verdict: result.verdict.clone(),
            });
        }
        out.extend(row.budget.iter().map(|change| RunEvent::BudgetChanged {
            run_id,
            attempt: row.number,
            change: change.clone(),
        }));
        if let Some(wait) = &row.wait {
            out.push(RunEvent::WaitScheduled {
                run_id,
                retry: wait.retry,
                planned_ms: wait.planned_ms,
                explanation: wait.explanation.clone(),
                offset_ms: wait.offset_ms,
            });
            if let Some(actual_ms) = wait.actual_ms {
                out.push(RunEvent::WaitFinished {
                    run_id,
                    retry: wait.retry,
                    planned_ms: wait.planned_ms,
                    actual_ms,
                    skipped: wait.skipped,
                });
            }
        }
    }
    if let Some(f) = timeline.finished() {
        out.push(RunEvent::RunFinished {
            run_id,
            outcome: f.outcome.clone(),
            attempts: f.attempts,
            elapsed_ms: f.elapsed_ms,
        });
    }
    out
}

/// The run as HAR 1.2 JSON text, secrets masked.
pub fn timeline_har(timeline: &Timeline, sent: Option<&SentRequest>) -> String {
    let no_secrets = Vec::new();
    let har = run_to_har(
        &timeline_events(timeline),
        &HarExport {
            request: sent.map(|s| &s.spec),
            secrets: sent.map_or(&no_secrets, |s| &s.secrets),
            include_secrets: false,
        },
    );
    serde_json::to_string_pretty(&har).unwrap_or_default()
}

/// The "Copy as HAR", "Copy as CSV" and "Copy events" buttons.
pub fn copy_as_har_ui(ui: &mut egui::Ui, timeline: &Timeline, sent: Option<&Arc<SentRequest>>) {
    let secrets = sent.map(|s| s.secrets.as_slice()).unwrap_or_default();
    let any = !timeline.attempts().is_empty();
    if ui
        .add_enabled(any, egui::Button::new("Copy as CSV"))
        .on_hover_text("copy one row per attempt as CSV (secrets masked) for a spreadsheet")
        .clicked()
    {
        crate::ui::copied_toast::copy(
            ui.ctx(),
            crate::interop::attempts_csv(&timeline_events(timeline), secrets),
            "the attempts as CSV",
            crate::ui::copied_toast::Secrets::Masked,
        );
    }
    if ui
        .add_enabled(any, egui::Button::new("Copy events"))
        .on_hover_text("copy the run's events as JSON Lines, as `retryscope run --json` prints them (secrets masked)")
        .clicked()
    {
        crate::ui::copied_toast::copy(
            ui.ctx(),
            crate::interop::events_json_lines(&timeline_events(timeline), secrets),
            "the run's events as JSON Lines",
            crate::ui::copied_toast::Secrets::Masked,
        );
    }
    if ui
        .add_enabled(
            !timeline.attempts().is_empty(),
            egui::Button::new("Copy as HAR"),
        )
        .on_hover_text(
            "copy the run as a HAR 1.2 file (one entry per attempt, secrets masked) to paste \
             into a .har file or a ticket",
        )
        .clicked()
    {
        crate::ui::copied_toast::copy(
            ui.ctx(),
            timeline_har(timeline, sent.map(Arc::as_ref)),
            "the run as HAR",
            crate::ui::copied_toast::Secrets::Masked,
        );
    }
}
