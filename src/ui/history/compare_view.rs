//! Two recorded runs side by side: one plot with run A's lane over run B's (attempts coloured
//! by verdict, waits grey), and a table of their attempts (status, planned and measured wait).

use super::list_view::short_id;
use crate::model::AttemptRow;
use crate::model::Verdict;
use crate::store::StoredRun;
use crate::ui::controls::button;
use egui::{Color32, RichText};
use egui_extras::{Column, TableBuilder};
use egui_plot::{Bar, BarChart, Plot};

/// Accessible name of the comparison plot.
pub const COMPARE_PLOT_LABEL: &str = "Comparison plot";
/// Lane of run A (top) and run B.
const LANES: [f64; 2] = [1.0, 0.0];

/// Draws the comparison of `runs` (a slot is `None` while it loads); returns true when the
/// user goes back to the list.
pub fn show(ui: &mut egui::Ui, runs: &[Option<Box<StoredRun>>; 2]) -> bool {
    let back = button(ui, true, "Back to the list", "leave the comparison");
    let (Some(a), Some(b)) = (&runs[0], &runs[1]) else {
        ui.label("Loading the two runs…");
        return back;
    };
    for (name, run) in [("A", a), ("B", b)] {
        let r = &run.run;
        ui.add(
            egui::Label::new(format!(
                "{name}: {} {} · {} · {} · {} · seed {} · {}",
                r.method,
                r.url,
                r.outcome.map_or(crate::store::RUNNING, |o| o.id()),
                crate::model::counted(u64::from(r.attempts), "attempt", "attempts"),
                r.elapsed_ms
                    .map_or_else(|| "–".to_owned(), |ms| format!("{ms:.0} ms")),
                r.seed,
                short_id(&r.id),
            ))
            .truncate(),
        );
    }
    plot(ui, a, b);
    ui.separator();
    // Sideways scroll in narrow windows, so the last column is never cut.
    crate::ui::theme::sideways_scroll(ui, "history.compare_table_h", |ui| table(ui, a, b));
    back
}

fn verdict_color(verdict: &Verdict) -> Color32 {
    match verdict {
        Verdict::Success { .. } => Color32::from_rgb(0x2e, 0x9d, 0x55),
        Verdict::Retry { .. } => Color32::from_rgb(0xe0, 0x8e, 0x1b),
        Verdict::Stop { .. } => Color32::from_rgb(0xd0, 0x3b, 0x3b),
    }
}

/// Ms from a run's start to the end of its last attempt or wait.
fn extent_ms(run: &StoredRun) -> f64 {
    run.fold
        .attempts
        .iter()
        .map(|at| {
            let wait = at.wait.as_ref().map_or(0.0, |w| {
                w.offset_ms - at.offset_ms + w.actual_ms.unwrap_or(w.planned_ms as f64)
            });
            at.offset_ms + at.duration_ms().unwrap_or(0.0).max(wait)
        })
        .fold(0.0, f64::max)
}

fn plot(ui: &mut egui::Ui, a: &StoredRun, b: &StoredRun) {
    // Attempts of a few ms beside waits of seconds stay visible: at least 1/120 of the plot.
    let min_attempt = (extent_ms(a).max(extent_ms(b)) / 120.0).max(0.5);
    let mut attempt_bars = Vec::new();
    let mut wait_bars = Vec::new();
    for (lane, run, name) in [(LANES[0], a, "A"), (LANES[1], b, "B")] {
        for (at, r) in run
            .fold
            .attempts
            .iter()
            .filter_map(|a| Some((a, a.result.as_ref()?)))
        {
            attempt_bars.push(
                Bar::new(lane, r.timings.total_ms.max(min_attempt))
                    .base_offset(at.offset_ms)
                    .width(0.5)
                    .fill(verdict_color(&r.verdict))
                    .name(format!(
                        "{name} attempt {}: {}",
                        at.number,
                        r.outcome.label()
                    )),
            );
            if let Some(w) = &at.wait {
                let length = w.actual_ms.unwrap_or(w.planned_ms as f64);
                wait_bars.push(
                    Bar::new(lane, length.max(0.5))
                        .base_offset(w.offset_ms)
                        .width(0.25)
                        .fill(Color32::from_gray(150))
                        .name(format!(
                            "{name} wait {}: planned {} ms, measured {}",
                            w.explanation.retry,
                            w.planned_ms,
                            w.actual_ms
                                .map_or_else(|| "–".to_owned(), |m| format!("{m:.0} ms"))
                        )),
                );
            }
        }
    }
    let height = (ui.available_height() * 0.35).clamp(110.0, 220.0);
    let response = Plot::new("history.compare_plot")
        .height(height)
        .allow_zoom([true, false])
        .allow_drag([true, false])
        .allow_scroll(false)
        .show_grid([true, false])
        .include_y(-0.6)
        .include_y(1.6)
        .y_axis_formatter(|mark, _| match mark.value {
            v if (v - LANES[0]).abs() < 0.01 => "A".into(),
            v if (v - LANES[1]).abs() < 0.01 => "B".into(),
            _ => String::new(),
        })
        .x_axis_formatter(|mark, _| format!("{:.0} ms", mark.value))
        .show(ui, |plot_ui| {
            // Waits first, so the attempts (widened to stay visible) are drawn over them.
            plot_ui.bar_chart(
                BarChart::new("waits", wait_bars)
                    .horizontal()
                    .color(Color32::from_gray(150))
                    .element_formatter(Box::new(|bar, _| bar.name.clone())),
            );
            plot_ui.bar_chart(
                BarChart::new("attempts", attempt_bars)
                    .horizontal()
                    .element_formatter(Box::new(|bar, _| bar.name.clone())),
            );
        });
    response
        .response
        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Figure, true, COMPARE_PLOT_LABEL));
}

/// The status (`503`, `connect`, …), planned wait and measured wait of attempt `a` (blank
/// when the run has no such attempt or wait).
fn cells(a: Option<&AttemptRow>) -> [String; 3] {
    let wait = a.and_then(|a| a.wait.as_ref());
    [
        a.and_then(AttemptRow::short_label).unwrap_or_default(),
        wait.map_or_else(String::new, |w| format!("{} ms", w.planned_ms)),
        wait.and_then(|w| w.actual_ms)
            .map_or_else(String::new, |m| format!("{m:.1} ms")),
    ]
}

fn table(ui: &mut egui::Ui, a: &StoredRun, b: &StoredRun) {
    let rows = a.fold.attempts.len().max(b.fold.attempts.len());
    let height = ui.text_style_height(&egui::TextStyle::Body) + 6.0;
    TableBuilder::new(ui)
        .id_salt("history.compare_table")
        .striped(true)
        .auto_shrink([true, false])
        .column(Column::exact(56.0))
        .columns(Column::exact(78.0), 6)
        .header(height, |mut header| {
            for title in [
                "Attempt",
                "A status",
                "A planned",
                "A measured",
                "B status",
                "B planned",
                "B measured",
            ] {
                header.col(|ui| {
                    ui.label(RichText::new(title).strong());
                });
            }
        })
        .body(|body| {
            body.rows(height, rows, |mut row| {
                let i = row.index();
                let (x, y) = (a.fold.attempts.get(i), b.fold.attempts.get(i));
                let number = (i + 1).to_string();
                for text in std::iter::once(number).chain(cells(x)).chain(cells(y)) {
                    row.col(|ui| {
                        ui.label(text);
                    });
                }
            });
        });
}
