//! The workbench's side of the Batch tab: attaching its service, the list picker, and opening
//! an item's run in the timeline (through the History panel's reader).

use super::WorkbenchState;
use crate::service::BatchService;
use crate::ui::batch::BatchAction;
use crate::ui::file_dialogs::DialogPurpose;

/// Which view fills the centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CentreTab {
    /// The runs of this session.
    Timeline,
    /// Every recorded run.
    History,
    /// Batches.
    Batch,
    /// The strategy lab.
    Lab,
}

impl WorkbenchState {
    /// Connects the Batch tab to the batch service.
    pub fn attach_batch(&mut self, service: BatchService) {
        self.batch.attach(service);
    }

    /// Says in the Batch tab why batches are not available.
    pub fn set_batch_unavailable(&mut self, reason: String) {
        self.batch.set_unavailable(reason);
    }

    /// Whether the centre shows the Batch tab.
    pub fn batch_shown(&self) -> bool {
        self.batch_shown
    }

    /// Shows the Batch tab (`true`) or the timeline.
    pub fn show_batch(&mut self, shown: bool) {
        self.batch_shown = shown;
        if shown {
            self.layout.history_shown = false;
            self.lab_shown = false;
        }
    }

    /// Does what the Batch tab asked: pick a list, or open an item's run (read from the
    /// history, then shown in the timeline like a run opened from the History panel).
    pub(super) fn on_batch_actions(&mut self, actions: Vec<BatchAction>) {
        for action in actions {
            match action {
                BatchAction::PickList => self.dialogs.request(DialogPurpose::BatchList),
                BatchAction::OpenRun(id) => {
                    self.batch_shown = false;
                    self.history.open_run(id);
                }
            }
        }
    }
}
