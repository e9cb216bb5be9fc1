//! Table rows whose cells are plain text and whose whole row is one click target (the History
//! list and the Batch table): a click or double click on a cell's text counts for the row.

use egui::Sense;
use egui_extras::TableRow;

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
