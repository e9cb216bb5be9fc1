//! "Copy as HAR", "Copy as CSV" and "Copy events": the selected run's fold (masked) as a HAR
//! 1.2 document, attempts CSV or JSON Lines events on the clipboard.

use super::SentRequest;
use super::run_timeline::Timeline;
use crate::interop::run_to_har;
use crate::model::secrets::mask_spec;
use crate::ui::copied_toast::{Secrets, copy_button};
use std::sync::Arc;

/// The run as HAR 1.2 JSON text, secrets masked (the request `sent` masked by the one rule).
pub fn timeline_har(timeline: &Timeline, sent: Option<&SentRequest>) -> String {
    let spec = sent.map(|s| mask_spec(&s.spec, &s.secrets));
    let har = run_to_har(timeline.fold(), spec.as_ref());
    serde_json::to_string_pretty(&har).unwrap_or_default()
}

/// The "Copy as CSV", "Copy events" and "Copy as HAR" buttons (secrets masked).
pub fn copy_as_har_ui(ui: &mut egui::Ui, timeline: &Timeline, sent: Option<&Arc<SentRequest>>) {
    let any = !timeline.attempts().is_empty();
    let fold = timeline.fold();
    let csv = || crate::interop::attempts_csv(fold, &timeline.run_id().to_string());
    let events = || crate::interop::events_json_lines(fold);
    let har = || timeline_har(timeline, sent.map(Arc::as_ref));
    #[rustfmt::skip]
    let buttons: [(&str, &str, &str, &dyn Fn() -> String); 3] = [
        ("Copy as CSV", "copy one row per attempt as CSV (secrets masked) for a spreadsheet",
         "the attempts as CSV", &csv),
        ("Copy events", "copy the run's events as JSON Lines, as `retryscope run --json` prints them (secrets masked)",
         "the run's events as JSON Lines", &events),
        ("Copy as HAR", "copy the run as a HAR 1.2 file (one entry per attempt, secrets masked) to paste into a .har file or a ticket",
         "the run as HAR", &har),
    ];
    for (label, tip, what, make) in buttons {
        copy_button(ui, any, (label, tip), (what, Secrets::Masked), make);
    }
}
