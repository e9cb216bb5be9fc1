//! Sending from the workbench: composing the request and profile into a run (refusing with
//! the reason when a field is invalid or a secret is empty), starting and cancelling runs, and
//! starting and stopping a watch of the composed request (the Watch toggle).

use super::WorkbenchState;
use crate::service::{CoreCommand, WatchCommand, WatchEvent, WatchPlan, WatchUpdate};
use crate::ui::timeline::url_path;
use crate::ui::watch_toggle::WatchAction;

/// A request ready to start: resolved spec, the secret values it was built from, tab title.
pub(super) struct ComposedRun {
    pub(super) spec: crate::model::RequestSpec,
    pub(super) secrets: Vec<String>,
    pub(super) title: String,
    /// The value `{{uuid}}` was filled with (a watch puts the placeholder back: a fresh one
    /// each slot).
    pub(super) fresh_uuid: String,
}

impl WorkbenchState {
    /// A secret without a value ([`crate::model::RequestDraft::secret_without_value`])
    /// or a secret variable the request uses that has no value (both lost with the last session
    /// where secrets are not remembered): sending would put an empty credential on the wire.
    pub(super) fn empty_secret_used(&self, vars: &crate::model::Variables) -> Option<String> {
        if let Some((what, row)) = self.request.composer.draft.secret_without_value() {
            let untick = if row { ", or untick the row" } else { "" };
            return Some(format!(
                "cannot send: {what} is secret and has no value (secret values are not kept across restarts); type it again{untick}"
            ));
        }
        let draft = serde_json::to_string(&self.request.composer.draft).unwrap_or_default();
        let used = |name: &str| {
            draft.contains(&format!("{{{{{name}}}}}"))
                || draft.contains(&format!("{{{{ {name} }}}}"))
        };
        let name = vars
            .names()
            .find(|n| vars.is_secret(n) && vars.get(n).is_some_and(str::is_empty) && used(n))?;
        let why = self
            .store
            .memory_only
            .as_deref()
            .map_or(String::new(), |r| {
                format!(" ({r}: secrets last only while the app runs)")
            });
        Some(format!(
            "cannot send: the secret variable {{{{{name}}}}} has no value{why}; set it under Edit environments…"
        ))
    }

    /// `cannot {action}: Field: message` for the first number field whose text is not a number.
    pub(super) fn invalid_field_problem(&self, action: &str) -> Option<String> {
        let (_, problem) = self.profile.invalid_fields.0.iter().next()?;
        Some(format!(
            "cannot {action}: {problem} (fix the field, or undo the typing to keep the old value)"
        ))
    }

    /// Starts a run of the composed request under the current profile (the Send button, Ctrl+Enter).
    pub fn send(&mut self) {
        self.send_seeded(None);
    }

    /// [`Self::send`] with a seed (`None`: the profile's, else a fresh one).
    pub fn send_seeded(&mut self, seed: Option<u64>) {
        if let Some(composed) = self.compose() {
            self.start_composed(composed, seed);
        }
    }

    /// The composer's request resolved and checked, with its secrets and tab title; `None`
    /// (the reason in the status line) when it cannot be sent.
    pub(super) fn compose(&mut self) -> Option<ComposedRun> {
        let vars = self.request.environments.variables();
        let fresh_uuid = uuid::Uuid::new_v4().to_string();
        // The profile gets the same checks `profile validate` and the CLI apply (including the
        // custom script's dry run), so the window never sends under one the CLI would refuse.
        let blocker = self.request.composer.send_blocker();
        let problem = self
            .invalid_field_problem("send")
            .or_else(|| blocker.map(|p| format!("cannot send: {p}")))
            .or_else(|| self.profile_problem("send"))
            .or_else(|| self.empty_secret_used(&vars));
        let draft = &self.request.composer.draft;
        let spec = match problem {
            Some(problem) => Err(problem),
            None => draft
                .to_spec(&vars, &fresh_uuid)
                .map_err(|u| format!("cannot send: {u}")),
        };
        let spec = spec.and_then(|spec| match crate::ui::url_check::url_problem(&spec.url) {
            Some(problem) => Err(format!("cannot send: the URL after variables: {problem}")),
            None => Ok(spec),
        });
        let spec = match spec {
            Ok(spec) => spec,
            Err(problem) => {
                self.fail(problem);
                return None;
            }
        };
        let mut secrets = vars.secret_values();
        secrets.extend(
            self.request
                .composer
                .draft
                .auth
                .secret_values()
                .into_iter()
                .map(str::to_owned),
        );
        // What the one rule finds in the request itself (URL credentials, secret headers and
        // query values): an echoing server sends them back in bodies the window shows and copies.
        secrets.extend(crate::model::secrets::secret_values(&spec));
        secrets.retain(|s| !s.is_empty());
        // The tab already says `Run N`: the title is `METHOD /path` ([`run_title`]) of the
        // resolved URL with secret variables and URL credentials masked.
        let shown_url = crate::model::secrets::mask_url(&crate::model::resolve_text_masked(
            self.request.composer.draft.url.trim(),
            &vars,
            &fresh_uuid,
        ));
        let title =
            crate::model::mask_secret_values(&run_title(&spec.method, &shown_url), &secrets);
        Some(ComposedRun {
            spec,
            secrets,
            title,
            fresh_uuid,
        })
    }

    /// Starts `composed` under the current profile with `seed`.
    pub(super) fn start_composed(&mut self, composed: ComposedRun, seed: Option<u64>) {
        let ComposedRun {
            spec,
            secrets,
            title,
            ..
        } = composed;
        let run_id = self.link.next_run_id();
        let sent = crate::ui::timeline::SentRequest {
            spec: spec.clone(),
            secrets: secrets.clone(),
        };
        if !secrets.is_empty() {
            self.store.run_secrets.insert(run_id, secrets.clone());
        }
        let command = CoreCommand::Start {
            run_id,
            spec,
            profile: self.profile.current.profile.clone(),
            seed,
            secrets,
        };
        if self.link.send(command) {
            self.runs.add_run(run_id, title);
            self.runs.set_request(run_id, sent);
            self.status = None;
        } else {
            self.fail("cannot start the run: the engine is not running or is saturated; try again or restart Retryscope");
        }
    }

    /// The Watch toggle: starts a watch of the composed request under the current profile
    /// (refused with the reason as Send is), or stops the watch started or resumed here
    /// (paused).
    pub(super) fn watch_action(&mut self, action: WatchAction) {
        let (every_ms, for_ms) = match action {
            WatchAction::Stop(id) => {
                self.request.composer.watch.stopping();
                return self.send_command(CoreCommand::Watch(WatchCommand::Stop(id)));
            }
            WatchAction::Start { every_ms, for_ms } => (every_ms, for_ms),
        };
        let Some(composed) = self.compose() else {
            return;
        };
        let plan = WatchPlan {
            id: crate::service::watch_service::new_watch_id(),
            // Each slot's run gets its own `{{uuid}}` and automatic Idempotency-Key.
            request: crate::model::uuid_template(&composed.spec, &composed.fresh_uuid),
            profile: self.profile.current.profile.clone(),
            secrets: composed.secrets,
            every_ms,
            jitter: 0.0,
            count: None,
            for_ms,
            body_cap: crate::store::DEFAULT_BODY_CAP,
        };
        let id = plan.id.clone();
        let unresumable = self
            .secrets_memory_only()
            .filter(|_| plan.holds_secrets())
            .map(str::to_owned);
        let command = WatchCommand::Start {
            plan: Box::new(plan),
            live: true,
        };
        self.watch_live(command, id, composed.title, unresumable.is_none());
        if let Some(reason) = unresumable {
            self.fail(format!(
                    "The watch's request holds secrets, and {reason}: once stopped, it cannot be resumed"
                ));
        }
    }

    /// The Watches tab's Resume: carries watch `w` on as the toggle's watch, its runs live in
    /// the timeline as a started watch's are.
    pub(super) fn resume_watch(&mut self, w: &crate::store::WatchRecord) {
        let command = WatchCommand::Resume {
            id: w.id.clone(),
            live: true,
        };
        self.watch_live(command, w.id.clone(), run_title(&w.method, &w.url), true);
        self.layout.centre = crate::ui::persistence::CentreTab::Timeline;
    }

    /// Sends `command` (start or resume watch `id`, live) and follows the watch in the toggle;
    /// `title`: its runs' tabs' title; `resumable`: it can be carried on once paused.
    fn watch_live(&mut self, command: WatchCommand, id: String, title: String, resumable: bool) {
        if self.link.send(CoreCommand::Watch(command)) {
            self.request.composer.watch.started(id, title, resumable);
            self.status = None;
        } else {
            self.fail("cannot start the watch: the engine is not running or is saturated; try again or restart Retryscope");
        }
    }

    /// An event of a watch: its runs join the runs list as a Send's do (their events follow
    /// as runs' events); the Watches tab is read again when it starts and when it ends.
    pub(super) fn on_watch_update(&mut self, update: &WatchUpdate) {
        match &update.event {
            WatchEvent::RunStarted { slot, run_id } => {
                let title = self.request.composer.watch.run_title(*slot);
                self.runs.add_run(*run_id, title);
            }
            WatchEvent::Started(_) | WatchEvent::Ended(_) | WatchEvent::Failed(_) => {
                self.watches.refresh();
            }
            _ => {}
        }
        if let Some(status) = self.request.composer.watch.accept(update) {
            self.status = Some(status);
        }
    }

    /// Cancels the selected run if it is still running (Esc).
    pub fn cancel_selected(&mut self) {
        if let Some(id) = self.runs.selected()
            && self.runs.active_runs().contains(&id)
        {
            self.send_command(CoreCommand::Cancel(id));
        }
    }

    pub(super) fn send_command(&mut self, command: CoreCommand) {
        if !self.link.send(command) {
            self.fail("the engine did not take the command; restart Retryscope if this repeats");
        }
    }
}

/// A run's title for its tab: `METHOD /path` without the query (the whole URL is on the line
/// under the tabs), a path longer than [`TITLE_PATH_CHARS`] cut in its middle with `…`, so a
/// tab never shows a URL clipped at both ends.
pub(super) fn run_title(method: &str, url: &str) -> String {
    let path = url_path(url);
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let chars: Vec<char> = path.chars().collect();
    if chars.len() <= TITLE_PATH_CHARS {
        return format!("{method} {path}");
    }
    let half = TITLE_PATH_CHARS / 2;
    let head: String = chars[..half].iter().collect();
    let tail: String = chars[chars.len() - half..].iter().collect();
    format!("{method} {head}…{tail}")
}

/// Longest path a run's tab shows whole, characters.
const TITLE_PATH_CHARS: usize = 40;

#[cfg(test)]
mod tests {
    #[test]
    fn a_tab_title_drops_the_query_and_cuts_a_long_path_in_its_middle() {
        assert_eq!(
            super::run_title("GET", "http://h:1/status/429?times=2&case=abc"),
            "GET /status/429"
        );
        let long = format!("http://h/{}", "a/".repeat(40));
        let title = super::run_title("POST", &long);
        assert!(
            title.starts_with("POST /a/a/") && title.contains('…'),
            "{title}"
        );
        assert_eq!(title.chars().count(), "POST ".len() + 41);
    }
}
