//! The name/value table used for query parameters, headers and form fields: enabled and secret
//! flags per row, secret values masked unless the row's "show" toggle is on.

use super::field_id::keyed;
use crate::model::KeyValue;
use egui::Ui;
use std::collections::HashSet;

/// Which rows currently show their secret value (UI-only, never persisted).
#[derive(Debug, Default)]
pub struct RevealedSecrets {
    shown: HashSet<(String, usize)>,
}

impl RevealedSecrets {
    fn is_shown(&self, table: &str, row: usize) -> bool {
        self.shown.contains(&(table.to_owned(), row))
    }

    fn set(&mut self, table: &str, row: usize, shown: bool) {
        let key = (table.to_owned(), row);
        if shown {
            self.shown.insert(key);
        } else {
            self.shown.remove(&key);
        }
    }
}

/// Draws the table named `table` (`"header"`, `"query"`, `"form field"`); rows are labelled
/// for accessibility as `"{table} {n} name"`, `"{table} {n} value"`, `"{table} {n} enabled"`,
/// `"{table} {n} secret"`, `"{table} {n} show"` (n 1-based). Returns true when anything changed.
pub fn kv_table(
    ui: &mut Ui,
    table: &str,
    rows: &mut Vec<KeyValue>,
    revealed: &mut RevealedSecrets,
) -> bool {
    let mut changed = false;
    let mut remove = None;
    // The row *Add …* made last frame: its name field gets the keyboard, so typing goes on.
    let focus_key = super::field_id::field_id(&format!("request.{table}.new_row"));
    let focus_row = ui.ctx().data(|d| d.get_temp::<usize>(focus_key));
    // Fixed columns: [on] name value [secret][show] [x]; text fields share what is left. The
    // show slot is kept on every row, so a row that turns secret as its name is typed does
    // not move or cut its fields.
    let fields = (ui.available_width() - 155.0).max(120.0);
    let height = ui.spacing().interact_size.y;
    if !rows.is_empty() {
        ui.horizontal(|ui| {
            let small = |t: &str| egui::RichText::new(t).small().weak();
            ui.add_sized(
                [ui.spacing().interact_size.y, 12.0],
                egui::Label::new(small("on")),
            );
            ui.add_sized([fields * 0.4, 12.0], egui::Label::new(small("name")));
            ui.add_sized([fields * 0.6, 12.0], egui::Label::new(small("value")));
            ui.label(small("secret"));
        });
    }
    for (i, row) in rows.iter_mut().enumerate() {
        let n = i + 1;
        // Ids from the row's field path (`request.header[2]`), not from what is drawn above.
        keyed(ui, &format!("request.{table}[{i}]"), |ui| {
            ui.horizontal(|ui| {
                changed |= ui
                    .add(egui::Checkbox::without_text(&mut row.enabled))
                    .accessible_name(format!("{table} {n} enabled"))
                    .on_hover_text("send this row")
                    .changed();
                let name = ui
                    .add_sized(
                        [fields * 0.4, height],
                        egui::TextEdit::singleline(&mut row.name).hint_text("name"),
                    )
                    .accessible_name(format!("{table} {n} name"));
                if focus_row == Some(i) {
                    if name.has_focus() {
                        ui.ctx().data_mut(|d| d.remove_temp::<usize>(focus_key));
                    } else {
                        name.request_focus();
                        ui.ctx().request_repaint();
                    }
                }
                changed |= name.changed();
                // The one rule (DESIGN.md §9): header names for headers, parameter names for
                // query parameters and form fields.
                let secret = if table == "header" {
                    row.is_secret()
                } else {
                    row.is_secret_param()
                };
                let shown = revealed.is_shown(table, i);
                changed |= ui
                    .add_sized(
                        [fields * 0.6, height],
                        egui::TextEdit::singleline(&mut row.value)
                            .hint_text("value")
                            .password(secret && !shown),
                    )
                    .accessible_name(format!("{table} {n} value"))
                    .changed();
                // A row secret by its name is secret whatever the flag: its box shows it ticked,
                // greyed out, so what the table says is what Send and the files do.
                let by_name = secret && !row.secret;
                let mut ticked = secret;
                let flag = if by_name { &mut ticked } else { &mut row.secret };
                changed |= ui
                .add_enabled(!by_name, egui::Checkbox::without_text(flag))
                .accessible_name(format!("{table} {n} secret"))
                .on_hover_text(
                    "secret: masked here, never written to a file (\"Remember secrets\" keeps it in the OS keyring) \
                     (Authorization, Cookie, *token*, *secret*, *session* headers and token, key, sig, code … parameters are always secret)",
                )
                .on_disabled_hover_text("always secret: its name is a secret one (Authorization, Cookie, *token*, *secret*, *session*, *-key headers; token, key, sig, code … parameters)")
                .changed();
                let mut show = shown;
                let toggle = egui::Button::selectable(show, egui::RichText::new("show").small());
                let toggled = ui.add_visible(secret, toggle);
                if secret
                    && toggled
                        .accessible_name(format!("{table} {n} show"))
                        .on_hover_text("show the secret value")
                        .clicked()
                {
                    show = !show;
                    revealed.set(table, i, show);
                }
                if ui
                    .small_button("x")
                    .accessible_name(format!("{table} {n} remove"))
                    .on_hover_text("remove this row")
                    .clicked()
                {
                    remove = Some(i);
                }
            })
        });
    }
    if let Some(i) = remove {
        rows.remove(i);
        revealed.shown.clear();
        changed = true;
    }
    if ui.button(format!("Add {table}")).clicked() {
        rows.push(KeyValue::new("", ""));
        ui.ctx()
            .data_mut(|d| d.insert_temp(focus_key, rows.len() - 1));
        ui.ctx().request_repaint();
        changed = true;
    }
    changed
}
