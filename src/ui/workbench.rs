//! All of the app's state and its frame: the composer (left), the policy editor and preview
//! (right), the live timeline (centre). No `eframe::Frame` here, so `egui_kittest` drives it.

mod batch_actions;
mod history_actions;
mod library;
mod profile_edit;
mod profile_files;
mod request_side;
mod retry_settings;
mod run_actions;
mod toolbar;

pub use history_actions::{PAST_RUN_IDS, masked_field};
use library::Library;
pub use profile_edit::ProfileEdit;
use profile_files::restore_profile;
pub use request_side::RequestSide;

use super::composer::{Composer, ComposerAction};
use super::controls::tab_row;
use super::environment_editor::EnvironmentPanel;
use super::error_panel::LoadFailure;
use super::file_dialogs::{DialogPurpose, FileDialogHost, FileDialogs};
use super::persistence::{CentreTab, LayoutPrefs, PersistedProfile, PersistedWorkbench, SideTab};
use super::preview_strip::PreviewCache;
use super::profile_library::CurrentProfile;
use super::profile_library::ProfileSource;
use super::request_draft::{RequestDraft, demo_failure_status};
use super::request_library_panel::RequestLibraryPanel;
use super::shortcuts::{Shortcut, take_shortcuts};
use super::text_sizes::install_text_sizes;
use super::theme::ThemeChoice;
use super::timeline::{RunsState, TimelineAction};
use super::workspace_file::DemoAddress;
use crate::profile::{self};
use crate::service::{CoreCommand, CoreEvent, CoreLink};
use crate::store::{EnvironmentStore, OpenedSecretStore, RequestLibrary, SecretStore};
use egui::Ui;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Longest time one frame spends draining engine events, ms.
pub const DRAIN_BUDGET_MS: u64 = 4;
/// Widths the request panel (left) can be dragged to, points.
pub const COMPOSER_WIDTH_RANGE: std::ops::RangeInclusive<f32> = 240.0..=600.0;
/// Widths the policy panel (right) can be dragged to, points.
pub const POLICY_WIDTH_RANGE: std::ops::RangeInclusive<f32> = 280.0..=640.0;
/// Width the timeline keeps at least, points: the side panels give way first, so a widened panel
/// remembered from an earlier session can never squeeze the timeline into clipping.
pub const MIN_TIMELINE_WIDTH: f32 = 620.0;

/// The widest each side panel may be in a window `total` points wide: its own range, cut so that
/// both together leave [`MIN_TIMELINE_WIDTH`] (never below the ranges' minimums).
fn side_panel_max(total: f32) -> (f32, f32) {
    let (left_min, right_min) = (*COMPOSER_WIDTH_RANGE.start(), *POLICY_WIDTH_RANGE.start());
    let budget = (total - MIN_TIMELINE_WIDTH).max(left_min + right_min);
    let left = (budget * 0.47).clamp(left_min, *COMPOSER_WIDTH_RANGE.end());
    let right = (budget - left).clamp(right_min, *POLICY_WIDTH_RANGE.end());
    (left, right)
}
/// Below this window width the composer and the policy share one side panel as tabs, points.
pub const STACK_BELOW_WIDTH: f32 = 1100.0;
/// Width the timeline keeps at least in the narrow layout, points.
pub const MIN_STACKED_TIMELINE_WIDTH: f32 = 420.0;

/// The centre's tabs: tab, label, tooltip.
#[rustfmt::skip]
const CENTRE_TABS: [(CentreTab, &str, &str); 5] = [
    (CentreTab::Timeline, "Timeline", "the runs of this session, live"),
    (CentreTab::History, "History", "every recorded run: filter, open, re-run, compare, delete"),
    (CentreTab::Batch, "Batch", "work a list of requests through the current profile, durably"),
    (CentreTab::Lab, "Lab", "the profile's wait distribution, many clients contending, layered retries"),
    (CentreTab::Watches, "Watches", "recorded watches: runs over time, failures, delay headers"),
];

/// The narrow layout's side tabs: tab, label, tooltip.
const SIDE_TABS: [(SideTab, &str, &str); 2] = [
    (SideTab::Request, "Request", "the request composer"),
    (
        SideTab::Policy,
        "Policy",
        "the retry policy and its preview",
    ),
];

/// Everything a workbench needs from outside.
pub struct WorkbenchSetup {
    /// The one link to the process's core: runs, batches and history queries in, their events
    /// out (a [`CoreLink::probe`] in tests). The History panel and the Batch tab are connected
    /// to it when it serves them.
    pub link: CoreLink,
    /// File pickers (real rfd ones or [`crate::testkit::ScriptedDialogs`]).
    pub dialogs: Box<dyn FileDialogs>,
    /// `http://127.0.0.1:PORT` of the embedded demo server, when running.
    pub demo_base_url: Option<String>,
    /// The user's profile library folder (`None` = no library).
    pub library_dir: Option<PathBuf>,
    /// State saved by the previous session.
    pub persisted: Option<PersistedWorkbench>,
}

/// The whole workbench.
pub struct WorkbenchState {
    link: CoreLink,
    dialogs: FileDialogHost,
    /// The request being composed (left).
    pub request: RequestSide,
    /// The profile being edited (right).
    pub profile: ProfileEdit,
    /// The profile files the picker lists.
    library: Library,
    /// Every run of the session.
    pub runs: RunsState,
    demo_base_url: Option<String>,
    status: Option<(bool, String)>,
    theme: ThemeChoice,
    applied_theme: Option<ThemeChoice>,
    remember_secrets: bool,
    layout: LayoutPrefs,
    title: String,
    clock: Option<Box<dyn Fn() -> Instant>>,
    store: StoreLink,
    /// The History panel (centre, beside the timeline).
    pub history: super::history::HistoryPanel,
    /// The Batch tab (centre, beside the timeline and the History panel).
    pub batch: super::batch::BatchPanel,
    /// The batch start-up line as last put in the status line (kept current while shown).
    batch_line: Option<String>,
    /// Past runs opened from the history so far (their ids count up from [`PAST_RUN_IDS`]).
    past_runs: crate::model::RunId,
    /// "Export PNG…" of a run: waiting for a file name, then drawn and written off the frame.
    run_export: super::run_export::RunExport,
    /// Asks before Ctrl+Q or the close button end live runs or a working batch.
    pub quit: super::quit_guard::QuitGuard,
    /// The About window (version, licence, folders); tests may replace its folders and opener.
    pub about: super::about_window::AboutWindow,
    /// The Lab tab (centre, beside the timeline and the history).
    pub lab: super::lab::LabPanel,
    /// The Watches tab (centre): recorded watches, read-only.
    pub watches: super::watch::WatchPanel,
    /// Set by [`Self::analyse_in_background`]: the stores attached after it (environments) run
    /// on worker threads that call it; `None` keeps them inline (tests).
    store_waker: Option<std::sync::Arc<dyn Fn() + Send + Sync>>,
}

/// The workbench's link to the data folder and the secret store.
struct StoreLink {
    secrets: std::sync::Arc<dyn SecretStore>,
    /// Why secrets are kept in memory only, if they are.
    memory_only: Option<String>,
    /// The environment selected in the last session, until the store is attached.
    restored_env: Option<String>,
    /// The "Remember secrets" slots last written to the secret store.
    remembered: Vec<(String, String)>,
    /// Secret values of each run, masked in its events.
    run_secrets: std::collections::HashMap<crate::model::RunId, Vec<String>>,
}

/// Prefix of the secret store keys of "Remember secrets".
const REMEMBER_PREFIX: &str = "workbench/";

impl WorkbenchState {
    /// A workbench from `setup`: the persisted workspace when given, else the first-run request
    /// against the demo server and the `servicenow-exponential` built-in.
    pub fn new(setup: WorkbenchSetup) -> Self {
        let persisted = setup.persisted.unwrap_or_default();
        let demo = setup.demo_base_url.clone();
        let current = persisted
            .profile
            .clone()
            .map_or_else(CurrentProfile::default, restore_profile);
        let draft = match &persisted.request {
            Some(d) => DemoAddress(demo.as_deref()).restored(d),
            None => RequestDraft::demo(
                demo.as_deref().unwrap_or("http://127.0.0.1:8080"),
                demo_failure_status(&current.profile),
            ),
        };
        let mut history = super::history::HistoryPanel::with_prefs(
            persisted.history_retention,
            persisted.history_filters,
        );
        let mut watches = super::watch::WatchPanel::default();
        if setup.link.offer().history {
            history.attach(setup.link.sender());
            watches.attach(setup.link.sender());
        }
        let mut batch = super::batch::BatchPanel::new();
        if setup.link.offer().batches {
            batch.attach(setup.link.sender());
        }
        let mut composer = Composer::new(draft);
        composer.watch.text = persisted.watch_schedule;
        Self {
            link: setup.link,
            dialogs: FileDialogHost::new(setup.dialogs, setup.library_dir.clone()),
            request: RequestSide::new(composer),
            profile: ProfileEdit::new(current),
            library: Library::new(setup.library_dir, persisted.opened_files),
            runs: RunsState::with_detail(persisted.layout.detail),
            demo_base_url: demo,
            status: None,
            theme: persisted.theme,
            applied_theme: None,
            remember_secrets: persisted.remember_secrets,
            layout: persisted.layout,
            title: String::new(),
            clock: None,
            store: StoreLink {
                secrets: std::sync::Arc::new(crate::store::MemorySecretStore::new()),
                memory_only: Some("no secret store attached".into()),
                restored_env: persisted.environment,
                remembered: Vec::new(),
                run_secrets: std::collections::HashMap::new(),
            },
            history,
            batch,
            batch_line: None,
            past_runs: 0,
            run_export: super::run_export::RunExport::default(),
            quit: super::quit_guard::QuitGuard::default(),
            about: super::about_window::AboutWindow::new(
                super::about_window::current_folders(),
                Box::new(super::about_window::SystemOpener),
            ),
            lab: super::lab::LabPanel::default(),
            watches,
            store_waker: None,
        }
    }

    /// Moves the profile analysis (compile check, problems, preview) and the environment store
    /// (once attached) to worker threads that call `waker` when a result is ready (the app;
    /// tests keep them inline, in the frame).
    /// The Lab's simulations move to worker threads too.
    pub fn analyse_in_background(&mut self, waker: std::sync::Arc<dyn Fn() + Send + Sync>) {
        self.lab = super::lab::LabPanel::spawn(&waker);
        self.store_waker = Some(std::sync::Arc::clone(&waker));
        self.library
            .scan_in_background(std::sync::Arc::clone(&waker));
        self.profile.preview =
            PreviewCache::new(super::profile_analysis::AnalysisWorker::spawn(waker));
    }

    /// Whether the centre shows the Lab tab.
    pub fn lab_shown(&self) -> bool {
        self.layout.centre == CentreTab::Lab
    }

    /// Shows the Lab tab.
    pub fn show_lab(&mut self) {
        self.layout.centre = CentreTab::Lab;
    }

    /// Switches the theme (applied at the next frame).
    pub fn set_theme(&mut self, theme: ThemeChoice) {
        self.theme = theme;
    }

    /// Connects the saved requests and environments to `data_dir` (`None` = no data folder:
    /// both are off) and every secret to `secrets` (the OS keyring, or memory only); selects
    /// the environment of the last session and, with "Remember secrets", fills the composer's
    /// blank secret fields from the secret store. Until called, secrets live in memory only.
    pub fn attach_store(&mut self, data_dir: Option<&Path>, secrets: OpenedSecretStore) {
        self.request.requests = RequestLibraryPanel::new(
            data_dir.map(RequestLibrary::in_data_dir),
            self.demo_base_url.clone(),
        );
        self.request.environments = EnvironmentPanel::new(
            data_dir.map(|d| EnvironmentStore::in_data_dir(d, secrets.store.clone())),
            secrets.fallback_reason.clone(),
            self.store_waker.clone(),
        );
        self.request
            .environments
            .select(self.store.restored_env.take().as_deref());
        self.store.secrets = secrets.store;
        self.store.memory_only = secrets.fallback_reason;
        if self.remember_secrets {
            let store = self.store.secrets.clone();
            let failure = std::cell::RefCell::new(None);
            let found = std::cell::RefCell::new(Vec::new());
            self.request.composer.draft.fill_secrets(|slot| {
                let value = store
                    .get(&format!("{REMEMBER_PREFIX}{slot}"))
                    .map_err(|e| *failure.borrow_mut() = Some(e))
                    .ok()
                    .flatten()?;
                found.borrow_mut().push((slot.to_owned(), value.clone()));
                Some(value)
            });
            if let Some(e) = failure.into_inner() {
                self.fail(format!("cannot restore remembered secrets: {e}"));
            }
            // What the store holds now; `remember_secrets_now` writes only the differences.
            self.store.remembered = found.into_inner();
        }
    }

    /// "Remember secrets": writes the composer's secret values to the secret store (removing
    /// the ones no longer there, or all of them when the box is unticked). Only changes reach
    /// the store; called when the app saves its state.
    pub fn remember_secrets_now(&mut self) {
        let slots = if self.remember_secrets {
            self.request.composer.draft.secret_slots()
        } else {
            Vec::new()
        };
        if slots == self.store.remembered {
            return;
        }
        let store = &self.store.secrets;
        let key = |slot: &str| format!("{REMEMBER_PREFIX}{slot}");
        let mut result = Ok(());
        for (slot, _) in &self.store.remembered {
            if !slots.iter().any(|(s, _)| s == slot) {
                result = result.and(store.delete(&key(slot)));
            }
        }
        for pair in &slots {
            if !self.store.remembered.contains(pair) {
                result = result.and(store.set(&key(&pair.0), &pair.1));
            }
        }
        match result {
            Ok(()) => self.store.remembered = slots,
            Err(e) => self.status = Some((true, format!("cannot remember secrets: {e}"))),
        }
    }

    /// Why secrets are kept in memory only (no OS keyring), if they are.
    pub fn secrets_memory_only(&self) -> Option<&str> {
        self.store.memory_only.as_deref()
    }

    /// Shows `text` as an error in the status line.
    fn fail(&mut self, text: impl Into<String>) {
        self.status = Some((true, text.into()));
    }

    /// Replaces the clock used for the timeline's "now" (tests pin it).
    pub fn set_clock(&mut self, clock: impl Fn() -> Instant + 'static) {
        self.clock = Some(Box::new(clock));
    }

    fn now(&self) -> Instant {
        self.clock.as_ref().map_or_else(Instant::now, |c| c())
    }

    /// The window title: `Retryscope — <profile name>`, with ` •` when it has unsaved edits.
    pub fn window_title(&self) -> String {
        let dot = if self.profile.current.is_dirty() {
            " •"
        } else {
            ""
        };
        format!("Retryscope — {}{dot}", self.profile.current.profile.name)
    }

    /// The last problem loading a profile, if shown.
    pub fn load_failure(&self) -> Option<&LoadFailure> {
        self.profile.load_failure.as_ref()
    }

    /// The preview cache (simulation of the current profile).
    pub fn preview(&self) -> &PreviewCache {
        &self.profile.preview
    }

    /// Whether a confirm-discard prompt is open.
    pub fn is_confirm_open(&self) -> bool {
        self.profile.pending_switch.is_some()
    }

    /// The status line: `(is_error, text)`.
    pub fn status(&self) -> Option<&(bool, String)> {
        self.status.as_ref()
    }

    /// Shows `text` in the status line (red when `is_error`).
    pub fn set_status(&mut self, is_error: bool, text: String) {
        self.status = Some((is_error, text));
    }

    /// The workspace to persist (secrets blanked unless "remember secrets").
    pub fn to_persisted(&self) -> PersistedWorkbench {
        // Secret values never go to this (plain-text) state; "Remember secrets" keeps them in
        // the secret store instead (see `remember_secrets_now`).
        let request = DemoAddress(self.demo_base_url.as_deref())
            .stored(&self.request.composer.draft.without_secrets());
        let dirty = self.profile.current.is_dirty();
        PersistedWorkbench {
            request: Some(request),
            remember_secrets: self.remember_secrets,
            profile: Some(PersistedProfile {
                source: self.profile.current.source.clone(),
                embedded_json: (dirty || self.profile.current.source == ProfileSource::Unsaved)
                    .then(|| profile::to_json_pretty(&self.profile.current.profile)),
                dirty,
            }),
            opened_files: self.library.opened.clone(),
            layout: LayoutPrefs {
                detail: self.runs.detail,
                ..self.layout
            },
            theme: self.theme,
            environment: self
                .request
                .environments
                .selected()
                .map(str::to_owned)
                .or_else(|| self.store.restored_env.clone()),
            history_retention: self.history.retention,
            history_filters: self.history.filters.clone(),
            watch_schedule: self.request.composer.watch.text.clone(),
        }
    }

    /// One run event from the core: masked with the run's secrets, then shown.
    fn on_run_event(&mut self, event: crate::model::RunEvent, now: Instant) {
        let run_id = event.run_id();
        let secrets = self.store.run_secrets.get(&run_id);
        let event = crate::model::secrets::mask_event(event, secrets.map_or(&[], Vec::as_slice));
        let finished = matches!(*event, crate::model::RunEvent::RunFinished { .. });
        if finished {
            self.store.run_secrets.remove(&run_id);
            // Committed before this event arrived: the list shows the run now.
            self.history.refresh();
        }
        self.runs.apply(event, now);
        if finished {
            self.note_delay_hint(run_id);
        }
    }

    /// Stops the link to the core as closing the window does (see [`CoreLink::stop`]); true
    /// when its task ended within `wait`.
    pub fn stop_core(&mut self, wait: Duration) -> bool {
        self.link.stop(wait)
    }

    /// Per-frame work outside drawing: drain the core's events (time-boxed to
    /// [`DRAIN_BUDGET_MS`]), take dialog answers and dropped files, apply theme and title, and
    /// schedule the next repaint only when the timeline needs one.
    pub fn logic(&mut self, ctx: &egui::Context) {
        let start = Instant::now();
        let budget = Duration::from_millis(DRAIN_BUDGET_MS);
        while let Some(event) = self.link.try_recv() {
            let now = self.now();
            match event {
                CoreEvent::Run(event) => self.on_run_event(event, now),
                CoreEvent::Watch(update) => self.on_watch_update(&update),
                CoreEvent::Batch(reply) => self.batch.accept(reply, now),
                CoreEvent::History(
                    reply @ (crate::service::HistoryReply::Watches(_)
                    | crate::service::HistoryReply::Watch(_)),
                ) => self.watches.accept(reply),
                CoreEvent::History(reply) => {
                    if let Some(action) = self.history.accept(reply) {
                        self.on_history_action(action);
                    }
                }
            }
            if start.elapsed() >= budget {
                ctx.request_repaint();
                break;
            }
        }
        for action in self.history.take_actions() {
            self.on_history_action(action);
        }
        for run_id in self.watches.take_open() {
            self.history.open_run(run_id);
        }
        if let Some((query, format)) = self.watches.take_report() {
            self.history.report_for(query, format);
        }
        if let Some(watch) = self.watches.take_resume() {
            self.resume_watch(&watch);
        }
        let live = self.live_work();
        self.quit.intercept(ctx, live);
        self.follow_batch_startup_line();
        while let Some(answer) = self.dialogs.poll() {
            self.on_dialog_answer(answer);
        }
        self.poll_profile_io(ctx);
        if let Some(status) = self.run_export.poll() {
            self.status = Some(status);
        }
        if let Some(notice) = self.dialogs.take_notice() {
            self.status = Some((false, notice));
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        for path in dropped {
            self.on_dropped(path);
        }
        if self.applied_theme != Some(self.theme) {
            if self.applied_theme.is_none() {
                install_text_sizes(ctx);
                super::theme::install_light_contrast(ctx);
            }
            ctx.set_theme(self.theme.preference());
            self.applied_theme = Some(self.theme);
        }
        let title = self.window_title();
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        if let Some(after) = self.runs.repaint_after(self.now()) {
            ctx.request_repaint_after(after);
        }
    }

    /// Draws the whole workbench into `ui` (panels inside it) and handles shortcuts.
    pub fn ui(&mut self, ui: &mut Ui) {
        // Number fields showing text that is not a number (drawn in an earlier frame, also
        // those now hidden in another tab or a collapsed section).
        if std::mem::take(&mut self.profile.forget_typed_fields) {
            super::number_field::forget_typed_fields(ui.ctx(), "profile.");
        }
        self.profile.invalid_fields = super::number_field::invalid_fields(ui.ctx());
        let undo_is_free = self.request.owns_undo(ui.ctx());
        self.request.rect = None;
        for shortcut in take_shortcuts(ui.ctx(), undo_is_free) {
            self.on_shortcut(ui.ctx(), shortcut);
        }
        self.profile.preview.refresh(&self.profile.current.profile);
        self.library.poll();
        egui::Panel::top("toolbar").show(ui, |ui| self.toolbar(ui));
        self.status_bar(ui);
        if let Some(failure) = self.profile.load_failure.clone() {
            // A fixed height from the number of problems: a bottom panel otherwise keeps the
            // height of its first frame, and the list inside shrinks to fit it.
            egui::Panel::bottom("load_errors_panel")
                .resizable(false)
                .exact_size(failure.panel_height(ui))
                .show(ui, |ui| {
                    if failure.ui(ui) {
                        self.profile.load_failure = None;
                    }
                });
        }
        let edits_before = self.request.composer.edits;
        let composer_actions = if ui.available_width() < STACK_BELOW_WIDTH {
            self.stacked_side_panel(ui)
        } else {
            self.side_panels(ui)
        };
        if self.request.composer.edits != edits_before {
            self.clear_refusal();
        }
        for action in composer_actions {
            match action {
                ComposerAction::Send => self.send(),
                ComposerAction::Watch(action) => self.watch_action(action),
                ComposerAction::BrowseBodyFile => self.dialogs.request(DialogPurpose::BodyFile),
                ComposerAction::ImportHar => self.dialogs.request(DialogPurpose::HarFile),
            }
        }
        let now = self.now();
        let (mut batch_actions, mut actions) = (Vec::new(), Vec::new());
        egui::CentralPanel::default().show(ui, |ui| {
            tab_row(ui, &mut self.layout.centre, &CENTRE_TABS);
            ui.separator();
            match self.layout.centre {
                CentreTab::Lab => {
                    self.lab.ui(ui, &self.profile.current.profile);
                    if let Some(suggested_name) = self.lab.export.take_request() {
                        self.dialogs
                            .request(DialogPurpose::ExportLab { suggested_name });
                    }
                }
                CentreTab::Batch => {
                    batch_actions = self.batch.ui(ui, &self.profile.current.profile, now);
                }
                CentreTab::History => self.history.ui(ui),
                CentreTab::Watches => {
                    let watching = self.request.composer.watch.watching().is_some();
                    let (files, dir) = (&self.library.files, self.library.dir.as_deref());
                    self.watches.ui(ui, files, dir, watching);
                }
                CentreTab::Timeline => actions = self.runs.ui(ui, now),
            }
        });
        self.on_batch_actions(batch_actions);
        for action in actions {
            let command = match action {
                TimelineAction::Cancel(id) => CoreCommand::Cancel(id),
                TimelineAction::SkipWait(id) => CoreCommand::SkipWait(id),
                TimelineAction::Export(id, file) => {
                    self.run_export.ask(id, file, ui.ctx());
                    self.dialogs.request(DialogPurpose::ExportRun {
                        file,
                        suggested_name: format!("retryscope-run-{id}.{}", file.extension()),
                    });
                    continue;
                }
            };
            self.send_command(command);
        }
        self.retry_settings_modals(ui);
        self.confirm_prompt(ui);
        self.dialogs.ui(ui, &self.library.opened);
        self.about.ui(ui.ctx());
        super::copied_toast::show(ui.ctx());
        let now_s = ui.input(|i| i.time);
        self.request
            .composer
            .undo
            .observe(&self.request.composer.draft, now_s);
        let live = self.live_work();
        self.quit.ui(ui.ctx(), live);
        if let Some(status) = self.request.environments.window_ui(ui.ctx()) {
            self.status = Some(status);
        }
        if ui.ctx().input(|i| !i.raw.hovered_files.is_empty()) {
            egui::Area::new(egui::Id::unique("drop_hint"))
                .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
                .show(ui.ctx(), |ui| {
                    egui::Frame::popup(ui.style())
                        .show(ui, |ui| ui.heading("Drop a .json profile to open it"));
                });
        }
    }

    /// Wide windows: the composer on the left, the policy on the right, each resizable.
    fn side_panels(&mut self, ui: &mut Ui) -> Vec<ComposerAction> {
        let (left_max, right_max) = side_panel_max(ui.available_width());
        let left = egui::Panel::left("composer_panel")
            .default_size(self.layout.composer_width.min(left_max))
            .size_range(*COMPOSER_WIDTH_RANGE.start()..=left_max)
            .resizable(true)
            .show(ui, |ui| self.composer_scroll(ui));
        self.layout.composer_width = left.response.rect.width();
        let right = egui::Panel::right("policy_panel")
            .default_size(self.layout.policy_width.min(right_max))
            .size_range(*POLICY_WIDTH_RANGE.start()..=right_max)
            .resizable(true)
            .show(ui, |ui| self.policy_scroll(ui));
        self.layout.policy_width = right.response.rect.width();
        left.inner
    }

    /// Narrow windows (below [`STACK_BELOW_WIDTH`]): one side panel with Request and Policy as
    /// tabs, so the timeline keeps a usable width.
    fn stacked_side_panel(&mut self, ui: &mut Ui) -> Vec<ComposerAction> {
        let total = ui.available_width();
        let max = (total - MIN_STACKED_TIMELINE_WIDTH).max(*COMPOSER_WIDTH_RANGE.start());
        let panel = egui::Panel::left("stacked_side_panel")
            .default_size(self.layout.stacked_width.min(max))
            .size_range(*COMPOSER_WIDTH_RANGE.start()..=max)
            .resizable(true)
            .show(ui, |ui| {
                tab_row(ui, &mut self.layout.side_tab, &SIDE_TABS);
                ui.separator();
                match self.layout.side_tab {
                    SideTab::Request => self.composer_scroll(ui),
                    SideTab::Policy => {
                        self.policy_scroll(ui);
                        Vec::new()
                    }
                }
            });
        self.layout.stacked_width = panel.response.rect.width();
        panel.inner
    }

    fn composer_scroll(&mut self, ui: &mut Ui) -> Vec<ComposerAction> {
        let (actions, status) = self.request.ui(ui);
        if status.is_some() {
            self.status = status;
        }
        actions
    }

    fn policy_scroll(&mut self, ui: &mut Ui) {
        egui::ScrollArea::vertical()
            .auto_shrink([false, true])
            .id_salt("policy_scroll")
            .show(ui, |ui| self.policy_panel(ui));
    }

    fn on_shortcut(&mut self, ctx: &egui::Context, shortcut: Shortcut) {
        match shortcut {
            Shortcut::Send => self.send(),
            Shortcut::Cancel if self.profile.pending_switch.is_none() => self.cancel_selected(),
            Shortcut::Cancel => {}
            Shortcut::Open => self.open_dialog(),
            Shortcut::Save => self.save(),
            Shortcut::SaveAs => self.save_as(),
            Shortcut::Undo => {
                self.status = Some(match self.request.composer.undo() {
                    Some(what) => (
                        false,
                        format!("Undid {what} in the request (Ctrl+Shift+Z redoes it)"),
                    ),
                    None => (false, "Nothing to undo in the request".to_owned()),
                });
            }
            Shortcut::Redo => {
                self.status = Some(match self.request.composer.redo() {
                    Some(what) => (false, format!("Redid {what} in the request")),
                    None => (false, "Nothing to redo in the request".to_owned()),
                });
            }
            Shortcut::Quit => {
                let live = self.live_work();
                self.quit.request(ctx, live);
            }
        }
    }

    /// Keeps the first delay header (`Retry-After: 2`) that run `run_id`'s server sent, for the
    /// preview's and the Lab's warning when the profile does not read it; a run without one
    /// clears it.
    fn note_delay_hint(&mut self, run_id: crate::model::RunId) {
        let Some(timeline) = self.runs.timeline(run_id) else {
            return;
        };
        let hint = timeline.attempts().iter().find_map(|a| {
            let result = a.result.as_ref()?;
            crate::policy::delay_hint(&result.outcome).map(|hint| (hint, a.number))
        });
        self.lab.last_delay_hint = hint;
    }

    /// What quitting now would interrupt: this session's unfinished runs, a batch worked here,
    /// the watch started here.
    pub fn live_work(&self) -> super::quit_guard::LiveWork {
        super::quit_guard::LiveWork {
            runs: self.runs.active_runs().len(),
            batch: self.batch.works_a_batch(),
            watch: self.request.composer.watch.watching().is_some(),
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_panels_leave_the_timeline_its_minimum() {
        let (left, right) = side_panel_max(1280.0);
        assert!(
            1280.0 - left - right >= MIN_TIMELINE_WIDTH - 0.01,
            "{left} + {right}"
        );
        // Wide windows: each panel's own maximum.
        assert_eq!(side_panel_max(4000.0), (600.0, 640.0));
        // Narrow windows: the minimums, never less.
        let (left, right) = side_panel_max(700.0);
        assert!(left >= 240.0 && right >= 280.0, "{left}, {right}");
    }
}
