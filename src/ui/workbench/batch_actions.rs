//! The workbench's side of the Batch tab: the list picker, and opening
//! an item's run in the timeline (through the History panel's reader).

use super::WorkbenchState;
use crate::ui::batch::BatchAction;
use crate::ui::file_dialogs::DialogPurpose;
use crate::ui::persistence::CentreTab;

impl WorkbenchState {
    /// Whether the centre shows the Batch tab.
    pub fn batch_shown(&self) -> bool {
        self.layout.centre == CentreTab::Batch
    }

    /// Shows the Batch tab (`true`) or the timeline.
    pub fn show_batch(&mut self, shown: bool) {
        if shown {
            self.layout.centre = CentreTab::Batch;
        } else if self.batch_shown() {
            self.layout.centre = CentreTab::Timeline;
        }
    }

    /// The batch start-up line in the status line: shown once the first list of batches
    /// arrives (with the Batch tab, when a batch the window was working is resumed by itself),
    /// then kept current while the status line still shows it, and cleared once nothing it
    /// names is left.
    pub(super) fn follow_batch_startup_line(&mut self) {
        if let Some(line) = self.batch.take_startup_line() {
            if self.batch.resuming_at_startup().is_some() {
                self.show_batch(true);
            }
            self.status = Some((false, line.clone()));
            self.batch_line = Some(line);
            return;
        }
        let Some(shown) = self.batch_line.clone() else {
            return;
        };
        if self.status.as_ref() != Some(&(false, shown.clone())) {
            // Something else took the status line.
            self.batch_line = None;
            return;
        }
        match self.batch.startup_line() {
            Some(now) if now == shown => {}
            Some(now) => {
                self.status = Some((false, now.clone()));
                self.batch_line = Some(now);
            }
            None => {
                self.status = None;
                self.batch_line = None;
            }
        }
    }

    /// Does what the Batch tab asked: pick a list, or open an item's run (read from the
    /// history, then shown in the timeline like a run opened from the History panel).
    pub(super) fn on_batch_actions(&mut self, actions: Vec<BatchAction>) {
        for action in actions {
            match action {
                BatchAction::PickList => self.dialogs.request(DialogPurpose::BatchList),
                BatchAction::OpenRun(id) => {
                    self.layout.centre = CentreTab::Timeline;
                    self.history.open_run(id);
                }
            }
        }
    }
}
