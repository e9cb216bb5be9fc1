//! The policy editor: the profile's retry limits, triage (statuses, error kinds, methods) and
//! backoff, then the throttling class and the retry budget (`budget_editor`). Built-in profiles are shown read-only.

use super::backoff_editor::backoff_editor;
use super::budget_editor::{ClassesEditor, max_retries_editor};
use super::conditions_editor::{ConditionsEditor, RETRY_ON_RESPONSE, SUCCESS_WHEN};
use super::controls::{check, text_row};
use super::field_id::keyed;
use super::ms_field::optional_ms_field;
use super::typed_text::{TypedRow, TypedText};
use crate::model::{ErrorKind, OtherStatusAction, RetryProfile, StatusSet};
use crate::policy::PolicyError;
use egui::Ui;

const NON_IDEMPOTENT_TIP: &str = "POST/PATCH are otherwise retried only when provably unprocessed \
    (dns, connect, connect_timeout, tls, 429) or when an Idempotency-Key is sent";
const CONDITIONS_TIP: &str = "status set, a header (equals / regex), a JSON pointer (equals / \
    exists) and the body (contains / regex), on the kept body preview; the timeline names the \
    condition that decided";
const OTHER_STATUS_TIP: &str =
    "statuses neither success nor retryable (other 4xx, 1xx, 3xx): retry instead of stop";

/// UI-only state of the editor: the status-code texts as typed (they may be invalid).
#[derive(Debug, Default)]
pub struct PolicyEditor {
    retry_status: TypedText,
    success_status: TypedText,
    conditions: ConditionsEditor,
    classes: ClassesEditor,
}

impl PolicyEditor {
    /// Draws the editor for `profile`; widgets are disabled when `read_only`.
    /// `script_error` is the compile error of the current custom script, if any.
    /// Returns true when the profile changed.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        profile: &mut RetryProfile,
        read_only: bool,
        script_error: Option<&PolicyError>,
    ) -> bool {
        ui.add_enabled_ui(!read_only, |ui| {
            let mut changed = false;
            for (path, label, value) in [
                ("profile.name", "Name", &mut profile.name),
                ("profile.provider", "Provider", &mut profile.provider),
                (
                    "profile.description",
                    "Description",
                    &mut profile.description,
                ),
            ] {
                changed |= text_row(ui, path, label, value).changed();
            }
            changed |= max_retries_editor(ui, profile);
            changed |= optional_ms_field(
                ui,
                "profile.deadline_ms",
                "Deadline",
                &mut profile.deadline_ms,
                30_000,
                "total budget from the first attempt's start; no wait or attempt starts past it",
            );
            ui.separator();
            ui.strong("When to retry");
            changed |= status_row(
                &mut self.retry_status,
                ui,
                ("profile.retry_on.status", "Retry on status"),
                &mut profile.retry_on.status,
                "codes and ranges, e.g. 408, 429, 500-599",
            );
            changed |= status_row(
                &mut self.success_status,
                ui,
                ("profile.success_status", "Success status"),
                &mut profile.success_status,
                "statuses that end the run OK, e.g. 200-299",
            );
            ui.label("Retry on network errors");
            keyed(ui, "profile.retry_on.errors", |ui| {
                ui.horizontal_wrapped(|ui| {
                    for kind in ErrorKind::ALL {
                        let mut on = profile.retry_on.errors.contains(&kind);
                        if ui.checkbox(&mut on, kind.id()).changed() {
                            if on {
                                profile.retry_on.errors.push(kind);
                            } else {
                                profile.retry_on.errors.retain(|k| *k != kind);
                            }
                            changed = true;
                        }
                    }
                });
            });
            changed |= check(
                ui,
                "profile.retry_on.non_idempotent",
                &mut profile.retry_on.non_idempotent,
                "Retry non-idempotent methods",
                NON_IDEMPOTENT_TIP,
            );
            let mut retry_other = profile.on_other_status == OtherStatusAction::Retry;
            let label = "Retry other statuses";
            if check(
                ui,
                "profile.on_other_status",
                &mut retry_other,
                label,
                OTHER_STATUS_TIP,
            ) {
                profile.on_other_status = if retry_other {
                    OtherStatusAction::Retry
                } else {
                    OtherStatusAction::Stop
                };
                changed = true;
            }
            ui.separator();
            ui.strong("Conditions on responses")
                .on_hover_text(CONDITIONS_TIP);
            ui.label("Retry a response whatever its status when")
                .on_hover_text("one condition holding is enough; every field filled in must hold");
            changed |= self
                .conditions
                .ui(ui, RETRY_ON_RESPONSE, &mut profile.retry_on.response);
            ui.label("Success only when (polling)").on_hover_text(
                "a success status that no condition accepts is \"not ready\" and retried",
            );
            changed |= self
                .conditions
                .ui(ui, SUCCESS_WHEN, &mut profile.success_when);
            ui.separator();
            ui.strong("How long to wait");
            changed |= backoff_editor(ui, "backoff", &mut profile.backoff, false, script_error);
            ui.separator();
            changed |= self.classes.ui(ui, profile);
            changed
        })
        .inner
    }
}

/// A status set typed as codes and ranges (`408, 429, 500-599`) at `(path, label)`; true when
/// the set changed.
pub fn status_row(
    typed: &mut TypedText,
    ui: &mut Ui,
    (path, label): (&str, &str),
    set: &mut StatusSet,
    tooltip: &str,
) -> bool {
    let row = TypedRow {
        path,
        label,
        hint: "",
        tooltip,
    };
    typed
        .ui(ui, row, set, ToString::to_string, StatusSet::parse_list)
        .0
}
