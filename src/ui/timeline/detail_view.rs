//! The detail pane of the selected attempt: status line, headers, body, hops, timings, verdict,
//! error, and the wait that followed with its explanation.
//!
//! Everything here can be copied to the system clipboard: one header (`name: value`), the body
//! as shown, the wait's explanation, or the whole attempt as text ([`attempt_text`]). The run's
//! events were masked by the one rule before the window got them, so secret header values read
//! `***` here and in every copy.

use super::body_render::{BodyRender, body_notices};
use super::colors::class_text_color;
use super::run_view::{BodyCache, RunView};
use super::units::{format_bytes, format_date_time, format_ms, format_secs};
use crate::model::{AttemptOutcome, ResponseSummary};
use crate::model::{AttemptResult, AttemptRow, WaitRow};
use crate::ui::copied_toast::{Secrets, copy_button};
use crate::ui::panel_parts::section;
use egui::RichText;
use std::fmt::Write as _;
use std::time::Instant;

/// How a finished wait's line ends when it was skipped or cut short by the end of the run.
const WAIT_NOTES: [&str; 2] = [" (skipped: Retry now)", " (the run ended during this wait)"];

/// `actual 1003 ms` with the note of a skipped or cut-short wait (`notes`: skipped, cut);
/// `None` while the wait runs.
pub(super) fn wait_actual(wait: &WaitRow, [skipped, cut]: [&str; 2]) -> Option<String> {
    let note = match (wait.skipped, wait.interrupted) {
        (true, _) => skipped,
        (false, true) => cut,
        (false, false) => "",
    };
    Some(format!("actual {}{note}", format_ms(wait.actual_ms?)))
}

/// Least height of the body viewer, points.
const BODY_HEIGHT: f32 = 280.0;

/// Draws the selected attempt of `view`, or a hint when none is selected.
pub fn show(ui: &mut egui::Ui, view: &mut RunView, now: Instant) {
    let selected = view.selected_row;
    let sent = view.request.clone();
    let (timeline, body) = view.timeline_and_body();
    let Some(attempt) = selected.and_then(|i| timeline.attempts().get(i)) else {
        ui.weak("Select an attempt (table row or plot bar) to see its response.");
        return;
    };
    ui.heading(format!("Attempt {}", attempt.number));
    // What happened first (status, verdict, the phase waterfall), so it is in view even when
    // the pane is short; then the actions and the details.
    let color = class_text_color(attempt.class(), ui.visuals().dark_mode);
    match &attempt.result {
        None => {
            ui.label(RichText::new("In flight…").color(color));
        }
        Some(result) => {
            let (head, message) = outcome_lines(&result.outcome);
            ui.label(RichText::new(head).strong().color(color));
            if let Some(message) = message {
                ui.label(message);
            }
            ui.label(format!("verdict: {}", attempt.verdict_label()));
            for change in &attempt.budget {
                ui.label(format!("budget: {}", change.text));
            }
            super::phase_waterfall::waterfall_ui(
                ui,
                attempt.number,
                &result.timings,
                result.outcome.error_kind(),
            );
        }
    }
    copy_buttons(ui, attempt, body);
    super::attempt_curl::copy_as_curl_ui(ui, sent.as_ref(), attempt, timeline.url());
    ui.label(format!("{} {}", attempt.method, attempt.url));
    ui.label(format!("started {}", format_date_time(&attempt.started_at)));
    if let Some(result) = &attempt.result {
        hops_ui(ui, result);
        if let AttemptOutcome::Response(resp) = &result.outcome {
            headers_ui(ui, resp, attempt.number);
            body_ui(ui, resp, body, attempt.number);
        }
    }
    if let Some(wait) = &attempt.wait {
        wait_ui(ui, wait, timeline.remaining_ms(wait, now));
    }
}

/// An outcome's first line (`HTTP/1.1 503 Service Unavailable`, `network error: connect`) and
/// an error's message.
fn outcome_lines(outcome: &AttemptOutcome) -> (String, Option<&str>) {
    match outcome {
        AttemptOutcome::Response(r) => {
            let line = format!("{} {} {}", r.version, r.status, r.reason);
            (line.trim_end().to_owned(), None)
        }
        AttemptOutcome::Error(e) => (format!("network error: {}", e.kind), Some(&e.message)),
    }
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

/// The attempt's redirect hops, one line each, folded under `Redirects (N)`.
fn hops_ui(ui: &mut egui::Ui, result: &AttemptResult) {
    if result.hops.is_empty() {
        return;
    }
    ui.collapsing(format!("Redirects ({})", result.hops.len()), |ui| {
        for hop in &result.hops {
            ui.label(hop.line());
        }
    });
}

/// Copy attempt / Copy body / Copy explanation, each putting text on the system clipboard.
fn copy_buttons(ui: &mut egui::Ui, attempt: &AttemptRow, body: Option<&BodyCache>) {
    let response = attempt.result.as_ref().and_then(|r| match &r.outcome {
        AttemptOutcome::Response(resp) => Some(resp),
        AttemptOutcome::Error(_) => None,
    });
    let n = attempt.number;
    ui.horizontal_wrapped(|ui| {
        let tip = "copy this attempt as text: status, timings, verdict, headers, body and the \
                   wait after it (secrets masked)";
        let what = format!("attempt {n} as text");
        let text = || attempt_text(attempt, response.map(|r| body_text(r, body)).as_deref());
        copy_button(
            ui,
            true,
            ("Copy attempt", tip),
            (&what, Secrets::Masked),
            text,
        );
        if let Some(resp) = response {
            let tip = "copy the body as shown below (pretty JSON, text or hex dump)";
            let what = (&format!("the body of attempt {n}")[..], Secrets::Masked);
            let any = !resp.body.bytes.is_empty();
            copy_button(ui, any, ("Copy body", tip), what, || body_text(resp, body));
        }
        if let Some(wait) = &attempt.wait {
            let tip = "copy the explanation of the wait after this attempt";
            let what = format!("the explanation of retry {}", wait.explanation.retry);
            let text = || wait.explanation.text.clone();
            copy_button(
                ui,
                true,
                ("Copy explanation", tip),
                (&what, Secrets::None),
                text,
            );
        }
    });
}

fn headers_ui(ui: &mut egui::Ui, resp: &ResponseSummary, attempt: u32) {
    let title = format!("Headers ({})", resp.headers.len());
    section(ui, title, ("headers", attempt), |ui| {
        egui::Grid::new(("header_grid", attempt))
            .striped(true)
            .num_columns(3)
            .show(ui, |ui| {
                for (index, (name, value)) in resp.headers.iter().enumerate() {
                    header_row(ui, index, name, value);
                    ui.end_row();
                }
            });
    });
}

/// One header: name and Copy, then the value (`***` when secret). The short visible button
/// carries a longer accessible label (`Copy header content-type`) for screen readers and tests.
/// A name can repeat (`set-cookie`), so the button's id also carries the header's position.
fn header_row(ui: &mut egui::Ui, index: usize, name: &str, value: &str) {
    ui.monospace(name);
    ui.horizontal(|ui| {
        ui.push_id(("header", index), |ui| {
            let copy = ui
                .small_button("Copy")
                .on_hover_text(format!("copy `{name}: …` to the clipboard"));
            let label = format!("Copy header {name}");
            let enabled = copy.enabled();
            copy.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, &label));
            if copy.clicked() {
                // A secret header's value is masked at the source: it reads `***`.
                let secret = crate::model::secrets::is_secret_header(name);
                let secrets = if secret {
                    Secrets::Masked
                } else {
                    Secrets::None
                };
                crate::ui::copied_toast::copy(
                    ui.ctx(),
                    format!("{name}: {value}"),
                    &format!("header {name}"),
                    secrets,
                );
            }
        });
    });
    // Last, so a long value wraps in the width that is left.
    ui.add(egui::Label::new(RichText::new(value).monospace()).wrap());
}

/// The body as the pane shows it: pretty JSON, text, or the hex dump (empty for no body).
fn body_text(resp: &ResponseSummary, cache: Option<&BodyCache>) -> String {
    cache.map_or_else(
        || BodyRender::from_preview(&resp.body).text().to_owned(),
        |c| c.render.text().to_owned(),
    )
}

/// The whole attempt as plain text (Copy attempt): method and URL, start, status or error,
/// verdict, timings, redirects, headers (secret values `***`), the body
/// `body` as shown, and the wait after it with its explanation, e.g.
///
/// ```text
/// Attempt 1 · GET http://127.0.0.1:8080/status/503
/// started 2026-11-30 14:00:00.000 +01:00
/// HTTP/1.1 503 Service Unavailable
/// verdict: retry: 503 is retryable
/// total 12 ms
/// headers:
///   content-type: text/plain
///   set-cookie: ***
/// body:
/// unavailable
/// wait 1 before attempt 2: planned 1000 ms, actual 1003 ms
/// retry 1: fixed 1000 ms = 1000 ms
/// ```
pub fn attempt_text(attempt: &AttemptRow, body: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Attempt {} · {} {}",
        attempt.number, attempt.method, attempt.url
    );
    let _ = writeln!(out, "started {}", format_date_time(&attempt.started_at));
    match &attempt.result {
        None if attempt.aborted_after_ms.is_some() => {
            let ms = attempt.aborted_after_ms.unwrap_or_default();
            let _ = writeln!(out, "aborted after {} (the run ended)", format_ms(ms));
        }
        None => out.push_str("in flight\n"),
        Some(result) => {
            let (head, message) = outcome_lines(&result.outcome);
            for line in std::iter::once(head.as_str()).chain(message) {
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(out, "verdict: {}", attempt.verdict_label());
            let _ = writeln!(out, "{}", timings_line(result));
            if result.timings.connection != crate::model::ConnectionUse::Unknown {
                let phases =
                    crate::model::phases_line(&result.timings, result.outcome.error_kind());
                let _ = writeln!(out, "phases: {phases}");
            }
            if !result.hops.is_empty() {
                out.push_str("redirects:\n");
                for hop in &result.hops {
                    let _ = writeln!(out, "  {}", hop.line());
                }
            }
            if let AttemptOutcome::Response(resp) = &result.outcome {
                out.push_str("headers:\n");
                for (name, value) in &resp.headers {
                    let _ = writeln!(out, "  {name}: {value}");
                }
                let render = BodyRender::from_preview(&resp.body);
                match body.filter(|b| !b.is_empty()) {
                    None => out.push_str("body: (empty)\n"),
                    Some(text) => {
                        out.push_str("body:\n");
                        for notice in body_notices(&resp.body, &render) {
                            let _ = writeln!(out, "({notice})");
                        }
                        out.push_str(text);
                        if !text.ends_with('\n') {
                            out.push('\n');
                        }
                    }
                }
            }
        }
    }
    if let Some(wait) = &attempt.wait {
        let actual = wait_actual(wait, WAIT_NOTES).unwrap_or_else(|| "in progress".to_owned());
        let _ = writeln!(
            out,
            "wait {} before attempt {}: planned {}, {actual}",
            wait.retry,
            wait.retry + 1,
            format_ms(wait.planned_ms as f64)
        );
        let _ = writeln!(out, "{}", wait.explanation.text);
    }
    out
}

fn body_ui(ui: &mut egui::Ui, resp: &ResponseSummary, body: Option<&BodyCache>, attempt: u32) {
    let title = format!("Body ({})", format_bytes(resp.body.total_bytes));
    section(ui, title, ("body", attempt), |ui| {
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
        // As tall as the pane shows (at least BODY_HEIGHT): scrolled into view, the body
        // fills the pane instead of showing a few lines in a box inside it.
        let visible = ui.clip_rect().height() - 24.0;
        egui::ScrollArea::both()
            .id_salt(("body_lines", attempt))
            .max_height(visible.max(BODY_HEIGHT))
            .auto_shrink([false, true])
            .show_rows(ui, line_height, body.lines.len(), |ui, range| {
                for line in &body.lines[range] {
                    ui.add(egui::Label::new(RichText::new(line).monospace()).extend());
                }
            });
    });
}

fn wait_ui(ui: &mut egui::Ui, wait: &WaitRow, remaining_ms: Option<f64>) {
    let title = format!("Wait {} before attempt {}", wait.retry, wait.retry + 1);
    section(ui, title, ("wait", wait.retry), |ui| {
        ui.label(format!("planned {}", format_ms(wait.planned_ms as f64)));
        let left = remaining_ms.map(|left| format!("in progress: {} left", format_secs(left)));
        if let Some(actual) = wait_actual(wait, WAIT_NOTES).or(left) {
            ui.label(actual);
        }
        ui.add(egui::Label::new(RichText::new(&wait.explanation.text).monospace()).wrap());
        let e = &wait.explanation;
        let draws = e.draws.iter().map(|d| {
            [
                d.name.clone(),
                format!("{:.4} from U[{}, {}]", d.value, d.low, d.high),
            ]
        });
        crate::ui::panel_parts::text_grid(ui, ("draws", wait.retry), &[], draws);
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
