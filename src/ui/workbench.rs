//! All of the app's state and its frame: the composer (left), the policy editor and preview
//! (right), the live timeline (centre). No `eframe::Frame` here, so `egui_kittest` drives it.

mod batch_actions;
mod history_actions;
mod retry_settings;

use batch_actions::CentreTab;
pub use history_actions::{PAST_RUN_IDS, masked_field};

use super::composer::{Composer, ComposerAction};
use super::confirm_modal::{ConfirmAnswer, confirm_discard};
use super::engine_link::EngineLink;
use super::environment_editor::EnvironmentPanel;
use super::error_panel::LoadFailure;
use super::file_dialogs::{DialogAnswer, DialogPurpose, FileDialogHost, FileDialogs};
use super::latest_worker::{JobRunner, LatestWorker};
use super::persistence::{LayoutPrefs, PersistedProfile, PersistedWorkbench, SideTab};
use super::policy_editor::PolicyEditor;
use super::preview_strip::PreviewCache;
use super::profile_library::{
    CurrentProfile, DEFAULT_BUILTIN, ProfileSource, builtin_profile, fallback_default_profile,
    file_name, picker_entries, scan_library,
};
use super::profile_problems::{problems_ui, warnings_ui};
use super::request_draft::{RequestDraft, demo_failure_status};
use super::request_library_panel::RequestLibraryPanel;
use super::shortcuts::{Shortcut, take_shortcuts};
use super::text_sizes::install_text_sizes;
use super::theme::ThemeChoice;
use super::timeline::{RunsState, TimelineAction, url_path};
use crate::profile::{self, ProfileIssue};
use crate::service::Command;
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
/// Stands for the demo server's base URL in persisted requests (its port changes per start).
pub(crate) const DEMO_PLACEHOLDER: &str = "{{demo}}";

/// Everything a workbench needs from outside.
pub struct WorkbenchSetup {
    /// The engine (real service or a [`super::engine_link::ChannelEngine`] in tests).
    pub engine: Box<dyn EngineLink>,
    /// File pickers (real rfd ones or [`super::file_dialogs::ScriptedDialogs`]).
    pub dialogs: Box<dyn FileDialogs>,
    /// `http://127.0.0.1:PORT` of the embedded demo server, when running.
    pub demo_base_url: Option<String>,
    /// The user's profile library folder (`None` = no library).
    pub library_dir: Option<PathBuf>,
    /// State saved by the previous session.
    pub persisted: Option<PersistedWorkbench>,
}

/// Something that replaces the current profile (asks first when it has unsaved edits).
#[derive(Debug, Clone, PartialEq)]
enum Switch {
    To(ProfileSource),
    LoadFile(PathBuf),
    /// A profile file the picker already read (off the UI thread): its bytes or why not.
    LoadRead(PathBuf, Result<Vec<u8>, String>),
    /// A profile imported from another tool's settings ("Import from…"), unsaved.
    Imported(Box<crate::model::RetryProfile>),
}

impl Switch {
    fn describe(&self) -> String {
        match self {
            Switch::To(ProfileSource::Builtin(id)) => format!("The built-in {id}"),
            Switch::To(ProfileSource::File(p)) | Switch::LoadFile(p) | Switch::LoadRead(p, _) => {
                format!("{}", p.display())
            }
            Switch::To(ProfileSource::Unsaved) => "Another profile".into(),
            Switch::Imported(p) => format!("The imported profile \"{}\"", p.name),
        }
    }
}

/// The whole workbench.
pub struct WorkbenchState {
    engine: Box<dyn EngineLink>,
    dialogs: FileDialogHost,
    /// The request composer.
    pub composer: Composer,
    /// The profile being edited.
    pub current: CurrentProfile,
    /// Every run of the session.
    pub runs: RunsState,
    policy_editor: PolicyEditor,
    /// Compile check, problems and preview of the current profile (computed off the frame).
    preview: PreviewCache,
    /// Number fields whose text is not a number (Send and Save refuse meanwhile).
    invalid_fields: super::number_field::InvalidFields,
    /// Set when another profile replaced the current one: what was typed into its number
    /// fields is dropped at the next frame.
    forget_typed_profile_fields: bool,
    demo_base_url: Option<String>,
    library_dir: Option<PathBuf>,
    library: Vec<PathBuf>,
    /// Re-lists the library folder off the frame (after a save or open, and on Refresh).
    library_scan: LatestWorker<PathBuf, Vec<PathBuf>>,
    opened: Vec<PathBuf>,
    load_failure: Option<LoadFailure>,
    pending_switch: Option<Switch>,
    /// Why the prompt's Save did not save (shown in the prompt, which stays open).
    confirm_problem: Option<String>,
    /// The switch to perform once the prompt's Save As… has saved.
    switch_after_save: Option<Switch>,
    status: Option<(bool, String)>,
    theme: ThemeChoice,
    applied_theme: Option<ThemeChoice>,
    remember_secrets: bool,
    layout: LayoutPrefs,
    title: String,
    clock: Option<Box<dyn Fn() -> Instant>>,
    /// Saved requests (left panel).
    pub requests: RequestLibraryPanel,
    /// Environments: picker and editor.
    pub environments: EnvironmentPanel,
    store: StoreLink,
    /// The History panel (centre, beside the timeline).
    pub history: super::history::HistoryPanel,
    /// The Batch tab (centre, beside the timeline and the History panel).
    pub batch: super::batch::BatchPanel,
    /// The centre shows the Batch tab (not persisted: a fresh start shows the timeline).
    batch_shown: bool,
    /// The batch start-up line as last put in the status line (kept current while shown).
    batch_line: Option<String>,
    /// Past runs opened from the history so far (their ids count up from [`PAST_RUN_IDS`]).
    past_runs: crate::model::RunId,
    /// "Export PNG…" of a run: waiting for a file name, then drawn and written off the frame.
    png_export: super::png_export::PngExport,
    /// "Export as…": the profile as another tool's retry settings.
    retry_export: super::retry_export_modal::RetryExporter,
    /// "Import from…": another tool's retry settings into a profile.
    retry_import: super::retry_import_modal::RetryImporter,
    /// The About window (version, licence, folders); tests may replace its folders and opener.
    pub about: super::about_window::AboutWindow,
    /// The Lab tab (centre, beside the timeline and the history).
    pub lab: super::lab::LabPanel,
    /// The centre shows the Lab (not remembered between sessions).
    lab_shown: bool,
}

/// A request ready to start: resolved spec, the secret values it was built from, tab title.
struct ComposedRun {
    spec: crate::model::RequestSpec,
    secrets: Vec<String>,
    title: String,
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
            .map_or_else(default_current, restore_profile);
        let draft = match persisted.request.clone() {
            Some(mut d) => {
                if let Some(base) = &demo {
                    d.url = d.url.replace(DEMO_PLACEHOLDER, base);
                }
                d
            }
            None => RequestDraft::demo(
                demo.as_deref().unwrap_or("http://127.0.0.1:8080"),
                demo_failure_status(&current.profile),
            ),
        };
        let library = setup
            .library_dir
            .as_deref()
            .map(scan_library)
            .unwrap_or_default();
        Self {
            engine: setup.engine,
            dialogs: FileDialogHost::new(setup.dialogs, setup.library_dir.clone()),
            composer: Composer::new(draft),
            current,
            runs: RunsState::default(),
            policy_editor: PolicyEditor::default(),
            preview: PreviewCache::default(),
            invalid_fields: super::number_field::InvalidFields::default(),
            forget_typed_profile_fields: false,
            demo_base_url: demo,
            library_dir: setup.library_dir,
            library,
            library_scan: LatestWorker::inline(library_scanner()),
            opened: persisted.opened_files,
            load_failure: None,
            pending_switch: None,
            confirm_problem: None,
            switch_after_save: None,
            status: None,
            theme: persisted.theme,
            applied_theme: None,
            remember_secrets: persisted.remember_secrets,
            layout: persisted.layout,
            title: String::new(),
            clock: None,
            requests: RequestLibraryPanel::default(),
            environments: EnvironmentPanel::default(),
            store: StoreLink {
                secrets: std::sync::Arc::new(crate::store::MemorySecretStore::new()),
                memory_only: Some("no secret store attached".into()),
                restored_env: persisted.environment,
                remembered: Vec::new(),
                run_secrets: std::collections::HashMap::new(),
            },
            history: super::history::HistoryPanel::with_prefs(
                persisted.history_retention,
                persisted.history_filters,
            ),
            batch: super::batch::BatchPanel::new(),
            batch_shown: false,
            batch_line: None,
            past_runs: 0,
            png_export: super::png_export::PngExport::default(),
            retry_export: super::retry_export_modal::RetryExporter::default(),
            retry_import: super::retry_import_modal::RetryImporter::default(),
            about: super::about_window::AboutWindow::new(
                super::about_window::current_folders(),
                Box::new(super::about_window::SystemOpener),
            ),
            lab: super::lab::LabPanel::default(),
            lab_shown: false,
        }
    }

    /// Moves the profile analysis (compile check, problems, preview) to a worker thread that
    /// calls `waker` when a result is ready (the app; tests keep it inline, in the frame).
    /// The Lab's simulations move to worker threads too.
    pub fn analyse_in_background(&mut self, waker: std::sync::Arc<dyn Fn() + Send + Sync>) {
        self.lab = super::lab::LabPanel::spawn(&waker);
        self.library_scan = LatestWorker::spawn(
            "library-scan",
            library_scanner(),
            std::sync::Arc::clone(&waker),
        );
        self.preview = PreviewCache::new(super::profile_analysis::AnalysisWorker::spawn(waker));
    }

    /// Whether the centre shows the Lab tab.
    pub fn lab_shown(&self) -> bool {
        self.lab_shown
    }

    /// Shows the Lab tab.
    pub fn show_lab(&mut self) {
        self.lab_shown = true;
        self.batch_shown = false;
        self.layout.history_shown = false;
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
        self.requests = RequestLibraryPanel::new(
            data_dir.map(RequestLibrary::in_data_dir),
            self.demo_base_url.clone(),
        );
        self.environments = EnvironmentPanel::new(
            data_dir.map(|d| EnvironmentStore::in_data_dir(d, secrets.store.clone())),
            secrets.fallback_reason.clone(),
        );
        self.environments
            .select(self.store.restored_env.take().as_deref());
        self.store.secrets = secrets.store;
        self.store.memory_only = secrets.fallback_reason;
        if self.remember_secrets {
            let store = self.store.secrets.clone();
            let failure = std::cell::RefCell::new(None);
            let found = std::cell::RefCell::new(Vec::new());
            self.composer.draft.fill_secrets(|slot| {
                let value = store
                    .get(&format!("{REMEMBER_PREFIX}{slot}"))
                    .map_err(|e| *failure.borrow_mut() = Some(e))
                    .ok()
                    .flatten()?;
                found.borrow_mut().push((slot.to_owned(), value.clone()));
                Some(value)
            });
            if let Some(e) = failure.into_inner() {
                self.status = Some((true, format!("cannot restore remembered secrets: {e}")));
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
            self.composer.draft.secret_slots()
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

    /// Replaces the clock used for the timeline's "now" (tests pin it).
    pub fn set_clock(&mut self, clock: impl Fn() -> Instant + 'static) {
        self.clock = Some(Box::new(clock));
    }

    fn now(&self) -> Instant {
        self.clock.as_ref().map_or_else(Instant::now, |c| c())
    }

    /// The window title: `Retryscope — <profile name>`, with ` •` when it has unsaved edits.
    pub fn window_title(&self) -> String {
        let dot = if self.current.is_dirty() { " •" } else { "" };
        format!("Retryscope — {}{dot}", self.current.profile.name)
    }

    /// The last problem loading a profile, if shown.
    pub fn load_failure(&self) -> Option<&LoadFailure> {
        self.load_failure.as_ref()
    }

    /// The preview cache (simulation of the current profile).
    pub fn preview(&self) -> &PreviewCache {
        &self.preview
    }

    /// Whether a confirm-discard prompt is open.
    pub fn is_confirm_open(&self) -> bool {
        self.pending_switch.is_some()
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
        let mut request = self.composer.draft.without_secrets();
        if let Some(base) = &self.demo_base_url
            && request.url.starts_with(base.as_str())
        {
            request.url = request.url.replacen(base.as_str(), DEMO_PLACEHOLDER, 1);
        }
        let dirty = self.current.is_dirty();
        PersistedWorkbench {
            request: Some(request),
            remember_secrets: self.remember_secrets,
            profile: Some(PersistedProfile {
                source: self.current.source.clone(),
                embedded_json: (dirty || self.current.source == ProfileSource::Unsaved)
                    .then(|| profile::to_json_pretty(&self.current.profile)),
                dirty,
            }),
            opened_files: self.opened.clone(),
            layout: self.layout,
            theme: self.theme,
            environment: self
                .environments
                .selected()
                .map(str::to_owned)
                .or_else(|| self.store.restored_env.clone()),
            history_retention: self.history.retention,
            history_filters: self.history.filters.clone(),
        }
    }

    /// Per-frame work outside drawing: drain engine events (time-boxed to
    /// [`DRAIN_BUDGET_MS`]), take dialog answers and dropped files, apply theme and title, and
    /// schedule the next repaint only when the timeline needs one.
    pub fn logic(&mut self, ctx: &egui::Context) {
        let start = Instant::now();
        let budget = Duration::from_millis(DRAIN_BUDGET_MS);
        while let Some(event) = self.engine.try_recv() {
            let now = self.now();
            let run_id = event.run_id();
            let event = match self.store.run_secrets.get(&run_id) {
                Some(secrets) => crate::model::mask_event_secrets(event, secrets),
                None => event,
            };
            if matches!(event, crate::model::RunEvent::RunFinished { .. }) {
                self.store.run_secrets.remove(&run_id);
                // Committed before this event arrived: the list shows the run now.
                self.history.refresh();
            }
            self.runs.apply(&event, now);
            if start.elapsed() >= budget {
                ctx.request_repaint();
                break;
            }
        }
        self.poll_history();
        let now = self.now();
        self.batch.poll(now);
        self.follow_batch_startup_line();
        while let Some(answer) = self.dialogs.poll() {
            self.on_dialog_answer(answer);
        }
        if let Some(status) = self.png_export.poll() {
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
        if std::mem::take(&mut self.forget_typed_profile_fields) {
            super::number_field::forget_typed_fields(ui.ctx(), "profile.");
        }
        self.invalid_fields = super::number_field::invalid_fields(ui.ctx());
        for shortcut in take_shortcuts(ui.ctx()) {
            self.on_shortcut(shortcut);
        }
        self.preview.refresh(&self.current.profile);
        if let Some(library) = self.library_scan.poll() {
            self.library = library;
        }
        egui::Panel::top("toolbar").show(ui, |ui| self.toolbar(ui));
        if let Some(failure) = self.load_failure.clone() {
            // A fixed height from the number of problems: a bottom panel otherwise keeps the
            // height of its first frame, and the list inside shrinks to fit it.
            egui::Panel::bottom("load_errors_panel")
                .resizable(false)
                .exact_size(failure.panel_height(ui))
                .show(ui, |ui| {
                    if failure.ui(ui) {
                        self.load_failure = None;
                    }
                });
        }
        let edits_before = self.composer.edits;
        let composer_actions = if ui.available_width() < STACK_BELOW_WIDTH {
            self.stacked_side_panel(ui)
        } else {
            self.side_panels(ui)
        };
        if self.composer.edits != edits_before {
            self.clear_refusal();
        }
        for action in composer_actions {
            match action {
                ComposerAction::Send => self.send(),
                ComposerAction::BrowseBodyFile => self.dialogs.request(DialogPurpose::BodyFile),
                ComposerAction::ImportHar => self.dialogs.request(DialogPurpose::HarFile),
            }
        }
        let now = self.now();
        let mut batch_actions = Vec::new();
        let actions = egui::CentralPanel::default()
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    let mut tab =
                        match (self.lab_shown, self.batch_shown, self.layout.history_shown) {
                            (true, _, _) => CentreTab::Lab,
                            (false, true, _) => CentreTab::Batch,
                            (false, false, true) => CentreTab::History,
                            (false, false, false) => CentreTab::Timeline,
                        };
                    ui.selectable_value(&mut tab, CentreTab::Timeline, "Timeline")
                        .on_hover_text("the runs of this session, live");
                    ui.selectable_value(&mut tab, CentreTab::History, "History")
                        .on_hover_text("every recorded run: filter, open, re-run, compare, delete");
                    ui.selectable_value(&mut tab, CentreTab::Batch, "Batch")
                        .on_hover_text(
                            "work a list of requests through the current profile, durably",
                        );
                    ui.selectable_value(&mut tab, CentreTab::Lab, "Lab").on_hover_text(
                        "the profile's wait distribution, many clients contending, layered retries",
                    );
                    self.lab_shown = tab == CentreTab::Lab;
                    self.batch_shown = tab == CentreTab::Batch;
                    self.layout.history_shown = tab == CentreTab::History;
                });
                ui.separator();
                if self.lab_shown {
                    self.lab.ui(ui, &self.current.profile);
                    if let Some(suggested_name) = self.lab.export.take_request() {
                        self.dialogs
                            .request(DialogPurpose::ExportLab { suggested_name });
                    }
                    Vec::new()
                } else if self.batch_shown {
                    batch_actions = self.batch.ui(ui, &self.current.profile, now);
                    Vec::new()
                } else if self.layout.history_shown {
                    self.history.ui(ui);
                    Vec::new()
                } else {
                    self.runs.ui(ui, now)
                }
            })
            .inner;
        self.on_batch_actions(batch_actions);
        for action in actions {
            let command = match action {
                TimelineAction::Cancel(id) => Command::Cancel(id),
                TimelineAction::SkipWait(id) => Command::SkipWait(id),
                TimelineAction::ExportPng(id) => {
                    self.png_export.ask(id, ui.ctx());
                    self.dialogs.request(DialogPurpose::ExportPng {
                        suggested_name: format!("retryscope-run-{id}.png"),
                    });
                    continue;
                }
            };
            self.send_command(command);
        }
        self.retry_settings_modals(ui);
        self.confirm_prompt(ui);
        self.dialogs.ui(ui, &self.opened);
        self.about.ui(ui.ctx());
        if let Some(status) = self.environments.window_ui(ui.ctx()) {
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
                ui.horizontal(|ui| {
                    let tab = &mut self.layout.side_tab;
                    ui.selectable_value(tab, SideTab::Request, "Request")
                        .on_hover_text("the request composer");
                    ui.selectable_value(tab, SideTab::Policy, "Policy")
                        .on_hover_text("the retry policy and its preview");
                });
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
        // Vertical only: rows fit the panel's width (text fields shrink, long text is cut with
        // an ellipsis and shown whole on hover), so no sideways scroll can hide Send.
        egui::ScrollArea::vertical()
            .auto_shrink([false, true])
            .id_salt("composer_scroll")
            .show(ui, |ui| {
                if let Some(status) = self.requests.ui(ui, &mut self.composer) {
                    self.status = Some(status);
                }
                self.environments.picker_ui(ui);
                ui.separator();
                self.composer.ui(ui)
            })
            .inner
    }

    fn policy_scroll(&mut self, ui: &mut Ui) {
        egui::ScrollArea::vertical()
            .auto_shrink([false, true])
            .id_salt("policy_scroll")
            .show(ui, |ui| self.policy_panel(ui));
    }

    /// A secret variable the request uses that has no value (lost with the last session where
    /// there is no keyring): sending would put an empty credential on the wire.
    fn empty_secret_used(&self, vars: &crate::model::Variables) -> Option<String> {
        let draft = serde_json::to_string(&self.composer.draft).unwrap_or_default();
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
    fn invalid_field_problem(&self, action: &str) -> Option<String> {
        let (_, problem) = self.invalid_fields.0.iter().next()?;
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
    fn compose(&mut self) -> Option<ComposedRun> {
        if let Some(problem) = self.invalid_field_problem("send") {
            self.status = Some((true, problem));
            return None;
        }
        if let Some(problem) = self.composer.send_blocker() {
            self.status = Some((true, format!("cannot send: {problem}")));
            return None;
        }
        // The same checks `profile validate` and the CLI apply (including the custom script's
        // dry run), so the window never sends under a profile the CLI would refuse.
        if let Some(problem) = self.profile_problem("send") {
            self.status = Some((true, problem));
            return None;
        }
        let vars = self.environments.variables();
        if let Some(problem) = self.empty_secret_used(&vars) {
            self.status = Some((true, problem));
            return None;
        }
        let fresh_uuid = uuid::Uuid::new_v4().to_string();
        let spec = match self.composer.draft.to_spec(&vars, &fresh_uuid) {
            Ok(spec) => spec,
            Err(unknown) => {
                self.status = Some((true, format!("cannot send: {unknown}")));
                return None;
            }
        };
        if let Some(problem) = super::url_check::url_problem(&spec.url) {
            self.status = Some((
                true,
                format!("cannot send: the URL after variables: {problem}"),
            ));
            return None;
        }
        let mut secrets = vars.secret_values();
        secrets.extend(
            self.composer
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
        // The tab already says `Run N`: the title is `METHOD /path?query`, like the timeline's,
        // from the resolved URL with secret variables and URL credentials masked.
        let shown_url = crate::model::secrets::mask_url(&crate::model::resolve_text_masked(
            self.composer.draft.url.trim(),
            &vars,
            &fresh_uuid,
        ));
        let title = crate::model::mask_secret_values(
            &format!("{} {}", spec.method, url_path(&shown_url)),
            &secrets,
        );
        Some(ComposedRun {
            spec,
            secrets,
            title,
        })
    }

    /// Starts `composed` under the current profile with `seed`.
    fn start_composed(&mut self, composed: ComposedRun, seed: Option<u64>) {
        let ComposedRun {
            spec,
            secrets,
            title,
        } = composed;
        let run_id = self.engine.next_run_id();
        let sent = super::timeline::SentRequest {
            spec: spec.clone(),
            secrets: secrets.clone(),
        };
        if !secrets.is_empty() {
            self.store.run_secrets.insert(run_id, secrets.clone());
        }
        let command = Command::Start {
            run_id,
            spec,
            profile: self.current.profile.clone(),
            seed,
            secrets,
        };
        if self.engine.send(command) {
            self.runs.add_run(run_id, title);
            self.runs.set_request(run_id, sent);
            self.status = None;
        } else {
            self.status = Some((true, "cannot start the run: the engine is not running or is saturated; try again or restart Retryscope".into()));
        }
    }

    /// Cancels the selected run if it is still running (Esc).
    pub fn cancel_selected(&mut self) {
        if let Some(id) = self.runs.selected()
            && self.runs.active_runs().contains(&id)
        {
            self.send_command(Command::Cancel(id));
        }
    }

    /// Loads a profile file (Open…, drag-and-drop, `--profile`); asks first when the current
    /// profile has unsaved edits. Invalid files leave the current profile untouched.
    pub fn open_profile_path(&mut self, path: PathBuf) {
        self.request_switch(Switch::LoadFile(path));
    }

    /// `cannot {action}: the profile has a problem: …` when `validate` finds any, else `None`.
    fn profile_problem(&mut self, action: &str) -> Option<String> {
        if let Some(problem) = self.invalid_field_problem(action) {
            return Some(problem);
        }
        // The worker's list when it is of this very value; else validate now (a click, not a
        // frame of typing).
        let issues = self
            .preview
            .issues_of(&self.current.profile)
            .map_or_else(|| profile::validate(&self.current.profile), <[_]>::to_vec);
        let first = issues.first()?;
        let more = match issues.len() - 1 {
            0 => String::new(),
            n => format!(" (+{n} more, listed under Problems in the policy panel)"),
        };
        Some(format!(
            "cannot {action}: the profile has a problem: {first}{more}"
        ))
    }

    /// Save (Ctrl+S): to the profile's file, or Save As… when it has none. A profile with
    /// problems is not saved (the file would not load again); it stays in the window.
    pub fn save(&mut self) {
        if let Some(problem) = self.profile_problem("save") {
            self.status = Some((true, problem));
            return;
        }
        match self.current.path().map(Path::to_path_buf) {
            Some(path) => self.save_to(path),
            None => self.save_as(),
        }
    }

    /// Save As… (Ctrl+Shift+S): asks for a path off the UI thread (not for a profile with problems).
    pub fn save_as(&mut self) {
        if let Some(problem) = self.profile_problem("save") {
            self.status = Some((true, problem));
            return;
        }
        self.dialogs.request(DialogPurpose::SaveProfileAs {
            suggested_name: suggested_file_name(&self.current.profile.name),
        });
    }

    /// Whether a file chosen in the in-app picker is still being read (off the UI thread).
    pub fn is_reading_a_file(&self) -> bool {
        self.dialogs.is_reading()
    }

    /// Open… (Ctrl+O): asks for a path off the UI thread.
    pub fn open_dialog(&mut self) {
        self.dialogs.request(DialogPurpose::OpenProfile);
    }

    /// Drops a "cannot send / cannot save" message once the user edits what it was about: it
    /// described the state before the edit.
    fn clear_refusal(&mut self) {
        if self.status.as_ref().is_some_and(|(is_error, text)| {
            *is_error && (text.starts_with("cannot send") || text.starts_with("cannot save"))
        }) {
            self.status = None;
        }
    }

    fn send_command(&mut self, command: Command) {
        if !self.engine.send(command) {
            self.status = Some((
                true,
                "the engine did not take the command; restart Retryscope if this repeats".into(),
            ));
        }
    }

    fn on_shortcut(&mut self, shortcut: Shortcut) {
        match shortcut {
            Shortcut::Send => self.send(),
            Shortcut::Cancel if self.pending_switch.is_none() => self.cancel_selected(),
            Shortcut::Cancel => {}
            Shortcut::Open => self.open_dialog(),
            Shortcut::Save => self.save(),
            Shortcut::SaveAs => self.save_as(),
        }
    }

    fn on_dialog_answer(&mut self, answer: DialogAnswer) {
        let contents = answer.contents;
        let Some(path) = answer.path else {
            if let DialogPurpose::ExportPng { .. } = answer.purpose {
                self.png_export.take_pending();
            }
            if let DialogPurpose::ExportRetrySettings { .. } = answer.purpose {
                self.retry_export.take_pending();
            }
            if let DialogPurpose::ExportLab { .. } = answer.purpose {
                self.lab.export.cancel();
            }
            // The prompt's Save As… was cancelled: the prompt comes back.
            if let DialogPurpose::SaveProfileAs { .. } = answer.purpose
                && let Some(switch) = self.switch_after_save.take()
            {
                self.pending_switch = Some(switch);
            }
            return;
        };
        match answer.purpose {
            DialogPurpose::OpenProfile => match contents {
                Some(read) => self.request_switch(Switch::LoadRead(path, read)),
                None => self.open_profile_path(path),
            },
            DialogPurpose::SaveProfileAs { .. } => {
                let path = if path.extension().is_some() {
                    path
                } else {
                    path.with_extension("json")
                };
                self.save_to(path);
                if let Some(switch) = self.switch_after_save.take() {
                    self.after_prompt_save(switch);
                }
            }
            DialogPurpose::BodyFile => {
                self.composer.draft.body.file_path = path.display().to_string();
                self.composer.edits += 1;
            }
            DialogPurpose::HarFile => {
                let read = contents.unwrap_or_else(|| Err("the file was not read".into()));
                if let Err(problem) = self.composer.har_import.open_read(&path, read) {
                    self.status = Some((true, problem));
                }
            }
            DialogPurpose::BatchList => self.batch.set_list_path(&path),
            DialogPurpose::ExportLab { .. } => self.lab.export.start(path),
            DialogPurpose::ExportRetrySettings { .. } | DialogPurpose::ImportRetrySettings(_) => {
                self.on_retry_settings_path(&answer.purpose, &path, contents);
            }
            DialogPurpose::ExportPng { .. } => {
                let events = self
                    .png_export
                    .take_pending()
                    .and_then(|id| self.runs.timeline(id))
                    .map(super::timeline::timeline_events);
                if let Some(events) = events
                    && let Err(problem) = self.png_export.start(events, path)
                {
                    self.status = Some((true, problem));
                }
            }
        }
    }

    fn on_dropped(&mut self, path: PathBuf) {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            self.open_profile_path(path);
        } else {
            self.load_failure = Some(LoadFailure {
                what: path.display().to_string(),
                issues: vec![ProfileIssue {
                    path: String::new(),
                    line: None,
                    column: None,
                    message: "not a .json file; drop a Retryscope profile (JSON)".into(),
                }],
            });
        }
    }

    fn request_switch(&mut self, switch: Switch) {
        if self.current.is_dirty() {
            self.pending_switch = Some(switch);
        } else {
            self.perform_switch(switch);
        }
    }

    fn perform_switch(&mut self, switch: Switch) {
        match switch {
            Switch::To(ProfileSource::Builtin(id)) => match builtin_profile(&id) {
                Some(p) => {
                    self.current = CurrentProfile::clean(ProfileSource::Builtin(id), p);
                    self.forget_typed_profile_fields = true;
                    self.load_failure = None;
                }
                None => {
                    self.status = Some((true, format!("no built-in profile named {id}")));
                }
            },
            Switch::To(ProfileSource::File(path)) | Switch::LoadFile(path) => {
                let loaded = profile::load_file_noted(&path);
                self.apply_loaded(path, loaded);
            }
            Switch::LoadRead(path, read) => {
                let loaded = profile::load_read_noted(read);
                self.apply_loaded(path, loaded);
            }
            Switch::To(ProfileSource::Unsaved) => {}
            Switch::Imported(profile) => {
                let name = profile.name.clone();
                self.current = CurrentProfile {
                    source: ProfileSource::Unsaved,
                    profile: *profile,
                    saved: None,
                };
                self.forget_typed_profile_fields = true;
                self.load_failure = None;
                self.status = Some((false, format!("imported \"{name}\"; Save As… keeps it")));
            }
        }
    }

    /// The current profile becomes what was loaded from `path`, or the load failure is shown
    /// (the current profile stays).
    fn apply_loaded(
        &mut self,
        path: PathBuf,
        loaded: Result<profile::Loaded, profile::ProfileErrors>,
    ) {
        match loaded {
            Ok(loaded) => {
                let note = loaded.upgrade.map(|u| (false, u.note()));
                self.current =
                    CurrentProfile::clean(ProfileSource::File(path.clone()), loaded.profile);
                self.forget_typed_profile_fields = true;
                self.load_failure = None;
                self.remember_opened(path);
                // A `/1` file says that saving writes format 2 (DESIGN §7).
                self.status = note;
            }
            Err(errors) => {
                self.load_failure = Some(LoadFailure {
                    what: path.display().to_string(),
                    issues: errors.issues,
                });
            }
        }
    }

    fn save_to(&mut self, path: PathBuf) {
        match profile::save_atomic(&path, &self.current.profile) {
            Ok(()) => {
                self.current = CurrentProfile::clean(
                    ProfileSource::File(path.clone()),
                    self.current.profile.clone(),
                );
                self.status = Some((false, format!("saved {}", path.display())));
                self.remember_opened(path);
            }
            Err(e) => {
                self.status = Some((
                    true,
                    format!(
                        "cannot save the profile: {e}; pick another place with Save As… ({})",
                        path.display()
                    ),
                ));
            }
        }
    }

    /// Keeps `path` in the picker; the library folder is listed again off the frame (the picker
    /// shows a file of that folder once, as a library entry, when both lists hold it).
    fn remember_opened(&mut self, path: PathBuf) {
        self.rescan_library();
        if !self.library.contains(&path) && !self.opened.contains(&path) {
            self.opened.push(path);
        }
    }

    fn rescan_library(&mut self) {
        if let Some(dir) = &self.library_dir {
            self.library_scan.submit(dir.clone());
        }
    }

    fn toolbar(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.strong("Retryscope");
            ui.separator();
            if ui
                .button("Open…")
                .on_hover_text("open a profile file (Ctrl+O)")
                .clicked()
            {
                self.open_dialog();
            }
            if ui
                .button("Save")
                .on_hover_text("save the profile (Ctrl+S)")
                .clicked()
            {
                self.save();
            }
            if ui
                .button("Save As…")
                .on_hover_text("save the profile to a new file (Ctrl+Shift+S)")
                .clicked()
            {
                self.save_as();
            }
            ui.separator();
            let dirty = if self.current.is_dirty() { " •" } else { "" };
            ui.label(format!("Profile: {}{dirty}", self.current.profile.name))
                .on_hover_text("• = unsaved changes");
            ui.separator();
            ui.label("Theme");
            for choice in ThemeChoice::ALL {
                ui.selectable_value(&mut self.theme, choice, choice.label());
            }
            ui.separator();
            if ui
                .button("About")
                .on_hover_text("version, licence, and the folders Retryscope writes to")
                .clicked()
            {
                self.about.show();
            }
            ui.separator();
            let where_kept = match &self.store.memory_only {
                None => "in the OS keyring, never in a file".to_owned(),
                Some(reason) => format!("— but {reason}"),
            };
            let toggle = ui
                .checkbox(&mut self.remember_secrets, "Remember secrets")
                .on_hover_text(format!(
                    "keep secret header/query/auth values across restarts {where_kept}"
                ));
            // Without a keyring the box cannot do what it says: say so when it is ticked.
            if toggle.changed()
                && self.remember_secrets
                && let Some(reason) = &self.store.memory_only
            {
                self.status = Some((
                    true,
                    format!(
                        "secrets cannot be remembered: {reason}; they are kept only until \
                         Retryscope closes"
                    ),
                ));
            }
            if let Some((is_error, text)) = &self.status {
                ui.separator();
                // One line at most (a long message would push the whole layout down); the
                // whole text on hover and in the accessibility tree.
                let mut rich = egui::RichText::new(text.as_str());
                if *is_error {
                    rich = rich.color(ui.visuals().error_fg_color);
                }
                ui.add(egui::Label::new(rich).truncate())
                    .on_hover_text(text.as_str());
            }
        });
    }

    fn policy_panel(&mut self, ui: &mut Ui) {
        ui.heading("Retry policy");
        let entries = picker_entries(&self.library, &self.opened);
        let selected_label = entries
            .iter()
            .find(|e| e.source == self.current.source)
            .map_or_else(
                || format!("{} (unsaved)", self.current.profile.name),
                |e| e.label.clone(),
            );
        let mut chosen = None;
        ui.horizontal(|ui| {
            let label = ui.label("Profile");
            egui::ComboBox::from_id_salt("profile_picker")
                .selected_text(selected_label)
                .width(ui.available_width() - 10.0)
                .height(480.0)
                .truncate()
                .show_ui(ui, |ui| {
                    for e in &entries {
                        if ui
                            .selectable_label(e.source == self.current.source, &e.label)
                            .clicked()
                        {
                            chosen = Some(e.source.clone());
                        }
                    }
                })
                .response
                .labelled_by(label.id);
        });
        if let Some(source) = chosen
            && source != self.current.source
        {
            self.request_switch(Switch::To(source));
        }
        // Wraps at narrow panel widths instead of widening the panel.
        ui.horizontal_wrapped(|ui| {
            if self.current.is_read_only() {
                ui.weak("built-in (read-only)");
                if ui.button("Duplicate to edit").clicked() {
                    self.current = self.current.duplicate();
                }
            } else if let Some(p) = self.current.path() {
                ui.weak(format!("file: {}", file_name(p)))
                    .on_hover_text(p.display().to_string());
            } else {
                ui.weak("not saved yet");
            }
            self.retry_settings_buttons(ui);
            if let Some(dir) = &self.library_dir
                && ui
                    .small_button("Refresh library")
                    .on_hover_text(format!("list *.json in {}", dir.display()))
                    .clicked()
            {
                self.rescan_library();
            }
        });
        ui.separator();
        self.preview.ui(ui);
        problems_ui(ui, self.preview.issues());
        warnings_ui(ui, self.preview.warnings());
        ui.separator();
        let read_only = self.current.is_read_only();
        let error = self.preview.error().cloned();
        if self
            .policy_editor
            .ui(ui, &mut self.current.profile, read_only, error.as_ref())
        {
            self.clear_refusal();
            // The analysis is asked for at the start of the next frame; make sure there is one.
            ui.ctx().request_repaint();
        }
    }

    fn confirm_prompt(&mut self, ui: &Ui) {
        let Some(switch) = self.pending_switch.clone() else {
            return;
        };
        let problem = self.confirm_problem.as_deref();
        let answer = confirm_discard(ui, &self.current.profile.name, &switch.describe(), problem);
        if answer.is_some() {
            self.pending_switch = None;
            self.confirm_problem = None;
        }
        match answer {
            Some(ConfirmAnswer::Save) => self.save_then_switch(switch),
            Some(ConfirmAnswer::Discard) => self.perform_switch(switch),
            Some(ConfirmAnswer::Cancel) | None => {}
        }
    }

    /// The prompt's Save: saves to the profile's file (or asks where with Save As…, switching
    /// once that has saved), then performs `switch`. A profile with problems is not saved: the
    /// prompt stays open and says why.
    fn save_then_switch(&mut self, switch: Switch) {
        if let Some(problem) = self.profile_problem("save") {
            self.confirm_problem = Some(problem);
            self.pending_switch = Some(switch);
            return;
        }
        if let Some(path) = self.current.path().map(Path::to_path_buf) {
            self.save_to(path);
            self.after_prompt_save(switch);
        } else {
            self.switch_after_save = Some(switch);
            self.save_as();
        }
    }

    /// After the prompt's save: the switch when it saved, else the prompt again with the reason.
    fn after_prompt_save(&mut self, switch: Switch) {
        if self.current.is_dirty() {
            self.confirm_problem = self.status.as_ref().map(|(_, text)| text.clone());
            self.pending_switch = Some(switch);
        } else {
            // Keep "saved …" in the status line unless the switch has news of its own.
            let saved = self.status.take();
            self.perform_switch(switch);
            if self.status.is_none() {
                self.status = saved;
            }
        }
    }
}

fn default_current() -> CurrentProfile {
    let profile = builtin_profile(DEFAULT_BUILTIN).unwrap_or_else(fallback_default_profile);
    CurrentProfile::clean(ProfileSource::Builtin(DEFAULT_BUILTIN.into()), profile)
}

fn restore_profile(p: PersistedProfile) -> CurrentProfile {
    let from_source = match &p.source {
        ProfileSource::Builtin(id) => builtin_profile(id),
        ProfileSource::File(path) => profile::load_file(path).ok(),
        ProfileSource::Unsaved => None,
    };
    let embedded = p
        .embedded_json
        .as_deref()
        .and_then(|j| profile::load_str(j).ok());
    match (embedded, from_source) {
        (Some(profile), saved) if p.dirty => CurrentProfile {
            source: p.source,
            profile,
            saved,
        },
        (_, Some(saved)) => CurrentProfile::clean(p.source, saved),
        (Some(profile), None) => CurrentProfile {
            source: ProfileSource::Unsaved,
            profile,
            saved: None,
        },
        (None, None) => default_current(),
    }
}

/// `My API (copy)` → `my-api-copy.json`.
fn suggested_file_name(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "profile.json".into()
    } else {
        format!("{slug}.json")
    }
}

/// Lists `*.json` of the library folder (the library scan's job).
fn library_scanner() -> JobRunner<PathBuf, Vec<PathBuf>> {
    std::sync::Arc::new(|dir: PathBuf, _: &mut dyn FnMut(u64, u64) -> bool| {
        Some(scan_library(&dir))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_slugs() {
        assert_eq!(suggested_file_name("My API (copy)"), "my-api-copy.json");
        assert_eq!(suggested_file_name("???"), "profile.json");
    }

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
