//! The labelled controls the editors, modals and panels share: a button with its tooltip, a
//! labelled picker (combo box), a labelled text row, an error line, and the frame of a modal
//! dialog. Each is drawn one way everywhere, and its accessible name is its visible label.

use super::field_id::{field_id, keyed};
use egui::{Response, Ui, Widget, WidgetText};

/// A button with a tooltip, greyed out unless `enabled`; true when clicked.
pub fn button(
    ui: &mut Ui,
    enabled: bool,
    text: impl Into<WidgetText>,
    tooltip: impl Into<WidgetText>,
) -> bool {
    ui.add_enabled(enabled, egui::Button::new(text))
        .on_hover_text(tooltip)
        .clicked()
}

/// A row of buttons (text, tooltip, answer); the answer of the one clicked.
pub fn answer_buttons<T: Copy>(ui: &mut Ui, answers: &[(&str, &str, T)]) -> Option<T> {
    ui.horizontal(|ui| {
        let mut clicked = None;
        for &(text, tooltip, answer) in answers {
            if button(ui, true, text, tooltip) {
                clicked = Some(answer);
            }
        }
        clicked
    })
    .inner
}

/// A row `label [value ▾]`: a combo box over `choices` (value, text, tooltip; an empty tooltip
/// shows none), named by `label`, its id from `id_salt`. The combo box's response, marked
/// changed when a choice changed the value.
pub fn picker<T: PartialEq + Copy>(
    ui: &mut Ui,
    id_salt: impl egui::AsIdSalt,
    label: &str,
    value: &mut T,
    choices: &[(T, &str, &str)],
) -> Response {
    ui.horizontal(|ui| {
        let l = ui.label(label);
        let selected = choices
            .iter()
            .find(|(v, _, _)| v == value)
            .map_or("?", |(_, t, _)| t);
        let mut changed = false;
        let mut r = egui::ComboBox::from_id_salt(id_salt)
            .selected_text(selected)
            .show_ui(ui, |ui| {
                for (v, text, tip) in choices {
                    let mut r = ui.selectable_value(value, *v, *text);
                    if !tip.is_empty() {
                        r = r.on_hover_text(*tip);
                    }
                    changed |= r.changed();
                }
            })
            .response
            .labelled_by(l.id);
        if changed {
            r.mark_changed();
        }
        r
    })
    .inner
}

/// A checkbox `label` with tooltip `tip`, its ids from the field path `path`; true when toggled.
pub fn check(ui: &mut Ui, path: &str, value: &mut bool, label: &str, tip: &str) -> bool {
    keyed(ui, path, |ui| {
        ui.checkbox(value, label).on_hover_text(tip).changed()
    })
}

/// A row `label [widget]`, the widget named by the label; the widget's response.
pub fn labelled(ui: &mut Ui, label: &str, widget: impl Widget) -> Response {
    ui.horizontal(|ui| {
        let l = ui.label(label);
        ui.add(widget).labelled_by(l.id)
    })
    .inner
}

/// A row `question [yes] [no]`, `yes` greyed out unless `enabled`: `Some(true)` when `yes` was
/// clicked, `Some(false)` for `no`.
pub fn confirm_row(
    ui: &mut Ui,
    question: &str,
    (yes, enabled): (&str, bool),
    no: &str,
) -> Option<bool> {
    ui.horizontal_wrapped(|ui| {
        ui.label(question);
        let yes = ui.add_enabled(enabled, egui::Button::new(yes)).clicked();
        let no = ui.button(no).clicked();
        (yes || no).then_some(yes)
    })
    .inner
}

/// A row of tabs (value, label, tooltip) choosing `value`.
pub fn tab_row<T: PartialEq + Copy>(ui: &mut Ui, value: &mut T, tabs: &[(T, &str, &str)]) {
    ui.horizontal(|ui| {
        for &(tab, label, tip) in tabs {
            ui.selectable_value(value, tab, label).on_hover_text(tip);
        }
    });
}

/// A row `label [text field]` editing `value` at the field path `path` (its id), as wide as
/// the row allows; the field's response (named by `label`).
pub fn text_row(ui: &mut Ui, path: &str, label: &str, value: &mut String) -> Response {
    let field = egui::TextEdit::singleline(value).id(field_id(path));
    labelled(ui, label, field.desired_width(f32::INFINITY))
}

/// `text` in the theme's error colour, when there is one.
pub fn error_line(ui: &mut Ui, text: Option<&str>) {
    if let Some(text) = text {
        ui.colored_label(ui.visuals().error_fg_color, text);
    }
}

/// A modal dialog `id` titled `title`, at most `max_width` points wide, with `add` drawn
/// inside: what `add` returned, and whether the user dismissed the modal (Esc, a click
/// outside).
pub fn modal<R>(
    ctx: &egui::Context,
    id: &str,
    max_width: f32,
    title: &str,
    add: impl FnOnce(&mut Ui) -> R,
) -> (R, bool) {
    let shown = egui::Modal::new(egui::Id::unique(id)).show(ctx, |ui| {
        ui.set_max_width(max_width);
        ui.heading(title);
        add(ui)
    });
    let dismissed = shown.should_close();
    (shown.inner, dismissed)
}
