//! The attempt table: one row per attempt with the wait that followed (virtualised rows).
//!
//! Column widths are chosen so that all eight columns fit about 630 points (the centre of a
//! 1280-point window between the side panels); the explanation takes what is left, truncated
//! with `…`, full text on hover. The verdict is on the result cell's hover (its colour shows
//! the verdict class).
//!
//! Ctrl+C (Cmd+C) copies the selected row as text ([`row_text`]) while no text field has the
//! keyboard and no label text is selected (those copy their own selection).

use super::colors::class_text_color;
use super::run_timeline::Timeline;
use super::units::{format_bytes, format_clock_compact, format_date_time, format_ms, format_secs};
use crate::model::{AttemptRow, WaitRow};
use egui::RichText;
use egui_extras::{Column, TableBuilder};
use std::time::Instant;

/// Each column, in order: heading (`\n` splits it over the two-line header), its hover text,
/// initial and least width, points (the explanation takes the rest of the row, at least its
/// least width).
#[rustfmt::skip]
const COLUMNS: [(&str, &str, f32, f32); 8] = [
    ("#", "attempt number; click a row to see its response", 40.0, 30.0),
    ("Start", "wall-clock start, local time with ms and UTC offset (hover a cell for the date)", 98.0, 60.0),
    ("Duration", "measured duration of the attempt", 58.0, 40.0),
    ("Result", "status code or network error kind; the colour is the verdict (hover for it)", 62.0, 36.0),
    ("Size", "response body size", 52.0, 36.0),
    ("Wait\nplanned", "the wait the policy planned after this attempt", 58.0, 40.0),
    ("Wait\nmeasured", "the wait as measured on the monotonic clock (or the countdown while it runs)", 70.0, 40.0),
    ("Explanation", "why the wait is as long as it is (hover for the full text)", 100.0, 100.0),
];

/// Width the table needs to show every column at its initial width (the explanation at its
/// least), points, with the spacing between them. In a narrower place the table scrolls
/// sideways.
pub const MIN_WIDTH: f32 = {
    let (mut width, mut i) = (6.0 * COLUMNS.len() as f32, 0);
    while i < COLUMNS.len() {
        width += COLUMNS[i].2;
        i += 1;
    }
    width
};

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
    let now = timeline.offset_at(now).unwrap_or(0.0);
    if let Some(attempt) = selected_row.and_then(|i| rows.get(i))
        && copy_requested(ui.ctx())
    {
        crate::ui::copied_toast::copy(
            ui.ctx(),
            row_text(attempt, now),
            &format!("the row of attempt {}", attempt.number),
            crate::ui::copied_toast::Secrets::Masked,
        );
    }
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
    let mut clicked = None;
    ui.spacing_mut().item_spacing.x = 6.0;
    let mut table = TableBuilder::new(ui);
    if let Some(row) = scroll_to_row {
        // Jump, do not animate: a far row would re-lay out every row on the way.
        table = table
            .scroll_to_row(row, Some(egui::Align::Center))
            .animate_scrolling(false);
    }
    table = table
        .id_salt(("timeline_table", timeline.run_id()))
        .striped(true)
        .resizable(true)
        .stick_to_bottom(timeline.is_active())
        .sense(egui::Sense::click())
        .auto_shrink(false)
        // Fit the space left above the detail pane (the default 200 pt minimum overflows it).
        .min_scrolled_height(0.0)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center));
    for (i, &(_, _, initial, least)) in COLUMNS.iter().enumerate() {
        let column = if i + 1 == COLUMNS.len() {
            Column::remainder()
        } else {
            Column::initial(initial)
        };
        table = table.column(column.at_least(least).clip(true));
    }
    table
        .header(2.0 * row_height, |mut header| {
            for (title, hint, _, _) in COLUMNS {
                header.col(|ui| {
                    ui.add(
                        egui::Label::new(RichText::new(title).strong())
                            .extend()
                            .selectable(false),
                    )
                    .on_hover_text(hint);
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

/// One cell: `text` cut with `…` to the column, not selectable (a click selects the row);
/// `hover` on hover, else the whole text when it is cut.
fn cell(ui: &mut egui::Ui, text: impl Into<egui::WidgetText>, hover: Option<String>) {
    let label = egui::Label::new(text)
        .selectable(false)
        .truncate()
        .show_tooltip_when_elided(hover.is_none());
    let response = ui.add(label);
    if let Some(hover) = hover.filter(|h| !h.is_empty()) {
        response.on_hover_text(hover);
    }
}

/// The texts of the cells, in the columns' order.
fn cell_texts(attempt: &AttemptRow, now: f64) -> [String; 8] {
    let wait = attempt.wait.as_ref();
    [
        format!("#{}", attempt.number),
        format_clock_compact(&attempt.started_at),
        attempt.duration_ms().map(format_ms).unwrap_or_default(),
        attempt.result_label(),
        attempt
            .response_bytes()
            .map(format_bytes)
            .unwrap_or_default(),
        wait.map(|w| format_ms(w.planned_ms as f64))
            .unwrap_or_default(),
        wait.map(|w| measured_wait(w, now).0).unwrap_or_default(),
        explanation_cell(attempt),
    ]
}

/// The cells after `#`.
fn cells(row: &mut egui_extras::TableRow<'_, '_>, attempt: &AttemptRow, now: f64) {
    let [
        _,
        start,
        duration,
        result,
        size,
        planned,
        measured,
        explanation,
    ] = cell_texts(attempt, now);
    let (method, url) = (&attempt.method, &attempt.url);
    let start_hover = format!("{}\n{method} {url}", format_date_time(&attempt.started_at));
    row.col(|ui| cell(ui, start, Some(start_hover)));
    let phases = attempt.result.as_ref().map_or_else(String::new, |result| {
        let error = result.outcome.error_kind();
        let phases = super::phase_waterfall::phases_tooltip(&result.timings, error);
        if phases.is_empty() {
            phases
        } else {
            format!("phases of attempt {}\n{phases}", attempt.number)
        }
    });
    row.col(|ui| cell(ui, duration, Some(phases)));
    let verdict = attempt.verdict_label();
    let hover = if verdict.is_empty() {
        result.clone()
    } else {
        format!("{result}\nverdict: {verdict}")
    };
    row.col(|ui| {
        let color = class_text_color(attempt.class(), ui.visuals().dark_mode);
        cell(ui, RichText::new(result).color(color), Some(hover));
    });
    row.col(|ui| cell(ui, size, None));
    row.col(|ui| cell(ui, planned, None));
    let measured_hover = attempt.wait.as_ref().and_then(|w| measured_wait(w, now).1);
    row.col(|ui| cell(ui, measured, Some(measured_hover.unwrap_or_default())));
    row.col(|ui| cell(ui, explanation, Some(explanation_hover(attempt))));
}

/// Whether this frame's input asks to copy the selected row: a Copy event (what the
/// platform sends for Ctrl+C / Cmd+C / the Copy key) while no text field has the keyboard and
/// no label text is selected.
fn copy_requested(ctx: &egui::Context) -> bool {
    if ctx.text_edit_focused() {
        return false;
    }
    let label_selection = ctx
        .with_plugin(|s: &mut egui::text_selection::LabelSelectionState| s.has_selection())
        .unwrap_or(false);
    !label_selection && ctx.input(|i| i.events.iter().any(|e| matches!(e, egui::Event::Copy)))
}

/// One table row as text, the cells in the columns' order separated by tabs (so it pastes into
/// a spreadsheet row), with the full explanation and the verdict after the result:
/// `#2\t14:00:01.015+01\t9 ms\t200 (success)\t2 B\t\t\t`.
pub fn row_text(attempt: &AttemptRow, now: f64) -> String {
    let mut cells = cell_texts(attempt, now);
    let verdict = attempt.verdict_label();
    if !verdict.is_empty() {
        cells[3] = format!("{} ({verdict})", cells[3]);
    }
    cells[7] = explanation_hover(attempt);
    cells.join("\t")
}

/// The measured-wait cell and, when the cell abbreviates, its hover text.
fn measured_wait(w: &WaitRow, now: f64) -> (String, Option<String>) {
    match (w.actual_ms, w.remaining_ms(now)) {
        (Some(ms), _) if w.skipped => (
            format!("{} skip", format_ms(ms)),
            Some(format!("{}: skipped with Retry now", format_ms(ms))),
        ),
        (Some(ms), _) if w.interrupted => (
            format!("{} cut", format_ms(ms)),
            Some(format!(
                "{}: cut short, the run ended during this wait",
                format_ms(ms)
            )),
        ),
        (Some(ms), _) => (format_ms(ms), None),
        (None, Some(left)) => (
            format!("{} left", format_secs(left)),
            Some(format!("{} of the planned wait left", format_secs(left))),
        ),
        (None, None) => (String::new(), None),
    }
}

/// The explanation cell: the budget's tokens (`tokens 500 → 486 · `) then the wait's explanation
/// without its `retry n: ` prefix; a refusal shows its reason.
fn explanation_cell(attempt: &AttemptRow) -> String {
    let wait = attempt
        .wait
        .as_ref()
        .map(|w| short_explanation(&w.explanation.text).to_owned());
    let refused = attempt
        .budget
        .iter()
        .find(|c| c.kind == crate::model::BudgetChangeKind::Refused)
        .map(|c| c.text.clone());
    let tail = wait.or(refused).unwrap_or_default();
    match attempt.budget_label() {
        Some(tokens) if tail.is_empty() => tokens,
        Some(tokens) => format!("{tokens} · {tail}"),
        None => tail,
    }
}

/// Every budget change's text, then the wait's full explanation, one per line.
fn explanation_hover(attempt: &AttemptRow) -> String {
    attempt
        .budget
        .iter()
        .map(|c| c.text.clone())
        .chain(attempt.wait.as_ref().map(|w| w.explanation.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The explanation without its `retry n: ` prefix (the row already says which attempt).
fn short_explanation(text: &str) -> &str {
    match text.split_once(": ") {
        Some((head, rest)) if head.starts_with("retry ") => rest,
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimum_width_is_every_initial_width_and_the_spacing() {
        let spacing = 8.0 * 6.0;
        assert!(
            (MIN_WIDTH - (40.0 + 98.0 + 58.0 + 62.0 + 52.0 + 58.0 + 70.0 + 100.0 + spacing)).abs()
                < 1e-3
        );
    }

    #[test]
    fn explanation_prefix_is_dropped_only_when_present() {
        assert_eq!(
            short_explanation("retry 2: fixed 1000 ms = 1000 ms"),
            "fixed 1000 ms = 1000 ms"
        );
        assert_eq!(short_explanation("fixed: 1000 ms"), "fixed: 1000 ms");
    }
}
