//! An attempt's phases as a waterfall in the detail pane (one row per phase: label, bar on the
//! attempt's own time axis, duration) and as text for the table's tooltip.
//!
//! The spans come from [`phase_spans`]; phases the stack cannot split are one row labelled so
//! (`connect + TLS`, `send + wait (TTFB)`), and a reused connection is a row that says
//! `reused` instead of a zero-length bar.

use super::units::format_ms;
use crate::model::{ConnectionUse, ErrorKind, PhaseKind, Timings, phase_parts, phase_spans};
use egui::{Color32, RichText};

/// Width kept for a phase's label, points (fits `send + wait (TTFB)`).
const LABEL_WIDTH: f32 = 118.0;
/// Width kept for a duration, points.
const DURATION_WIDTH: f32 = 64.0;
/// Narrowest bar track, points.
const MIN_TRACK: f32 = 60.0;
/// Shortest visible bar, points, so a 0.05 ms phase still shows.
const MIN_BAR: f32 = 2.0;
/// Label of the row that stands for a reused connection.
pub const REUSED_LABEL: &str = "connection reused";

/// A phase's length: as [`format_ms`], with one decimal from 1 to 10 ms (`2.5 ms`), where
/// loopback phases live.
pub fn phase_ms(ms: f64) -> String {
    if (0.995..9.95).contains(&ms) {
        format!("{ms:.1} ms")
    } else {
        format_ms(ms)
    }
}

/// Bar colour of a phase (devtools-like hues, readable on both themes).
fn phase_color(kind: PhaseKind) -> Color32 {
    match kind {
        PhaseKind::Redirects => Color32::from_rgb(140, 140, 140),
        PhaseKind::Dns => Color32::from_rgb(0, 150, 160),
        PhaseKind::Connect => Color32::from_rgb(230, 130, 30),
        PhaseKind::ConnectTls => Color32::from_rgb(215, 115, 120),
        PhaseKind::Tls => Color32::from_rgb(200, 100, 190),
        PhaseKind::Send => Color32::from_rgb(110, 118, 200),
        PhaseKind::Wait | PhaseKind::SendWait => Color32::from_rgb(46, 160, 67),
        PhaseKind::Download => Color32::from_rgb(56, 132, 255),
    }
}

/// Draws the waterfall of an attempt that finished with `timings` (`error` when it failed),
/// under a collapsible `Phases` header whose id comes from `attempt`.
pub fn waterfall_ui(ui: &mut egui::Ui, attempt: u32, timings: &Timings, error: Option<ErrorKind>) {
    let spans = phase_spans(timings, error);
    crate::ui::panel_parts::section(ui, "Phases", ("phases", attempt), |ui| {
        let track = (ui.available_width() - LABEL_WIDTH - DURATION_WIDTH - 16.0).max(MIN_TRACK);
        let total = timings.total_ms.max(f64::EPSILON);
        let reused = timings.connection == ConnectionUse::Reused;
        let mut reuse_shown = false;
        egui::Grid::new(("phase_grid", attempt))
            .num_columns(3)
            .spacing([8.0, 1.0])
            .min_col_width(0.0)
            .show(ui, |ui| {
                for span in &spans {
                    if reused
                        && !reuse_shown
                        && !matches!(span.kind, PhaseKind::Redirects | PhaseKind::Dns)
                    {
                        reused_row(ui, track);
                        reuse_shown = true;
                    }
                    let name = if span.failed {
                        format!("{} (failed)", span.kind.label())
                    } else {
                        span.kind.label().to_owned()
                    };
                    label_cell(ui, RichText::new(name));
                    bar_cell(ui, track, span.start_ms / total, span.end_ms / total, span);
                    duration_cell(ui, &phase_ms(span.duration_ms()));
                    ui.end_row();
                }
                if reused && !reuse_shown {
                    reused_row(ui, track);
                }
                total_row(ui, track, timings.total_ms);
            });
        for note in notes(timings, error) {
            ui.label(RichText::new(note).weak().small());
        }
    });
}

/// The row standing for a reused connection: no bar, the word `reused`.
fn reused_row(ui: &mut egui::Ui, track: f32) {
    label_cell(ui, RichText::new(REUSED_LABEL));
    cell(
        ui,
        track,
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| {
            ui.label(
                RichText::new("keep-alive: no connect, no TLS")
                    .weak()
                    .italics(),
            );
        },
    );
    duration_cell(ui, "reused");
    ui.end_row();
}

/// The last row: the whole attempt, a faint bar across the track.
fn total_row(ui: &mut egui::Ui, track: f32, total_ms: f64) {
    label_cell(ui, RichText::new("total").strong());
    let rect = track_rect(ui, track, &format!("total bar to {}", phase_ms(total_ms)));
    let color = ui.visuals().weak_text_color();
    ui.painter_at(rect).rect_filled(
        rect.shrink2(egui::vec2(0.0, rect.height() * 0.35)),
        1.0,
        color,
    );
    duration_cell(ui, &phase_ms(total_ms));
    ui.end_row();
}

/// A grid cell `width` points wide and a row high, laid out by `layout`.
fn cell(ui: &mut egui::Ui, width: f32, layout: egui::Layout, add: impl FnOnce(&mut egui::Ui)) {
    let size = egui::vec2(width, ui.spacing().interact_size.y * 0.7);
    ui.allocate_ui_with_layout(size, layout, |ui| {
        ui.set_min_width(width);
        add(ui);
    });
}

fn label_cell(ui: &mut egui::Ui, text: RichText) {
    cell(
        ui,
        LABEL_WIDTH,
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| {
            ui.add(egui::Label::new(text).truncate());
        },
    );
}

fn duration_cell(ui: &mut egui::Ui, text: &str) {
    cell(
        ui,
        DURATION_WIDTH,
        egui::Layout::right_to_left(egui::Align::Center),
        |ui| {
            ui.label(RichText::new(text).monospace());
        },
    );
}

/// Room for a bar `track` points wide and a row high, named `label` for screen readers.
fn track_rect(ui: &mut egui::Ui, track: f32, label: &str) -> egui::Rect {
    let height = ui.spacing().interact_size.y * 0.7;
    let (rect, response) = ui.allocate_exact_size(egui::vec2(track, height), egui::Sense::hover());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, label));
    rect
}

/// A track `track` points wide with the span's bar from fraction `from` to `to` of it.
fn bar_cell(ui: &mut egui::Ui, track: f32, from: f64, to: f64, span: &crate::model::PhaseSpan) {
    let label = format!(
        "{} bar from {} to {}",
        span.kind.label(),
        phase_ms(span.start_ms),
        phase_ms(span.end_ms)
    );
    let rect = track_rect(ui, track, &label);
    let visuals = ui.visuals();
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, visuals.faint_bg_color);
    #[allow(clippy::cast_possible_truncation, reason = "a fraction in [0, 1]")]
    let x = |f: f64| rect.left() + (f.clamp(0.0, 1.0) as f32) * rect.width();
    let mut left = x(from);
    let mut right = x(to);
    if right - left < MIN_BAR {
        right = (left + MIN_BAR).min(rect.right());
        left = right - MIN_BAR;
    }
    let bar = egui::Rect::from_min_max(
        egui::pos2(left, rect.top() + 2.0),
        egui::pos2(right, rect.bottom() - 2.0),
    );
    painter.rect_filled(bar, 2.0, phase_color(span.kind));
    if span.failed {
        painter.rect_stroke(
            bar,
            2.0,
            egui::Stroke::new(1.5, super::colors::STOPPED),
            egui::StrokeKind::Outside,
        );
    }
}

/// Small print under the waterfall: what was not split or not measured.
fn notes(timings: &Timings, error: Option<ErrorKind>) -> Vec<&'static str> {
    let mut out = Vec::new();
    if timings.last_hop_start_ms.is_some() {
        out.push("phases of the final hop; redirects: the hops before it");
    }
    match timings.connection {
        ConnectionUse::New if timings.tls_in_connect => {
            out.push("connect + TLS: the TCP connect and TLS handshake are measured as one");
        }
        ConnectionUse::Unknown if error != Some(ErrorKind::Dns) => {
            out.push("connect not measured (recorded before phase timings)");
        }
        _ => {}
    }
    if timings.sent_ms.is_none() && error.is_none() {
        out.push("send + wait: no request body, so sending is not timed apart from the wait");
    }
    out
}

/// The phases as tooltip text, one per line (`connect  0.35 ms`), with a reused connection
/// said as such; empty when none was measured.
pub fn phases_tooltip(timings: &Timings, error: Option<ErrorKind>) -> String {
    let reused = format!("{REUSED_LABEL} (no connect, no TLS)");
    let lines = phase_parts(timings, error, &reused, |span| {
        let failed = if span.failed { " (failed)" } else { "" };
        format!(
            "{}{failed}  {}",
            span.kind.label(),
            phase_ms(span.duration_ms())
        )
    });
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tooltip_lists_phases_and_says_reused() {
        let t = Timings {
            resolve_ms: Some(0.5),
            connection: ConnectionUse::Reused,
            headers_ms: Some(3.0),
            total_ms: 4.0,
            ..Timings::default()
        };
        assert_eq!(
            phases_tooltip(&t, None),
            "DNS  0.50 ms\nconnection reused (no connect, no TLS)\nsend + wait (TTFB)  2.5 ms\ndownload  1.0 ms"
        );
    }
}
