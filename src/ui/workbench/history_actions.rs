//! The workbench's side of the History panel: connecting it, refreshing it when a run ends,
//! opening a past run read-only in the timeline, and re-running one.

use super::WorkbenchState;
use crate::model::{Body, RequestSpec, RetryProfile, RunId};
use crate::store::StoredRun;
use crate::ui::file_dialogs::DialogPurpose;
use crate::ui::history::HistoryAction;
use crate::ui::persistence::CentreTab;
use crate::ui::profile_library::{CurrentProfile, ProfileSource};

/// First run id given to a past run opened from the history (the engine's ids count up from 1,
/// so the two never meet).
pub const PAST_RUN_IDS: RunId = 1 << 48;

/// `the URL's password and `sig` value`: which parts of a URL hold `mask` (`the URL` when the
/// URL does not parse).
fn masked_url_parts(url: &str, mask: &str) -> String {
    let Ok(parsed) = url::Url::parse(url) else {
        return "the URL".into();
    };
    let decoded = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let mut parts = Vec::new();
    if decoded(parsed.username()).contains(mask) {
        parts.push("user name".to_owned());
    }
    if parsed.password().is_some_and(|p| decoded(p).contains(mask)) {
        parts.push("password".to_owned());
    }
    for (name, value) in parsed.query_pairs() {
        if value.contains(mask) {
            parts.push(format!("`{name}` value"));
        }
    }
    if parts.is_empty() {
        "the URL".into()
    } else {
        let last = parts.pop().unwrap_or_default();
        if parts.is_empty() {
            format!("the URL's {last}")
        } else {
            format!("the URL's {} and {last}", parts.join(", "))
        }
    }
}

/// The first field of `spec` holding a masked value (`***`: a secret never stored), named for
/// a message: `the header Authorization`, `the URL`, …
pub fn masked_field(spec: &RequestSpec) -> Option<String> {
    let mask = crate::model::secrets::MASK;
    if spec.url.contains(mask) {
        return Some(masked_url_parts(&spec.url, mask));
    }
    if let Some(h) = spec.headers.iter().find(|h| h.value.contains(mask)) {
        return Some(format!("the header {}", h.name));
    }
    if let Some(q) = spec.query.iter().find(|q| q.value.contains(mask)) {
        return Some(format!("the query parameter {}", q.name));
    }
    match &spec.body {
        Body::Form { fields } => fields
            .iter()
            .find(|f| f.value.contains(mask))
            .map(|f| format!("the form field {}", f.name)),
        Body::Text { text, .. } | Body::Json { text } if text.contains(mask) => {
            Some("the body".into())
        }
        Body::Multipart { parts } => parts
            .iter()
            .find(|p| {
                matches!(&p.source, crate::model::PartSource::Text { value } if value.contains(mask))
            })
            .map(|p| format!("the part {}", p.name)),
        _ => None,
    }
}

impl WorkbenchState {
    /// Whether the centre shows the History panel (else the timeline).
    pub fn history_shown(&self) -> bool {
        self.layout.centre == CentreTab::History
    }

    /// Shows the History panel (`true`) or the timeline.
    pub fn show_history(&mut self, shown: bool) {
        self.layout.centre = if shown {
            CentreTab::History
        } else {
            CentreTab::Timeline
        };
    }

    /// Does what the History panel asks (after a reply, or from its own controls).
    pub(super) fn on_history_action(&mut self, action: HistoryAction) {
        match action {
            HistoryAction::Open(run) => self.open_past_run(&run),
            HistoryAction::Rerun { run, same_seed } => self.rerun(&run, same_seed),
            HistoryAction::ChooseReportFile { suggested_name } => {
                self.dialogs
                    .request(DialogPurpose::ExportReport { suggested_name });
            }
            HistoryAction::Status(is_error, text) => self.status = Some((is_error, text)),
        }
    }

    /// Shows `stored` in the timeline as a read-only tab `from history, <date>`.
    fn open_past_run(&mut self, stored: &StoredRun) {
        self.past_runs += 1;
        let run_id = PAST_RUN_IDS + self.past_runs;
        let run = &stored.run;
        let title = super::run_actions::run_title(&run.method, &run.url);
        let label = format!(
            "from history, {}",
            run.started_at.format("%Y-%m-%d %H:%M:%S")
        );
        let fold = stored.fold.clone().renumbered(run_id);
        self.runs.add_past_run(fold, title, label);
        self.layout.centre = CentreTab::Timeline;
    }

    /// Re-runs `stored`: its profile becomes the current one, and its request is sent. When the
    /// composer already holds the request it was (same request once masked: variables and
    /// secrets filled from the current environment and keyring), the composer is sent as it is;
    /// else the recorded request fills the composer and is sent, unless a value in it was
    /// masked when recorded: then it stays in the composer and the status names the field.
    fn rerun(&mut self, stored: &StoredRun, same_seed: bool) {
        let profile: RetryProfile = match serde_json::from_value((*stored.run.profile).clone()) {
            Ok(p) => p,
            Err(e) => {
                self.fail(format!(
                    "cannot re-run: the recorded profile cannot be read ({e})"
                ));
                return;
            }
        };
        if profile != self.profile.current.profile {
            if self.profile.current.is_dirty() {
                self.fail(format!(
                        "cannot re-run: \"{}\" has unsaved changes; save or undo them first (the run used profile \"{}\")",
                        self.profile.current.profile.name, profile.name
                    ));
                return;
            }
            self.profile.current = CurrentProfile::clean(ProfileSource::Unsaved, profile);
        }
        let seed = same_seed.then_some(stored.run.seed);
        self.layout.centre = CentreTab::Timeline;
        // The composer as it is, when it builds the recorded request.
        if let Some(composed) = self.compose_quietly()
            && *crate::model::secrets::mask_spec(&composed.spec, &composed.secrets)
                == stored.run.request
        {
            self.start_composed(composed, seed);
            return;
        }
        self.request.composer.fill(
            crate::interop::draft_of_spec(&stored.run.request),
            "the recorded run's request",
        );
        if let Some(field) = masked_field(&stored.run.request) {
            self.fail(format!(
                    "cannot re-run: {field} was masked when the run was recorded (secrets are never stored); the request is in the composer: fill in {field} and press Send"
                ));
            return;
        }
        self.send_seeded(seed);
    }

    /// [`Self::compose`] without touching the status line.
    fn compose_quietly(&mut self) -> Option<super::run_actions::ComposedRun> {
        let status = self.status.clone();
        let composed = self.compose();
        self.status = status;
        composed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyValue;

    #[test]
    fn a_masked_header_or_url_is_named() {
        let mut spec = RequestSpec::get("http://127.0.0.1:1/x");
        assert_eq!(masked_field(&spec), None);
        spec.headers.push(KeyValue::new("Authorization", "***"));
        assert_eq!(
            masked_field(&spec).as_deref(),
            Some("the header Authorization")
        );
        spec.url = "http://127.0.0.1:1/x?token=***".into();
        assert_eq!(
            masked_field(&spec).as_deref(),
            Some("the URL's `token` value")
        );
        spec.url = "http://***:***@127.0.0.1:1/x?a=1&sig=***".into();
        assert_eq!(
            masked_field(&spec).as_deref(),
            Some("the URL's user name, password and `sig` value")
        );
    }
}
