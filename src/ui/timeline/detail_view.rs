//! The detail pane of the selected attempt: status line, headers, body, hops, timings, verdict,
//! error, and the wait that followed with its explanation.

use super::attempt_row::{AttemptResult, WaitRow};
use super::body_render::body_notices;
use super::colors::class_text_color;
use super::run_view::{BodyCache, RunView};
use super::units::{format_bytes, format_date_time, format_ms, format_secs};
use crate::model::{AttemptOutcome, ResponseSummary};
use egui::RichText;
use std::time::Instant;

/// Height of the body viewer, points.
const BODY_HEIGHT: f32 = 280.0;

/// Draws the selected attempt of `view`, or a hint when none is selected.
pub fn show(ui: &mut egui::Ui, view: &mut RunView, now: Instant) {
    let selected = view.selected_row;
    let (timeline, body) = view.timeline_and_body();
    let Some(attempt) = selected.and_then(|i| timeline.attempts().get(i)) else {
        ui.weak("Select an attempt (table row or plot bar) to see its response.");
        return;
    };
    ui.heading(format!("Attempt {}", attempt.number));
    ui.label(format!("{} {}", attempt.method, attempt.url));
    ui.label(format!("started {}", format_date_time(&attempt.started_at)));
    match &attempt.result {
        None => {
            let color = class_text_color(attempt.class(), ui.visuals().dark_mode);
            ui.label(RichText::new("In flight…").color(color));
        }
        Some(result) => {
            let color = class_text_color(attempt.class(), ui.visuals().dark_mode);
            match &result.outcome {
                AttemptOutcome::Response(resp) => {
                    ui.label(RichText::new(status_line(resp)).strong().color(color));
                }
                AttemptOutcome::Error(e) => {
                    ui.label(
                        RichText::new(format!("network error: {}", e.kind))
                            .strong()
                            .color(color),
                    );
                    ui.label(&e.message);
                }
            }
            ui.label(format!("verdict: {}", attempt.verdict_label()));
            ui.label(timings_line(result));
            hops_ui(ui, result);
            if let AttemptOutcome::Response(resp) = &result.outcome {
                headers_ui(ui, resp, attempt.number);
                body_ui(ui, resp, body, attempt.number);
            }
        }
    }
    if let Some(wait) = &attempt.wait {
        wait_ui(ui, wait, now);
    }
}

/// `HTTP/1.1 503 Service Unavailable`.
pub fn status_line(resp: &ResponseSummary) -> String {
    format!("{} {} {}", resp.version, resp.status, resp.reason)
        .trim_end()
        .to_owned()
}

/// `resolve 1 ms · headers 10 ms · total 12 ms` (resolve and headers only when measured).
pub fn timings_line(result: &AttemptResult) -> String {
    let t = &result.timings;
    let mut parts = Vec::new();
    if let Some(ms) = t.resolve_ms {
        parts.push(format!("resolve {}", format_ms(ms)));
    }
    if let Some(ms) = t.headers_ms {
        parts.push(format!("headers {}", format_ms(ms)));
    }
    parts.push(format!("total {}", format_ms(t.total_ms)));
    parts.join(" · ")
}

fn hops_ui(ui: &mut egui::Ui, result: &AttemptResult) {
    if result.hops.is_empty() {
        return;
    }
    ui.collapsing(format!("Redirects ({})", result.hops.len()), |ui| {
        for hop in &result.hops {
            ui.label(format!(
                "{} {} → {} → {}",
                hop.method, hop.url, hop.status, hop.location
            ));
        }
    });
}

fn headers_ui(ui: &mut egui::Ui, resp: &ResponseSummary, attempt: u32) {
    egui::CollapsingHeader::new(format!("Headers ({})", resp.headers.len()))
        .id_salt(("headers", attempt))
        .default_open(true)
        .show(ui, |ui| {
            egui::Grid::new(("header_grid", attempt))
                .striped(true)
                .num_columns(2)
                .show(ui, |ui| {
                    for (name, value) in &resp.headers {
                        ui.monospace(name);
                        ui.add(egui::Label::new(RichText::new(value).monospace()).wrap());
                        ui.end_row();
                    }
                });
        });
}

fn body_ui(ui: &mut egui::Ui, resp: &ResponseSummary, body: Option<&BodyCache>, attempt: u32) {
    egui::CollapsingHeader::new(format!("Body ({})", format_bytes(resp.body.total_bytes)))
        .id_salt(("body", attempt))
        .default_open(true)
        .show(ui, |ui| {
            let Some(body) = body else {
                ui.label("(no body)");
                return;
            };
            for notice in body_notices(&resp.body, &body.render) {
                ui.label(RichText::new(notice).italics());
            }
            if body.lines.is_empty() {
                ui.label("(empty body)");
                return;
            }
            let line_height = ui.text_style_height(&egui::TextStyle::Monospace);
            egui::ScrollArea::both()
                .id_salt(("body_lines", attempt))
                .max_height(BODY_HEIGHT)
                .auto_shrink([false, true])
                .show_rows(ui, line_height, body.lines.len(), |ui, range| {
                    for line in &body.lines[range] {
                        ui.add(egui::Label::new(RichText::new(line).monospace()).extend());
                    }
                });
        });
}

fn wait_ui(ui: &mut egui::Ui, wait: &WaitRow, now: Instant) {
    egui::CollapsingHeader::new(format!(
        "Wait {} before attempt {}",
        wait.retry,
        wait.retry + 1
    ))
    .id_salt(("wait", wait.retry))
    .default_open(true)
    .show(ui, |ui| {
        ui.label(format!("planned {}", format_ms(wait.planned_ms as f64)));
        match (wait.actual_ms, wait.remaining_ms(now)) {
            (Some(ms), _) => {
                let skipped = if wait.skipped {
                    " (skipped: Retry now)"
                } else if wait.interrupted {
                    " (the run ended during this wait)"
                } else {
                    ""
                };
                ui.label(format!("actual {}{skipped}", format_ms(ms)));
            }
            (None, Some(left)) => {
                ui.label(format!("in progress: {} left", format_secs(left)));
            }
            (None, None) => {}
        }
        ui.add(egui::Label::new(RichText::new(&wait.explanation.text).monospace()).wrap());
        let e = &wait.explanation;
        if !e.draws.is_empty() {
            egui::Grid::new(("draws", wait.retry))
                .num_columns(2)
                .show(ui, |ui| {
                    for d in &e.draws {
                        ui.label(&d.name);
                        ui.label(format!("{:.4} from U[{}, {}]", d.value, d.low, d.high));
                        ui.end_row();
                    }
                });
        }
        ui.label(format!(
            "before jitter {} · {}",
            format_ms(e.unjittered_ms),
            if e.capped {
                "capped by max delay"
            } else {
                "not capped"
            }
        ));
    });
}
