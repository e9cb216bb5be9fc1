//! The History list: filters, actions on the selected run, the virtualised table (only the rows
//! on screen are drawn, only a page around them is held) and the retention footer.

use super::{HistoryPanel, Purpose, format_bytes};
use crate::service::HistoryRequest;
use crate::store::{OutcomeFilter, RUNNING, RunSort, RunSummary};
use crate::ui::click_row::{click_row, click_table, row_height};
use crate::ui::controls::{answer_buttons, button, picker};
use crate::ui::panel_parts::{hinted_field, labelled, message_line};
use egui::RichText;

/// Below this width (points) the list drops its method and elapsed columns.
pub const NARROW_BELOW: f32 = 560.0;

/// Draws the list view of `panel`.
pub fn show(panel: &mut HistoryPanel, ui: &mut egui::Ui) {
    if panel.service.is_none() {
        ui.label(
            panel
                .problem
                .as_deref()
                .unwrap_or("No history: runs are not recorded."),
        );
        return;
    }
    let (query, date_problem) = panel.filters.query();
    let filters_before = panel.filters.clone();
    filters_ui(panel, ui);
    actions_ui(panel, ui);
    if let Some((is_error, text)) = panel.message() {
        message_line(ui, is_error, text);
    }
    if let Some(p) = &date_problem {
        ui.colored_label(ui.visuals().warn_fg_color, p);
    }
    egui::Panel::bottom("history_footer")
        .resizable(false)
        .show(ui, |ui| footer_ui(panel, ui));
    let scroll_top = panel.filters != filters_before;
    table_ui(panel, ui, &query, scroll_top);
}

fn filters_ui(panel: &mut HistoryPanel, ui: &mut egui::Ui) {
    let f = &mut panel.filters;
    ui.horizontal_wrapped(|ui| {
        hinted_field(
            ui,
            ("URL contains", "history.url"),
            &mut f.url,
            "text in the URL",
            160.0,
        );
        let label = ui.label("Method");
        egui::ComboBox::from_id_salt("history.method")
            .selected_text(if f.method.is_empty() {
                "any"
            } else {
                &f.method
            })
            .width(80.0)
            .show_ui(ui, |ui| {
                // "" = any method, then the composer's common ones.
                for m in std::iter::once("").chain(crate::ui::composer::COMMON_METHODS) {
                    ui.selectable_value(
                        &mut f.method,
                        m.to_owned(),
                        if m.is_empty() { "any" } else { m },
                    );
                }
            })
            .response
            .labelled_by(label.id);
    });
    ui.horizontal_wrapped(|ui| {
        // First in its row: the picker is one group (label and box) that a wrapped row cannot
        // break, so placed after other fields it ran past a narrow panel's edge and widened
        // every row below it.
        let outcomes: Vec<_> = std::iter::once((None, "any", ""))
            .chain(OutcomeFilter::ALL.map(|o| (Some(o), o.id(), "")))
            .collect();
        picker(ui, "history.outcome", "Outcome", &mut f.outcome, &outcomes);
        for (text, value, salt) in [
            ("From", &mut f.since, "history.since"),
            ("To", &mut f.until, "history.until"),
        ] {
            hinted_field(ui, (text, salt), value, "YYYY-MM-DD", 100.0)
                .on_hover_text("a local date; both ends included; empty = no limit");
        }
        if button(ui, true, "Refresh", "read the list again") {
            panel.cache.invalidate();
        }
    });
}

fn actions_ui(panel: &mut HistoryPanel, ui: &mut egui::Ui) {
    let selected = panel.selected.clone();
    let has = selected.is_some();
    ui.horizontal_wrapped(|ui| {
        #[rustfmt::skip]
        let opens = [
            ("Open", "show the selected run in the timeline, read-only (or double-click it)", Purpose::View),
            ("Re-run", "put the run's request and profile into the composer and send it", Purpose::Rerun),
        ];
        for (label, tip, purpose) in opens {
            if button(ui, has, label, tip)
                && let Some(id) = selected.clone()
            {
                panel.open(id, purpose);
            }
        }
        ui.checkbox(&mut panel.same_seed, "Same seed")
            .on_hover_text("re-run with the recorded seed (the same jitter)");
        let marked = selected.as_ref().is_some_and(|s| panel.marked.contains(s));
        if ui
            .add_enabled(
                has,
                // One label whether marked or not (shown pressed when marked), so the buttons
                // after it never move under the pointer.
                egui::Button::new("Mark for compare").selected(marked),
            )
            .on_hover_text("mark two runs, then Compare (click again to unmark)")
            .clicked()
            && let Some(id) = selected.clone()
        {
            panel.toggle_mark(&id);
        }
        if button(
            ui,
            panel.marked.len() == 2,
            "Compare",
            "the two marked runs side by side",
        ) {
            panel.start_compare();
        }
        if button(
            ui,
            has,
            "Delete…",
            "delete the selected run from the history",
        ) {
            panel.confirm_delete.clone_from(&selected);
        }
        if button(
            ui,
            true,
            super::REPORT_LABEL,
            "the flakiness report of the runs the filters select, written to a file",
        ) {
            panel.report.open = !panel.report.open;
        }
    });
    super::report_dialog::show(panel, ui);
    if let Some(id) = panel.confirm_delete.clone() {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("Delete run {} for good?", short_id(&id)),
            );
            #[rustfmt::skip]
            let answers = [("Delete run", "delete it from the history", true), ("Keep it", "keep it", false)];
            if let Some(delete) = answer_buttons(ui, &answers) {
                if delete {
                    panel.send(HistoryRequest::Delete(vec![id]));
                }
                panel.confirm_delete = None;
            }
        });
    }
}

fn footer_ui(panel: &mut HistoryPanel, ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        // 0 keeps all.
        let all_at_zero = |v: f64, _| {
            if v == 0.0 {
                "all".into()
            } else {
                format!("{v}")
            }
        };
        let days = egui::DragValue::new(&mut panel.retention.keep_days)
            .range(0..=36_500)
            .custom_formatter(all_at_zero);
        labelled(ui, "Keep days", days)
            .on_hover_text("delete runs older than this many days (0: keep all)");
        let runs = egui::DragValue::new(&mut panel.retention.keep_runs)
            .range(0..=10_000_000)
            .speed(10.0)
            .custom_formatter(all_at_zero);
        labelled(ui, "Keep runs", runs)
            .on_hover_text("keep only this many newest runs (0: keep all)");
        let rule = panel.retention.rule();
        if button(
            ui,
            rule.is_some(),
            "Apply retention",
            "delete what the rule does not keep now (also done at every start)",
        ) && let Some(rule) = rule
        {
            panel.send(HistoryRequest::Retain(rule));
        }
        let size = panel
            .cache
            .db_bytes()
            .map_or_else(|| "…".to_owned(), format_bytes);
        let total = panel
            .cache
            .total()
            .map_or_else(|| "…".to_owned(), |t| t.to_string());
        ui.add(
            egui::Label::new(format!("Database {size} · {total} runs listed"))
                .wrap_mode(egui::TextWrapMode::Extend),
        )
        .on_hover_text("the history database's size on disk, and the runs the filters select");
    });
}

fn table_ui(
    panel: &mut HistoryPanel,
    ui: &mut egui::Ui,
    query: &crate::store::RunQuery,
    scroll_top: bool,
) {
    let total = panel.cache.total().unwrap_or(0);
    let narrow = ui.available_width() < NARROW_BELOW;
    let mut visible: Option<(u64, u64)> = None;
    let mut clicked: Option<(String, bool)> = None;
    let mut sort_clicked = None;
    let height = row_height(ui);
    let selected = panel.selected.clone();
    let marked = panel.marked.clone();
    let filters = panel.filters.clone();
    // Narrow (800×600): no method and elapsed columns; the URL cell starts with the method
    // and shows the path (the whole URL on hover).
    let columns: &[(&str, RunSort, f32)] = if narrow {
        &[
            ("Started", RunSort::Started, 100.0),
            ("Outcome", RunSort::Outcome, 78.0),
            ("Att.", RunSort::Attempts, 34.0),
            ("URL", RunSort::Url, 0.0),
        ]
    } else {
        &[
            ("Started", RunSort::Started, 148.0),
            ("Method", RunSort::Method, 58.0),
            ("Outcome", RunSort::Outcome, 96.0),
            ("Att.", RunSort::Attempts, 36.0),
            ("Elapsed", RunSort::Elapsed, 76.0),
            ("URL", RunSort::Url, 0.0),
        ]
    };
    let widths: Vec<f32> = columns.iter().map(|&(_, _, width)| width).collect();
    let mut table = click_table(ui, "history.table", &widths);
    if scroll_top {
        table = table.scroll_to_row(0, Some(egui::Align::TOP));
    }
    table
        .header(height, |mut header| {
            for &(title, column, _) in columns {
                header.col(|ui| {
                    let arrow = match (filters.sort == column, filters.descending) {
                        (true, true) => " ↓",
                        (true, false) => " ↑",
                        (false, _) => "",
                    };
                    if ui
                        .add(
                            egui::Button::new(RichText::new(format!("{title}{arrow}")).strong())
                                .frame(false),
                        )
                        .on_hover_text(format!("sort by {}", title.to_lowercase()))
                        .clicked()
                    {
                        sort_clicked = Some(column);
                    }
                });
            }
        })
        .body(|body| {
            let rows = usize::try_from(total).unwrap_or(usize::MAX);
            body.rows(height, rows, |mut row| {
                let index = row.index() as u64;
                visible = Some(visible.map_or((index, index + 1), |(a, b)| {
                    (a.min(index), b.max(index + 1))
                }));
                let Some(run) = panel.cache.row(index) else {
                    row.col(|ui| {
                        ui.weak("…");
                    });
                    return;
                };
                let is_selected = selected.as_deref() == Some(run.id.as_str());
                row.set_selected(is_selected);
                let is_marked = marked.contains(&run.id);
                let mut cells: Vec<(String, Option<&str>)> = row_cells(run, narrow, is_marked)
                    .into_iter()
                    .map(|c| (c, None))
                    .collect();
                if let Some(last) = cells.last_mut() {
                    last.1 = Some(&run.url);
                }
                let any_click = click_row(&mut row, cells);
                if let Some(double) = any_click {
                    clicked = Some((run.id.clone(), double));
                }
            });
        });
    if let Some(column) = sort_clicked {
        panel.filters.sort_by(column);
    }
    if let Some((id, double)) = clicked {
        panel.selected = Some(id.clone());
        if double {
            panel.open(id, Purpose::View);
        }
    }
    let visible = visible.map_or(0..u64::from(super::PAGE_ROWS / 2), |(a, b)| a..b);
    if let Some(offset) = panel.cache.wanted(query, visible) {
        panel.send(HistoryRequest::Page {
            query: query.clone(),
            offset,
            limit: super::PAGE_ROWS,
        });
    }
}

/// The cell texts of `run`: start, method, outcome (with the last status), attempts, elapsed,
/// URL (with `[compare]` when marked); narrow: start, outcome, attempts, method + path.
fn row_cells(run: &RunSummary, narrow: bool, marked: bool) -> Vec<String> {
    let started = run
        .started_at
        .format(if narrow {
            "%m-%d %H:%M"
        } else {
            "%Y-%m-%d %H:%M:%S"
        })
        .to_string();
    let outcome = match (run.outcome, run.last_status) {
        (Some(o), Some(s)) if !narrow => format!("{} {s}", o.id()),
        (Some(o), _) => o.id().to_owned(),
        (None, _) => RUNNING.to_owned(),
    };
    let elapsed = run.elapsed_ms.map_or_else(
        || "–".to_owned(),
        |ms| {
            if ms >= 10_000.0 {
                format!("{:.1} s", ms / 1000.0)
            } else {
                format!("{ms:.0} ms")
            }
        },
    );
    let mark = if marked { "[compare] " } else { "" };
    if narrow {
        let path = crate::ui::timeline::url_path(&run.url);
        vec![
            started,
            outcome,
            run.attempts.to_string(),
            format!("{mark}{} {path}", run.method),
        ]
    } else {
        vec![
            started,
            run.method.clone(),
            outcome,
            run.attempts.to_string(),
            elapsed,
            format!("{mark}{}", run.url),
        ]
    }
}

/// The last 12 characters of a run id: its random part (UUID v7 ids begin with their start
/// time, so runs of the same minute share their first 8 characters). `history show` takes it.
pub fn short_id(id: &str) -> &str {
    id.get(id.len().saturating_sub(12)..).unwrap_or(id)
}
