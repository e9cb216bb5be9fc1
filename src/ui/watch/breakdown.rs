//! The selected watch's tables: failed attempts by status and error kind, the delay headers
//! the server sent (Retry-After, rate-limit), and its runs, each a button that opens the run in
//! the timeline.

use super::PreparedWatch;
use crate::report::duration_text;
use crate::ui::panel_parts::text_grid;

/// Draws the tables of `w`; returns the id of the run whose button was clicked.
pub fn show(ui: &mut egui::Ui, w: &PreparedWatch) -> Option<String> {
    let f = &w.figures;
    ui.strong("Failures by status and error kind");
    if f.failures.is_empty() {
        ui.weak("no failed attempt");
    }
    let failures = f.failures.iter().map(|c| {
        [
            format!("{} {}", c.kind, c.label),
            format!("failed attempts: {}", c.attempts),
            format!("runs it ended: {}", c.runs_ended),
        ]
    });
    text_grid(ui, "watch.failures", &[], failures);
    ui.strong("Retry-After and rate-limit headers");
    if f.delay_headers.is_empty() {
        ui.weak("none seen");
    }
    let headers = f.delay_headers.iter().map(|h| {
        [
            h.name.clone(),
            format!("{} responses", h.responses),
            format!(
                "asked p50 {}, max {}",
                duration_text(h.asked.p50_ms),
                duration_text(h.asked.max_ms)
            ),
            format!(
                "{} of {} retries waited it",
                h.waited_at_least_asked, h.retried
            ),
        ]
    });
    text_grid(ui, "watch.delay_headers", &[], headers);
    ui.label(format!(
        "{}: {} succeeded, {} failed, {} cancelled, {} unfinished · success {}",
        crate::model::counted(f.runs.total, "run", "runs"),
        f.runs.succeeded,
        f.runs.failed,
        f.runs.cancelled,
        f.runs.unfinished,
        f.success_rate.text(),
    ));
    ui.strong("Runs (click one to open it in the timeline)");
    let mut open = None;
    let row = ui.spacing().interact_size.y;
    egui::ScrollArea::vertical()
        .id_salt("watch.runs")
        .max_height(240.0)
        .show_rows(ui, row, w.runs.len(), |ui, range| {
            for (_, id, text) in &w.runs[range] {
                if ui
                    .push_id(id, |ui| ui.button(text).on_hover_text(id).clicked())
                    .inner
                {
                    open = Some(id.clone());
                }
            }
        });
    open
}
