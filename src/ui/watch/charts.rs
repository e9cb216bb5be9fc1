//! The selected watch's plots: runs over time (one mark per run, coloured by outcome, height =
//! attempts; missed slots on the axis), success rate per bucket, time to success p50/p95 per
//! bucket. The points were made once per load; a frame lends them to `egui_plot`.

use super::PreparedWatch;
use super::prepared::run_near;
use egui::Color32;
use egui_plot::{Line, MarkerShape, Plot, PlotPoints, Points};

const SUCCEEDED: Color32 = Color32::from_rgb(0x2e, 0x9e, 0x4f);
const FAILED: Color32 = Color32::from_rgb(0xd2, 0x3c, 0x3c);
const NEITHER: Color32 = Color32::from_rgb(0x88, 0x88, 0x88);
const MISSED: Color32 = Color32::from_rgb(0xe0, 0x9b, 0x1a);

fn plot(id: &str, height: f32, (from, to): (f64, f64)) -> Plot<'static> {
    Plot::new(id)
        .height(height)
        .include_x(from)
        .include_x(to)
        .allow_scroll(false)
        .allow_zoom(false)
        .allow_drag(false)
        .x_axis_label("seconds since the first slot")
}

/// A mark on each bucket's value, so a watch shorter than two buckets (a line of one point
/// draws nothing) still shows its value.
fn bucket_marks<'a>(name: &str, points: &'a [egui_plot::PlotPoint]) -> Points<'a> {
    Points::new(name, PlotPoints::Borrowed(points))
        .radius(2.5)
        .shape(MarkerShape::Circle)
}

/// Draws the plots of `w`; returns the id of the run clicked in the strip.
pub fn show(ui: &mut egui::Ui, w: &PreparedWatch) -> Option<String> {
    ui.strong("Runs over time (height: attempts)");
    let strip = [
        ("succeeded", SUCCEEDED),
        ("failed", FAILED),
        ("cancelled or unfinished", NEITHER),
    ];
    // The series are named in a row above the plot (as the Lab's are), so no legend covers
    // the runs.
    ui.horizontal(|ui| {
        for (name, colour) in strip {
            ui.colored_label(colour, format!("● {name}"));
        }
        ui.colored_label(MISSED, "✕ missed slot");
    });
    let clicked = plot("watch.strip", 140.0, w.x_span)
        .y_axis_label("attempts")
        .include_y(0.0)
        .show(ui, |p| {
            for ((name, colour), points) in strip.into_iter().zip(&w.strip) {
                p.points(
                    Points::new(name, PlotPoints::Borrowed(points))
                        .color(colour)
                        .radius(3.0)
                        .shape(MarkerShape::Circle),
                );
            }
            p.points(
                Points::new("missed slot", PlotPoints::Borrowed(&w.missed))
                    .color(MISSED)
                    .radius(4.0)
                    .shape(MarkerShape::Cross),
            );
            if p.response().clicked() {
                p.pointer_coordinate()
            } else {
                None
            }
        })
        .inner;
    let t = &w.figures.time_to_success;
    let time_to_success = if t.count == 0 {
        "n/a (no run succeeded)".to_owned()
    } else {
        format!(
            "p50 {}, p95 {}",
            crate::report::duration_text(t.p50_ms),
            crate::report::duration_text(t.p95_ms)
        )
    };
    ui.label(format!(
        "success rate {} · time to success {time_to_success} ({} s buckets)",
        w.figures.success_rate.text(),
        w.figures.buckets.width_ms / 1000,
    ));
    ui.columns(2, |cols| {
        cols[0].strong("Success rate per bucket (%)");
        plot("watch.success_rate", 120.0, w.x_span)
            .include_y(0.0)
            .include_y(100.0)
            .show(&mut cols[0], |p| {
                p.line(
                    Line::new("success rate", PlotPoints::Borrowed(&w.success_rate))
                        .color(SUCCEEDED),
                );
                p.points(bucket_marks("success rate", &w.success_rate).color(SUCCEEDED));
            });
        cols[1].strong("Time to success per bucket (ms): p50, p95");
        plot("watch.time_to_success", 120.0, w.x_span)
            .include_y(0.0)
            .show(&mut cols[1], |p| {
                for (name, points) in ["p50", "p95"].into_iter().zip(&w.time_to_success) {
                    p.line(Line::new(name, PlotPoints::Borrowed(points)));
                    p.points(bucket_marks(name, points));
                }
            });
    });
    clicked.and_then(|at| run_near(&w.runs, at.x).map(str::to_owned))
}
