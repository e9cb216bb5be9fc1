//! Tables of rows whose cells are plain text and whose whole row is one click target (the
//! History list and the Batch table): a click or double click on a cell's text counts for the row.

use egui::Sense;
use egui_extras::{Column, TableBuilder, TableRow};

/// Height of one row, points: a line of body text and some air.
pub fn row_height(ui: &egui::Ui) -> f32 {
    ui.text_style_height(&egui::TextStyle::Body) + 6.0
}

/// A striped table `id_salt` of clickable rows filling the space below, one column per width
/// in `widths` (points; `0.0`: the rest of the row, clipped).
pub fn click_table<'a>(ui: &'a mut egui::Ui, id_salt: &str, widths: &[f32]) -> TableBuilder<'a> {
    let mut table = TableBuilder::new(ui)
        .id_salt(id_salt)
        .striped(true)
        .sense(Sense::click())
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .auto_shrink([false, false]);
    for &width in widths {
        table = table.column(if width > 0.0 {
            Column::exact(width)
        } else {
            Column::remainder().clip(true)
        });
    }
    table
}

/// Draws `cells` (text, hover text) into `row`, each truncated; `Some(true)` when the row was
/// double-clicked, `Some(false)` when clicked, `None` otherwise.
pub fn click_row(row: &mut TableRow<'_, '_>, cells: Vec<(String, Option<&str>)>) -> Option<bool> {
    let mut click: Option<bool> = None;
    let mut note = |r: &egui::Response| {
        if r.double_clicked() {
            click = Some(true);
        } else if r.clicked() && click.is_none() {
            click = Some(false);
        }
    };
    for (text, hover) in cells {
        let (_, cell) = row.col(|ui| {
            let mut r = ui.add(egui::Label::new(text).truncate().sense(Sense::click()));
            if let Some(hover) = hover {
                r = r.on_hover_text(hover);
            }
            note(&r);
        });
        note(&cell);
    }
    note(&row.response());
    click
}
