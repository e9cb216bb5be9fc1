//! The modal asking before unsaved profile edits are lost.

use egui::{Id, Ui};

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmAnswer {
    /// Throw the edits away and go on.
    Discard,
    /// Keep the edits; abandon the action.
    KeepEditing,
}

/// Shows the modal explaining `what` will replace the edited profile; `None` while unanswered.
pub fn confirm_discard(ui: &Ui, profile_name: &str, what: &str) -> Option<ConfirmAnswer> {
    let mut answer = None;
    let modal = egui::Modal::new(Id::unique("confirm_discard")).show(ui.ctx(), |ui| {
        ui.heading("Unsaved changes");
        ui.label(format!(
            "\"{profile_name}\" has unsaved changes. {what} will replace it and the changes will be lost."
        ));
        ui.horizontal(|ui| {
            if ui.button("Discard changes").clicked() {
                answer = Some(ConfirmAnswer::Discard);
            }
            if ui.button("Keep editing").clicked() {
                answer = Some(ConfirmAnswer::KeepEditing);
            }
        });
    });
    if answer.is_none() && modal.should_close() {
        answer = Some(ConfirmAnswer::KeepEditing);
    }
    answer
}
