//! The pieces the History, Batch, Watches and Lab tabs and the timeline draw alike: a labelled
//! widget, a labelled text field with a hint, a status message, a striped grid of text, and a
//! section that starts open.

use egui::{Response, Ui, Widget};

/// `label` then `widget`, the widget named by the label (its accessible name); its response.
pub fn labelled(ui: &mut Ui, label: &str, widget: impl Widget) -> Response {
    let l = ui.label(label);
    ui.add(widget).labelled_by(l.id)
}

/// A labelled one-line text field `id_salt` editing `value`, showing `hint` while empty,
/// `width` points wide.
pub fn hinted_field(
    ui: &mut Ui,
    (label, id_salt): (&str, &str),
    value: &mut String,
    hint: &str,
    width: f32,
) -> Response {
    let field = egui::TextEdit::singleline(value)
        .id_salt(id_salt)
        .hint_text(hint)
        .desired_width(width);
    labelled(ui, label, field)
}

/// `text` in the theme's error colour when `is_error`, else weak.
pub fn message_line(ui: &mut Ui, is_error: bool, text: &str) {
    let color = if is_error {
        ui.visuals().error_fg_color
    } else {
        ui.visuals().weak_text_color()
    };
    ui.colored_label(color, text);
}

/// A striped grid `id` of text: a bold row of `titles` (none when empty), then `rows`.
pub fn text_grid<R: IntoIterator<Item = String>>(
    ui: &mut Ui,
    id: impl egui::AsIdSalt,
    titles: &[&str],
    rows: impl IntoIterator<Item = R>,
) {
    egui::Grid::new(id).striped(true).show(ui, |ui| {
        if !titles.is_empty() {
            for title in titles {
                ui.strong(*title);
            }
            ui.end_row();
        }
        for row in rows {
            for cell in row {
                ui.label(cell);
            }
            ui.end_row();
        }
    });
}

/// A collapsible section titled `title`, open at first, its id from `id_salt`, with `add` drawn
/// inside.
pub fn section(
    ui: &mut Ui,
    title: impl Into<egui::WidgetText>,
    id_salt: impl egui::AsIdSalt,
    add: impl FnOnce(&mut Ui),
) {
    egui::CollapsingHeader::new(title)
        .id_salt(id_salt)
        .default_open(true)
        .show(ui, add);
}
