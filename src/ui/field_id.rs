//! Widget ids from what a widget edits — a field path such as `profile.backoff.base_delay_ms` —
//! never from its position, so focus and caret survive rows that appear above a widget (a
//! problems box, a longer preview) while the user types.
//!
//! egui gives a widget without an explicit id the next "auto id" of its parent, which moves
//! whenever another widget is added before it. [`field_id`] is independent of the layout, and
//! [`keyed`] gives every widget inside it (checkboxes, pickers, buttons) ids derived from the path.

use egui::{Id, Ui, UiBuilder};

/// The id of the widget editing `path` (`profile.max_retries`, `request.url`, `header[2].value`).
pub fn field_id(path: &str) -> Id {
    Id::unique(("retryscope.field", path))
}

/// Draws `add` in a child `Ui` whose ids all derive from `path`, whatever came before it.
pub fn keyed<R>(ui: &mut Ui, path: &str, add: impl FnOnce(&mut Ui) -> R) -> R {
    ui.scope_builder(UiBuilder::new().scope_id(field_id(path).with("scope")), add)
        .inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_depend_on_the_path_only() {
        assert_eq!(
            field_id("profile.max_retries"),
            field_id("profile.max_retries")
        );
        assert_ne!(
            field_id("profile.max_retries"),
            field_id("profile.deadline_ms")
        );
    }

    #[test]
    fn a_keyed_widget_keeps_its_id_when_rows_appear_above_it() {
        let ctx = egui::Context::default();
        let mut ids = Vec::new();
        for extra_rows in [0, 3] {
            let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
                for i in 0..extra_rows {
                    ui.label(format!("problem {i}"));
                    let _ = ui.button("x");
                }
                ids.push(keyed(ui, "profile.max_retries", |ui| ui.button("b").id));
            });
            output.textures_delta.clear();
        }
        assert_eq!(ids[0], ids[1]);
    }
}
