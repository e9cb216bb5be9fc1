//! The part of the workbench that edits the request: the composer, the saved requests and the
//! environments, drawn in the left panel (or the narrow layout's Request tab).

use crate::ui::composer::{Composer, ComposerAction};
use crate::ui::environment_editor::EnvironmentPanel;
use crate::ui::request_library_panel::RequestLibraryPanel;

/// The request being composed and where it comes from.
pub struct RequestSide {
    /// The request composer.
    pub composer: Composer,
    /// Saved requests.
    pub requests: RequestLibraryPanel,
    /// Environments: picker and editor.
    pub environments: EnvironmentPanel,
    /// Where the composer was drawn last frame (Ctrl+Z is the composer's while the keyboard
    /// focus is in it); `None` while it is hidden.
    pub(super) rect: Option<egui::Rect>,
}

impl RequestSide {
    /// Composing `composer`; no saved requests or environments until a store is attached.
    pub(super) fn new(composer: Composer) -> Self {
        Self {
            composer,
            requests: RequestLibraryPanel::default(),
            environments: EnvironmentPanel::default(),
            rect: None,
        }
    }

    /// Draws the saved requests, the environment picker and the composer in one vertical
    /// scroll area (rows fit the panel's width: no sideways scroll can hide Send); returns the
    /// composer's actions and a status line from the saved requests.
    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
    ) -> (Vec<ComposerAction>, Option<(bool, String)>) {
        let mut status = None;
        let shown = egui::ScrollArea::vertical()
            .auto_shrink([false, true])
            .id_salt("composer_scroll")
            .show(ui, |ui| {
                status = self.requests.ui(ui, &mut self.composer);
                self.environments.picker_ui(ui);
                ui.separator();
                self.composer.ui(ui)
            });
        self.rect = Some(shown.inner_rect);
        (shown.inner, status)
    }

    /// True when Ctrl+Z belongs to the composer: no widget has the keyboard, or the one that
    /// has it was drawn inside the composer last frame (a policy field keeps its text undo).
    pub(super) fn owns_undo(&self, ctx: &egui::Context) -> bool {
        let Some(focused) = ctx.memory(egui::Memory::focused) else {
            return true;
        };
        match (self.rect, ctx.read_response(focused)) {
            (Some(rect), Some(widget)) => rect.contains(widget.rect.center()),
            _ => false,
        }
    }
}
