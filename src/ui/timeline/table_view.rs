//! The attempt table: one row per attempt with the wait that followed (virtualised rows).

use super::attempt_row::AttemptRow;
use super::colors::class_color;
use super::run_timeline::Timeline;
use super::units::{format_bytes, format_clock, format_date_time, format_ms, format_secs};
use egui::RichText;
use egui_extras::{Column, TableBuilder};
use std::time::Instant;

/// Column headings, in order.
pub const COLUMNS: [&str; 9] = [
    "#",
    "Start",
    "Duration",
    "Result",
    "Size",
    "Verdict",
    "Wait planned",
    "Wait actual",
    "Explanation",
];

/// Draws the table; only the rows in view are laid out (`TableBody::rows`), so 10,000
/// attempts cost what 20 do. Scrolls `scroll_to_row` into view when given. Returns the row
/// index the user clicked, if any.
pub fn show(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    selected_row: Option<usize>,
    scroll_to_row: Option<usize>,
    now: Instant,
) -> Option<usize> {
    let rows = timeline.attempts();
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
    let mut clicked = None;
    let mut table = TableBuilder::new(ui);
    if let Some(row) = scroll_to_row {
        // Jump, do not animate: a far row would re-lay out every row on the way.
        table = table
            .scroll_to_row(row, Some(egui::Align::Center))
            .animate_scrolling(false);
    }
    table
        .id_salt(("timeline_table", timeline.run_id()))
        .striped(true)
        .resizable(true)
        .stick_to_bottom(timeline.is_active())
        .sense(egui::Sense::click())
        .auto_shrink(false)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(Column::initial(52.0).at_least(36.0))
        .column(Column::initial(140.0).at_least(60.0).clip(true))
        .column(Column::initial(64.0).at_least(40.0))
        .column(Column::initial(90.0).at_least(40.0).clip(true))
        .column(Column::initial(60.0).at_least(40.0))
        .column(Column::initial(140.0).at_least(40.0).clip(true))
        .column(Column::initial(84.0).at_least(40.0))
        .column(Column::initial(96.0).at_least(40.0).clip(true))
        .column(Column::remainder().at_least(120.0).clip(true))
        .header(row_height + 2.0, |mut header| {
            for title in COLUMNS {
                header.col(|ui| {
                    ui.strong(title);
                });
            }
        })
        .body(|body| {
            body.rows(row_height, rows.len(), |mut row| {
                let index = row.index();
                let Some(attempt) = rows.get(index) else {
                    return;
                };
                let is_selected = selected_row == Some(index);
                row.set_selected(is_selected);
                let mut label_clicked = false;
                row.col(|ui| {
                    label_clicked = ui
                        .selectable_label(is_selected, format!("#{}", attempt.number))
                        .clicked();
                });
                cells(&mut row, attempt, now);
                if label_clicked || row.response().clicked() {
                    clicked = Some(index);
                }
            });
        });
    clicked
}

/// The cells after `#`.
fn cells(row: &mut egui_extras::TableRow<'_, '_>, attempt: &AttemptRow, now: Instant) {
    row.col(|ui| {
        ui.label(format_clock(&attempt.started_at))
            .on_hover_text(format!(
                "{}\n{} {}",
                format_date_time(&attempt.started_at),
                attempt.method,
                attempt.url
            ));
    });
    row.col(|ui| {
        ui.label(attempt.duration_ms().map(format_ms).unwrap_or_default());
    });
    row.col(|ui| {
        ui.label(RichText::new(attempt.result_label()).color(class_color(attempt.class())));
    });
    row.col(|ui| {
        ui.label(
            attempt
                .response_bytes()
                .map(format_bytes)
                .unwrap_or_default(),
        );
    });
    row.col(|ui| {
        let verdict = attempt.verdict_label();
        ui.add(egui::Label::new(&verdict).truncate());
    });
    let wait = attempt.wait.as_ref();
    row.col(|ui| {
        if let Some(w) = wait {
            ui.label(format_ms(w.planned_ms as f64));
        }
    });
    row.col(|ui| {
        if let Some(w) = wait {
            let text = match (w.actual_ms, w.remaining_ms(now)) {
                (Some(ms), _) if w.skipped => format!("{} (skipped)", format_ms(ms)),
                (Some(ms), _) if w.interrupted => format!("{} (run ended)", format_ms(ms)),
                (Some(ms), _) => format_ms(ms),
                (None, Some(left)) => format!("{} left", format_secs(left)),
                (None, None) => String::new(),
            };
            ui.label(text);
        }
    });
    row.col(|ui| {
        if let Some(w) = wait {
            ui.add(egui::Label::new(&w.explanation.text).truncate())
                .on_hover_text(&w.explanation.text);
        }
    });
}
