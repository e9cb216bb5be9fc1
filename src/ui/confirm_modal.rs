//! The modal asking before unsaved profile edits are lost: Save, Discard or Cancel.

use egui::{Id, Ui};

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmAnswer {
    /// Save the edits (to the profile's file, or Save As… when it has none), then go on.
    Save,
    /// Throw the edits away and go on.
    Discard,
    /// Keep the edits; abandon the action (also Esc or a click outside).
    Cancel,
}

/// Shows the modal explaining that `what` will replace the edited profile; `None` while
/// unanswered. `problem` (why the last Save was refused, e.g. the profile has problems) is
/// shown in the modal, which then stays open.
pub fn confirm_discard(
    ui: &Ui,
    profile_name: &str,
    what: &str,
    problem: Option<&str>,
) -> Option<ConfirmAnswer> {
    let mut answer = None;
    let modal = egui::Modal::new(Id::unique("confirm_discard")).show(ui.ctx(), |ui| {
        ui.set_max_width(520.0);
        ui.heading("Unsaved changes");
        ui.label(format!(
            "\"{profile_name}\" has unsaved changes. {what} will replace it: save the changes \
             first, or discard them?"
        ));
        if let Some(problem) = problem {
            ui.colored_label(ui.visuals().error_fg_color, problem);
        }
        ui.horizontal(|ui| {
            if ui
                .button("Save changes")
                .on_hover_text(
                    "save the profile (to its file, or choose one), then go on; a profile with \
                     problems cannot be saved",
                )
                .clicked()
            {
                answer = Some(ConfirmAnswer::Save);
            }
            if ui
                .button("Discard changes")
                .on_hover_text("throw the changes away and go on")
                .clicked()
            {
                answer = Some(ConfirmAnswer::Discard);
            }
            if ui
                .button("Cancel")
                .on_hover_text("keep editing (Esc)")
                .clicked()
            {
                answer = Some(ConfirmAnswer::Cancel);
            }
        });
    });
    if answer.is_none() && modal.should_close() {
        answer = Some(ConfirmAnswer::Cancel);
    }
    answer
}
