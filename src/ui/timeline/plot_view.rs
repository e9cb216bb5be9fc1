//! The Gantt-style plot (`egui_plot)`: attempts as bars coloured by outcome on the "attempts"
//! lane, waits as hatched grey bars labelled with their ms on the "waits" lane (the running
//! wait at its planned length with a countdown), and a "now" line while the run is live.
//! X zooms and pans; only spans in view are submitted, merged below a pixel, and labels are
//! skipped where they would collide.

use super::colors::{CANCELLED, WAIT, class_color, class_text_color};
use super::gantt::{GanttSpan, SpanKind, extent_ms, row_at, spans};
use super::run_timeline::Timeline;
use super::units::{format_ms, format_secs};
use crate::model::AttemptClass;
use egui::{Color32, Stroke};
use egui_plot::{Bar, BarChart, GridMark, Plot, PlotPoint, Text, VLine};
use std::collections::HashMap;
use std::time::Instant;

/// Accessible name of the plot (click it to select an attempt).
pub const PLOT_LABEL: &str = "Timeline plot";
/// Plot height, points: a share of the height left, between these bounds (short windows keep
/// room for the table).
const PLOT_HEIGHT: std::ops::RangeInclusive<f32> = 110.0..=170.0;
/// Y of the attempts lane.
const ATTEMPT_LANE: f64 = 1.0;
/// Y of the waits lane.
const WAIT_LANE: f64 = 0.0;
/// Thickness of the wait bars, in lane units.
const WAIT_THICKNESS: f64 = 0.35;
/// Waits narrower than this (points) are not hatched.
const MIN_HATCH_WIDTH: f64 = 24.0;
/// Most waits hatched per frame.
const MAX_HATCHED: usize = 200;
/// Horizontal distance between hatch turns, points.
const HATCH_STEP_PX: f64 = 7.0;
/// Most text labels drawn per frame; beyond this labels are skipped.
const MAX_LABELS: usize = 120;
/// Estimated width of one label character, points (small plot text).
const LABEL_CHAR_WIDTH: f64 = 6.5;
/// Room kept right of the plot for the last x-axis tick label, points.
const RIGHT_GUTTER: f32 = 24.0;
/// A wait label is drawn only when its bar is at least this wide, points.
const MIN_LABEL_WIDTH: f64 = 56.0;

/// Draws the plot of `timeline`; returns the attempt row the user clicked, if any.
pub fn show(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    selected_row: Option<usize>,
    now: Instant,
) -> Option<usize> {
    legend(ui);
    let active = timeline.is_active();
    let now_ms = timeline.offset_at(now).unwrap_or(0.0);
    let extent = extent_ms(timeline, now).max(1.0);
    let highlight = ui.visuals().strong_text_color();
    let dark_mode = ui.visuals().dark_mode;
    let response = Plot::new(("timeline_plot", timeline.run_id()))
        .height((ui.available_height() * 0.3).clamp(*PLOT_HEIGHT.start(), *PLOT_HEIGHT.end()))
        // A tick at the right edge would otherwise have its label cut by the panel.
        .width((ui.available_width() - RIGHT_GUTTER).max(120.0))
        .allow_zoom([true, false])
        .allow_drag([true, false])
        .allow_scroll([true, false])
        .allow_boxed_zoom(false)
        .default_y_bounds(-0.7, 1.7)
        .include_x(0.0)
        .include_x(extent)
        .show_crosshair(false)
        .x_axis_label("time since run start")
        .x_axis_formatter(|mark, range| axis_time(mark.value, range.end() - range.start()))
        .y_axis_min_width(56.0)
        .y_grid_spacer(|_| {
            let mark = |value| GridMark {
                value,
                step_size: 1.0,
            };
            vec![mark(WAIT_LANE), mark(ATTEMPT_LANE)]
        })
        .y_axis_formatter(|mark, _| {
            match mark.value {
                v if v == ATTEMPT_LANE => "attempts",
                v if v == WAIT_LANE => "waits",
                _ => "",
            }
            .to_owned()
        })
        .show(ui, |plot_ui| {
            let width_px = f64::from(plot_ui.transform().frame().width()).max(50.0);
            let (visible, ms_per_px) = if plot_ui.auto_bounds().x {
                (None, extent / width_px)
            } else {
                let b = plot_ui.plot_bounds();
                let (lo, hi) = (b.min()[0], b.max()[0]);
                let margin = (hi - lo) * 0.1;
                (
                    Some((lo - margin, hi + margin)),
                    (hi - lo).max(1e-6) / width_px,
                )
            };
            let all = spans(timeline, visible, ms_per_px, now_ms);
            add_bars(plot_ui, &all, timeline, selected_row, ms_per_px, highlight);
            add_hatching(plot_ui, &all, ms_per_px);
            let x_max = plot_ui.plot_bounds().max()[0];
            let style = LabelStyle {
                ms_per_px,
                x_max,
                dark_mode,
            };
            add_labels(plot_ui, &all, timeline, now, style);
            if active {
                plot_ui.vline(
                    VLine::new("now", now_ms)
                        .color(Color32::from_rgb(56, 132, 255))
                        .width(1.5),
                );
            }
        });
    let plot_response = response.response;
    plot_response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Figure, true, PLOT_LABEL));
    if plot_response.clicked()
        && let Some(pos) = plot_response.interact_pointer_pos()
    {
        let x = response.transform.value_from_position(pos).x;
        return row_at(timeline, x);
    }
    None
}

/// An x-axis tick: `250 ms` while the view spans under 20 s, else `42 s`.
fn axis_time(ms: f64, span_ms: f64) -> String {
    if span_ms < 20_000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.0} s", ms / 1000.0)
    }
}

/// The colour key, drawn above the plot so it never covers bars.
fn legend(ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        let keys = [
            SpanKind::Attempt(AttemptClass::Success),
            SpanKind::Attempt(AttemptClass::Retryable),
            SpanKind::Attempt(AttemptClass::Stopped),
            SpanKind::Attempt(AttemptClass::NetworkError),
            SpanKind::Attempt(AttemptClass::InFlight),
            SpanKind::Wait,
            SpanKind::PlannedWait,
            SpanKind::CutWait,
        ];
        // Small text keeps all eight keys on one line in a 630-point centre.
        let font = egui::TextStyle::Small.resolve(ui.style());
        let text_color = ui.visuals().text_color();
        for kind in keys {
            let name = kind_name(kind);
            // Swatch and name are one widget, so wrapping never parts them.
            let galley = ui
                .painter()
                .layout_no_wrap(name.to_owned(), font.clone(), text_color);
            let swatch = egui::vec2(12.0, 12.0);
            let size = egui::vec2(
                swatch.x + 4.0 + galley.size().x,
                swatch.y.max(galley.size().y),
            );
            let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
            let swatch_rect =
                egui::Rect::from_min_size(egui::pos2(rect.left(), rect.center().y - 6.0), swatch);
            ui.painter().rect(
                swatch_rect,
                2.0,
                kind_color(kind),
                Stroke::new(1.0, WAIT),
                egui::StrokeKind::Inside,
            );
            let text_pos = egui::pos2(
                swatch_rect.right() + 4.0,
                rect.center().y - galley.size().y / 2.0,
            );
            ui.painter().galley(text_pos, galley, text_color);
            response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, name));
            ui.add_space(6.0);
        }
    });
}

/// Legend name of a span kind.
fn kind_name(kind: SpanKind) -> &'static str {
    match kind {
        SpanKind::Attempt(AttemptClass::InFlight) => "in flight",
        SpanKind::Attempt(AttemptClass::Aborted) => "aborted",
        SpanKind::Attempt(AttemptClass::Success) => "success",
        SpanKind::Attempt(AttemptClass::Retryable) => "retryable",
        SpanKind::Attempt(AttemptClass::Stopped) => "stopped",
        SpanKind::Attempt(AttemptClass::NetworkError) => "network error",
        SpanKind::Wait => "wait",
        SpanKind::PlannedWait => "wait (running)",
        SpanKind::CutWait => "wait (cut short)",
    }
}

fn draw_order(kind: SpanKind) -> u8 {
    match kind {
        SpanKind::Wait => 0,
        SpanKind::PlannedWait | SpanKind::CutWait => 1,
        SpanKind::Attempt(AttemptClass::Retryable) => 2,
        SpanKind::Attempt(AttemptClass::NetworkError) => 3,
        SpanKind::Attempt(AttemptClass::Aborted) => 4,
        SpanKind::Attempt(AttemptClass::Stopped) => 5,
        SpanKind::Attempt(AttemptClass::Success) => 6,
        SpanKind::Attempt(AttemptClass::InFlight) => 7,
    }
}

fn kind_color(kind: SpanKind) -> Color32 {
    match kind {
        SpanKind::Attempt(class) => class_color(class),
        SpanKind::Wait => WAIT.gamma_multiply(0.55),
        SpanKind::PlannedWait => WAIT.gamma_multiply(0.25),
        SpanKind::CutWait => CANCELLED.gamma_multiply(0.35),
    }
}

/// Tooltip of one span: `attempt 2: 503 (12 ms)` or `attempts 5–40`.
fn span_name(span: &GanttSpan, timeline: &Timeline) -> String {
    let rows = timeline.attempts();
    let (Some(first), Some(last)) = (
        rows.get(span.rows.start),
        rows.get(span.rows.end.saturating_sub(1)),
    ) else {
        return String::new();
    };
    let length = format_ms(span.end_ms - span.start_ms);
    match span.kind {
        SpanKind::Attempt(_) if span.rows.len() == 1 => {
            format!(
                "attempt {}: {} ({length})",
                first.number,
                first.result_label()
            )
        }
        SpanKind::Attempt(_) => format!("attempts {}–{}", first.number, last.number),
        SpanKind::Wait if span.rows.len() == 1 => format!("wait {}: {length}", first.number),
        SpanKind::Wait => format!("waits {}–{}", first.number, last.number),
        SpanKind::PlannedWait => format!(
            "wait {}: planned {}",
            first.number,
            format_ms(span.planned_ms.unwrap_or(0) as f64)
        ),
        SpanKind::CutWait => format!(
            "wait {}: cut short after {length} of {} planned (the run ended)",
            first.number,
            format_ms(span.planned_ms.unwrap_or(0) as f64)
        ),
    }
}

fn add_bars(
    plot_ui: &mut egui_plot::PlotUi<'_>,
    all: &[GanttSpan],
    timeline: &Timeline,
    selected_row: Option<usize>,
    ms_per_px: f64,
    highlight: Color32,
) {
    let mut by_kind: HashMap<SpanKind, Vec<Bar>> = HashMap::new();
    for span in all {
        let (lane, thickness) = match span.kind {
            SpanKind::Attempt(_) => (ATTEMPT_LANE, 0.6),
            SpanKind::Wait | SpanKind::PlannedWait | SpanKind::CutWait => {
                (WAIT_LANE, WAIT_THICKNESS)
            }
        };
        let color = kind_color(span.kind);
        let selected = selected_row.is_some_and(|r| span.rows.contains(&r));
        let stroke = if selected {
            Stroke::new(2.0, highlight)
        } else if span.kind == SpanKind::PlannedWait {
            Stroke::new(1.0, WAIT)
        } else if span.kind == SpanKind::CutWait {
            Stroke::new(1.5, CANCELLED)
        } else {
            Stroke::new(1.0, color)
        };
        // At least about a pixel wide so short attempts stay visible.
        let length = (span.end_ms - span.start_ms).max(ms_per_px);
        let bar = Bar::new(lane, length)
            .base_offset(span.start_ms)
            .width(thickness)
            .fill(color)
            .stroke(stroke)
            .name(span_name(span, timeline));
        by_kind.entry(span.kind).or_default().push(bar);
    }
    // Common kinds first, so rare ones (errors, stops, the success) are drawn on top.
    let mut kinds: Vec<SpanKind> = by_kind.keys().copied().collect();
    kinds.sort_by_key(|k| draw_order(*k));
    for kind in kinds {
        let Some(bars) = by_kind.remove(&kind) else {
            continue;
        };
        plot_ui.bar_chart(
            BarChart::new(kind_name(kind), bars)
                .horizontal()
                .color(kind_color(kind))
                .element_formatter(Box::new(|bar, _| bar.name.clone())),
        );
    }
}

/// Diagonal hatching over measured waits wide enough to show it (one zig-zag line per wait,
/// at most [`MAX_HATCHED`] waits a frame), so waits read as time spent idle, not as work.
fn add_hatching(plot_ui: &mut egui_plot::PlotUi<'_>, all: &[GanttSpan], ms_per_px: f64) {
    let wide: Vec<&GanttSpan> = all
        .iter()
        .filter(|s| {
            s.kind == SpanKind::Wait && (s.end_ms - s.start_ms) / ms_per_px >= MIN_HATCH_WIDTH
        })
        .take(MAX_HATCHED)
        .collect();
    let step = HATCH_STEP_PX * ms_per_px;
    let (low, high) = (
        WAIT_LANE - WAIT_THICKNESS / 2.0,
        WAIT_LANE + WAIT_THICKNESS / 2.0,
    );
    for span in wide {
        let mut points = Vec::new();
        let mut x = span.start_ms;
        let mut up = true;
        while x <= span.end_ms {
            points.push([x, if up { low } else { high }]);
            up = !up;
            x += step;
        }
        plot_ui.line(
            egui_plot::Line::new("", points)
                .color(WAIT.gamma_multiply(0.9))
                .width(1.0)
                .allow_hover(false),
        );
    }
}

/// What text labels need to know about the plot.
#[derive(Debug, Clone, Copy)]
struct LabelStyle {
    /// Ms per screen point at the current zoom.
    ms_per_px: f64,
    /// Right edge of the visible x range, ms.
    x_max: f64,
    /// Dark theme (label colours).
    dark_mode: bool,
}

/// Wait labels (`1000 ms`, or `2000 ms planned · 1.2 s left` for the running wait) where
/// they fit inside their wait, and attempt labels (`#2 503`) when attempts are far enough apart.
fn add_labels(
    plot_ui: &mut egui_plot::PlotUi<'_>,
    all: &[GanttSpan],
    timeline: &Timeline,
    now: Instant,
    style: LabelStyle,
) {
    let LabelStyle {
        ms_per_px,
        x_max,
        dark_mode,
    } = style;
    let rows = timeline.attempts();
    let mut labels = 0;
    let mut next_attempt_label_x = f64::NEG_INFINITY;
    for span in all {
        if labels >= MAX_LABELS {
            break;
        }
        let width_px = (span.end_ms - span.start_ms) / ms_per_px;
        match span.kind {
            SpanKind::Wait | SpanKind::PlannedWait | SpanKind::CutWait if span.rows.len() == 1 => {
                if width_px < MIN_LABEL_WIDTH {
                    continue;
                }
                let Some(row) = rows.get(span.rows.start) else {
                    continue;
                };
                let Some(wait) = &row.wait else { continue };
                let text = match (wait.actual_ms, timeline.remaining_ms(wait, now)) {
                    (Some(ms), _) if wait.interrupted => format!(
                        "{} of {} planned · cut short",
                        format_ms(ms),
                        format_ms(wait.planned_ms as f64)
                    ),
                    (Some(ms), _) => format_ms(ms),
                    (None, Some(left)) if width_px >= MIN_LABEL_WIDTH * 2.5 => format!(
                        "{} planned · {} left",
                        format_ms(wait.planned_ms as f64),
                        format_secs(left)
                    ),
                    (None, _) => format_ms(wait.planned_ms as f64),
                };
                // Only a label that fits in its wait (the short form, else none): a wider one
                // spilled over its neighbours' at 800 points.
                let fits = |t: &str| t.chars().count() as f64 * LABEL_CHAR_WIDTH + 6.0 <= width_px;
                let text = if fits(&text) {
                    text
                } else {
                    format_ms(wait.actual_ms.unwrap_or(wait.planned_ms as f64))
                };
                if !fits(&text) {
                    continue;
                }
                let mid = f64::midpoint(span.start_ms, span.end_ms);
                plot_ui
                    .text(Text::new("", PlotPoint::new(mid, WAIT_LANE - 0.38), text).color(WAIT));
                labels += 1;
            }
            SpanKind::Attempt(class) if span.rows.len() == 1 => {
                let x_px = span.start_ms / ms_per_px;
                if x_px < next_attempt_label_x {
                    continue;
                }
                let Some(row) = rows.get(span.rows.start) else {
                    continue;
                };
                let text = format!("#{} {}", row.number, row.result_label());
                let text_px = text.chars().count() as f64 * LABEL_CHAR_WIDTH;
                next_attempt_label_x = x_px + text_px + 10.0;
                // Near the right edge the label ends at the bar instead of starting there.
                let anchor = if (x_max - span.start_ms) / ms_per_px < text_px + 4.0 {
                    egui::Align2::RIGHT_CENTER
                } else {
                    egui::Align2::LEFT_CENTER
                };
                plot_ui.text(
                    Text::new("", PlotPoint::new(span.start_ms, ATTEMPT_LANE + 0.45), text)
                        .anchor(anchor)
                        .color(class_text_color(class, dark_mode)),
                );
                labels += 1;
            }
            _ => {}
        }
    }
}
