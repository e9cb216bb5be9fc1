//! The workbench's profile files: open, save, save as, drop, the library rescan, and switching
//! profiles (asking first when the current one has unsaved edits).

use super::WorkbenchState;
use crate::model::RetryProfile;
use crate::profile::{self, ProfileIssue};
use crate::store::input_file::{PROFILE_FILE, read_input_file};
use crate::ui::background::Background;
use crate::ui::confirm_modal::{ConfirmAnswer, confirm_discard};
use crate::ui::error_panel::LoadFailure;
use crate::ui::file_dialogs::{DialogAnswer, DialogPurpose};
use crate::ui::persistence::PersistedProfile;
use crate::ui::profile_library::{CurrentProfile, ProfileSource, builtin_profile, file_stem};
use ProfileSource::Builtin;
use egui::Ui;
use std::path::{Path, PathBuf};

impl WorkbenchState {
    /// Loads a profile file (a library entry, drag-and-drop, `--profile`): read on the thread
    /// `profile-read`, then, when its bytes arrive, asks first when the current profile has
    /// unsaved edits. A newer read or switch drops an older read's reply; a file that cannot be
    /// read or is invalid leaves the current profile untouched.
    pub fn open_profile_path(&mut self, path: PathBuf) {
        let io = &mut self.profile.io;
        let number = io.next();
        let target = path.clone();
        let read = move || {
            let read = read_input_file(&target, PROFILE_FILE).map_err(|e| e.to_string());
            (number, target, read)
        };
        match io.reads.start("profile-read", io.ctx.clone(), read) {
            Ok(()) => io.reading = Some((number, path)),
            Err(e) => self.on_profile_read(path, Err(e.to_string())),
        }
    }

    /// Repaints `ctx` when a profile file's read or write ends (set by the first frame; the app
    /// sets it before, for `--profile`).
    pub fn repaint_on_file_replies(&mut self, ctx: &egui::Context) {
        self.profile.io.ctx = Some(ctx.clone());
    }

    /// Applies the replies of profile reads and saves that have arrived (every frame).
    pub(super) fn poll_profile_io(&mut self, ctx: &egui::Context) {
        self.profile.io.ctx.get_or_insert_with(|| ctx.clone());
        while let Some((number, path, read)) = self.profile.io.reads.poll() {
            if self
                .profile
                .io
                .reading
                .as_ref()
                .is_some_and(|(n, _)| *n == number)
            {
                self.profile.io.reading = None;
                self.on_profile_read(path, read);
            }
        }
        while let Some((number, path, written)) = self.profile.io.writes.poll() {
            self.on_saved(number, path, written);
        }
    }

    /// A profile file's bytes arrived (or why not): an unreadable file is shown as a load
    /// failure at once, a read one replaces the current profile (asking first when it has
    /// unsaved edits).
    fn on_profile_read(&mut self, path: PathBuf, read: Result<Vec<u8>, String>) {
        if read.is_ok() {
            self.request_switch(Switch::LoadRead(path, read));
        } else {
            self.apply_loaded(path, profile::load_read_noted(read));
        }
    }

    /// `cannot {action}: the profile has a problem: …` when `validate` finds any, else `None`.
    pub(super) fn profile_problem(&self, action: &str) -> Option<String> {
        if let Some(problem) = self.invalid_field_problem(action) {
            return Some(problem);
        }
        // The worker's list when it is of this very value; else validate now (a click, not a
        // frame of typing).
        let issues = self
            .profile
            .preview
            .issues_of(&self.profile.current.profile)
            .map_or_else(
                || profile::validate(&self.profile.current.profile),
                <[_]>::to_vec,
            );
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
        if self.refuse_save() {
            return;
        }
        match self.profile.current.path().map(Path::to_path_buf) {
            Some(path) => self.save_to(path),
            None => self.save_as(),
        }
    }

    /// Save As… (Ctrl+Shift+S): asks for a path off the UI thread (not for a profile with problems).
    pub fn save_as(&mut self) {
        if self.refuse_save() {
            return;
        }
        self.dialogs.request(DialogPurpose::SaveProfileAs {
            suggested_name: format!("{}.json", file_stem(&self.profile.current.profile.name)),
        });
    }

    /// Says why the profile cannot be saved, if it cannot; true then.
    fn refuse_save(&mut self) -> bool {
        let problem = self.profile_problem("save");
        problem.map(|p| self.fail(p)).is_some()
    }

    /// Whether a profile file, or a file chosen in the in-app picker, is still being read (off
    /// the UI thread).
    pub fn is_reading_a_file(&self) -> bool {
        self.dialogs.is_reading() || self.profile.io.reading.is_some()
    }

    /// Whether a profile is still being written (off the UI thread).
    pub fn is_saving_a_file(&self) -> bool {
        self.profile.io.saving
    }

    /// The profile file being read, if one is (the picker says so where the name shows).
    pub(super) fn profile_being_read(&self) -> Option<&Path> {
        self.profile
            .io
            .reading
            .as_ref()
            .map(|(_, path)| path.as_path())
    }

    /// Open… (Ctrl+O): asks for a path off the UI thread.
    pub fn open_dialog(&mut self) {
        self.dialogs.request(DialogPurpose::OpenProfile);
    }

    /// Drops a "cannot send / cannot save" message once the user edits what it was about: it
    /// described the state before the edit.
    pub(super) fn clear_refusal(&mut self) {
        if self.status.as_ref().is_some_and(|(is_error, text)| {
            *is_error && (text.starts_with("cannot send") || text.starts_with("cannot save"))
        }) {
            self.status = None;
        }
    }

    pub(super) fn on_dialog_answer(&mut self, answer: DialogAnswer) {
        if let DialogPurpose::ExportReport { .. } = answer.purpose {
            self.history.write_report(answer.path);
            return;
        }
        let contents = answer.contents;
        let Some(path) = answer.path else {
            match answer.purpose {
                DialogPurpose::ExportRun { .. } => _ = self.run_export.take_pending(),
                DialogPurpose::ExportRetrySettings { .. } => {
                    self.profile.retry_export.take_pending();
                }
                DialogPurpose::ExportLab { .. } => self.lab.export.cancel(),
                // The prompt's Save As… was cancelled: the prompt comes back.
                DialogPurpose::SaveProfileAs { .. } => {
                    if let Some(switch) = self.profile.switch_after_save.take() {
                        self.profile.pending_switch = Some(switch);
                    }
                }
                _ => {}
            }
            return;
        };
        match answer.purpose {
            DialogPurpose::OpenProfile => match contents {
                Some(read) => self.on_profile_read(path, read),
                None => self.open_profile_path(path),
            },
            DialogPurpose::SaveProfileAs { .. } => {
                self.save_to(crate::store::with_default_extension(path, "json"));
            }
            DialogPurpose::BodyFile => {
                self.request.composer.draft.body.file_path = path.display().to_string();
                self.request.composer.edits += 1;
            }
            DialogPurpose::HarFile => {
                let read = contents.unwrap_or_else(|| Err("the file was not read".into()));
                if let Err(problem) = self.request.composer.har_import.open_read(&path, read) {
                    self.fail(problem);
                }
            }
            DialogPurpose::BatchList => self.batch.set_list_path(&path),
            DialogPurpose::ExportReport { .. } => {}
            DialogPurpose::ExportLab { .. } => self.lab.export.start(path),
            DialogPurpose::ExportRetrySettings { .. } | DialogPurpose::ImportRetrySettings(_) => {
                self.on_retry_settings_path(&answer.purpose, &path, contents);
            }
            DialogPurpose::ExportRun { .. } => {
                let Some((id, file)) = self.run_export.take_pending() else {
                    return;
                };
                if let Some(contents) = self.runs.file_contents(id, file)
                    && let Err(problem) = self.run_export.start(file, contents, path)
                {
                    self.fail(problem);
                }
            }
        }
    }

    pub(super) fn on_dropped(&mut self, path: PathBuf) {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            self.open_profile_path(path);
        } else {
            self.profile.load_failure = Some(LoadFailure {
                what: path.display().to_string(),
                issues: vec![ProfileIssue::new(
                    "",
                    "not a .json file; drop a Retryscope profile (JSON)",
                )],
            });
        }
    }

    /// Replaces the current profile by `switch`, asking first when it has unsaved edits; a
    /// profile file is read first (off the frame), the question comes with its bytes.
    pub(super) fn request_switch(&mut self, switch: Switch) {
        if let Switch::To(ProfileSource::File(path)) = switch {
            self.open_profile_path(path);
        } else if self.profile.current.is_dirty() {
            self.profile.pending_switch = Some(switch);
        } else {
            self.perform_switch(switch);
        }
    }

    pub(super) fn perform_switch(&mut self, switch: Switch) {
        // The newest switch wins: a read still under way is dropped, and a save under way no
        // longer changes the profile that replaced the one it writes.
        self.profile.io.reading = None;
        self.profile.io.switched_at = self.profile.io.next();
        match switch {
            Switch::To(Builtin(id)) => match builtin_profile(&id) {
                Some(p) => self.replace_current(CurrentProfile::clean(Builtin(id), p)),
                None => self.fail(format!("no built-in profile named {id}")),
            },
            Switch::To(ProfileSource::File(path)) => self.open_profile_path(path),
            Switch::LoadRead(path, read) => {
                let loaded = profile::load_read_noted(read);
                self.apply_loaded(path, loaded);
            }
            Switch::To(ProfileSource::Unsaved) => {}
            Switch::Imported(profile) => {
                let name = profile.name.clone();
                self.replace_current(CurrentProfile::unsaved(*profile));
                self.status = Some((false, format!("imported \"{name}\"; Save As… keeps it")));
            }
        }
    }

    /// `current` replaces the profile being edited (what was typed into its fields and a load
    /// failure shown are dropped).
    fn replace_current(&mut self, current: CurrentProfile) {
        self.profile.current = current;
        self.profile.forget_typed_fields = true;
        self.profile.load_failure = None;
    }

    /// The current profile becomes what was loaded from `path`, or the load failure is shown
    /// (the current profile stays).
    pub(super) fn apply_loaded(
        &mut self,
        path: PathBuf,
        loaded: Result<profile::Loaded, profile::ProfileErrors>,
    ) {
        match loaded {
            Ok(loaded) => {
                let note = loaded.upgrade.map(|u| (false, u.note()));
                let source = ProfileSource::File(path.clone());
                self.replace_current(CurrentProfile::clean(source, loaded.profile));
                self.remember_opened(path);
                // A `/1` file says that saving writes format 2 (DESIGN §7).
                self.status = note;
            }
            Err(errors) => {
                self.profile.load_failure = Some(LoadFailure {
                    what: path.display().to_string(),
                    issues: errors.issues,
                });
            }
        }
    }

    /// Writes the profile to `path` on the thread `profile-save`; its reply marks the profile
    /// saved with what was written ([`Self::on_saved`]). One write at a time, so they land in
    /// order: a save asked for meanwhile waits, and only the newest waiting one is written.
    pub(super) fn save_to(&mut self, path: PathBuf) {
        let io = &mut self.profile.io;
        if io.saving {
            io.queued = Some(path);
            return;
        }
        let number = io.next();
        let (target, written) = (path.clone(), self.profile.current.profile.clone());
        let write = move || {
            let result = profile::save_atomic(&target, &written).map_err(|e| e.to_string());
            (number, target, result.map(|()| written))
        };
        match io.writes.start("profile-save", io.ctx.clone(), write) {
            Ok(()) => {
                io.saving = true;
                self.status = Some((false, format!("saving {} …", path.display())));
            }
            Err(e) => self.on_saved(number, path, Err(e.to_string())),
        }
    }

    /// A save's reply: the file holds `written` (an edit made meanwhile stays unsaved), or the
    /// error is shown and everything kept. Then the waiting save, else the prompt's switch.
    fn on_saved(&mut self, number: u64, path: PathBuf, written: Result<RetryProfile, String>) {
        self.profile.io.saving = false;
        match written {
            Ok(written) => {
                if self.profile.io.switched_at < number {
                    self.profile.current.source = ProfileSource::File(path.clone());
                    self.profile.current.saved = Some(written);
                }
                self.status = Some((false, format!("saved {}", path.display())));
                self.remember_opened(path);
            }
            Err(e) => {
                self.fail(format!(
                    "cannot save the profile: {e}; pick another place with Save As… ({})",
                    path.display()
                ));
            }
        }
        if let Some(next) = self.profile.io.queued.take() {
            self.save_to(next);
        } else if let Some(switch) = self.profile.switch_after_save.take() {
            self.after_prompt_save(switch);
        }
    }

    /// Keeps `path` in the picker; the library folder is listed again off the frame (the picker
    /// shows a file of that folder once, as a library entry, when both lists hold it).
    pub(super) fn remember_opened(&mut self, path: PathBuf) {
        self.library.rescan();
        if !self.library.files.contains(&path) && !self.library.opened.contains(&path) {
            self.library.opened.push(path);
        }
    }

    pub(super) fn confirm_prompt(&mut self, ui: &Ui) {
        let Some(switch) = self.profile.pending_switch.clone() else {
            return;
        };
        let problem = self.profile.confirm_problem.as_deref();
        let answer = confirm_discard(
            ui,
            &self.profile.current.profile.name,
            &switch.describe(),
            problem,
        );
        if answer.is_some() {
            self.profile.pending_switch = None;
            self.profile.confirm_problem = None;
        }
        match answer {
            Some(ConfirmAnswer::Save) => self.save_then_switch(switch),
            Some(ConfirmAnswer::Discard) => self.perform_switch(switch),
            Some(ConfirmAnswer::Cancel) | None => {}
        }
    }

    /// The prompt's Save: saves to the profile's file (or asks where with Save As…), and
    /// performs `switch` once the save's reply says it was written. A profile with problems is
    /// not saved: the prompt stays open and says why.
    pub(super) fn save_then_switch(&mut self, switch: Switch) {
        if let Some(problem) = self.profile_problem("save") {
            self.profile.confirm_problem = Some(problem);
            self.profile.pending_switch = Some(switch);
            return;
        }
        self.profile.switch_after_save = Some(switch);
        match self.profile.current.path().map(Path::to_path_buf) {
            Some(path) => self.save_to(path),
            None => self.save_as(),
        }
    }

    /// After the prompt's save: the switch when it saved, else the prompt again with the reason.
    pub(super) fn after_prompt_save(&mut self, switch: Switch) {
        if self.profile.current.is_dirty() {
            self.profile.confirm_problem = self.status.as_ref().map(|(_, text)| text.clone());
            self.profile.pending_switch = Some(switch);
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

/// Something that replaces the current profile (asks first when it has unsaved edits).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Switch {
    To(ProfileSource),
    /// A profile file already read (off the UI thread): its bytes or why not.
    LoadRead(PathBuf, Result<Vec<u8>, String>),
    /// A profile imported from another tool's settings ("Import from…"), unsaved.
    Imported(Box<crate::model::RetryProfile>),
}

impl Switch {
    pub(super) fn describe(&self) -> String {
        match self {
            Switch::To(ProfileSource::Builtin(id)) => format!("The built-in {id}"),
            Switch::To(ProfileSource::File(p)) | Switch::LoadRead(p, _) => {
                format!("{}", p.display())
            }
            Switch::To(ProfileSource::Unsaved) => "Another profile".into(),
            Switch::Imported(p) => format!("The imported profile \"{}\"", p.name),
        }
    }
}

pub(super) fn restore_profile(p: PersistedProfile) -> CurrentProfile {
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
        (Some(profile), None) => CurrentProfile::unsaved(profile),
        (None, None) => CurrentProfile::default(),
    }
}

/// Reads and writes of profile files, each on a thread of its own: the frame starts them and
/// applies their replies ([`WorkbenchState::poll_profile_io`]), never waiting.
#[derive(Default)]
pub(super) struct ProfileIo {
    /// Replies of reads: (job number, file, its bytes or why not).
    reads: Background<(u64, PathBuf, Result<Vec<u8>, String>)>,
    /// The newest read (its job number and file): replies of other reads are dropped.
    reading: Option<(u64, PathBuf)>,
    /// Replies of saves: (job number, file, the profile written or why not).
    writes: Background<(u64, PathBuf, Result<RetryProfile, String>)>,
    /// Whether a save is being written.
    saving: bool,
    /// Where the next save goes once `saving` is done (the newest Save asked for).
    queued: Option<PathBuf>,
    /// Job numbers given so far (reads, saves and switches share them).
    jobs: u64,
    /// The number of the latest switch: a save started before it changes no profile.
    switched_at: u64,
    /// Repainted when a reply arrives.
    ctx: Option<egui::Context>,
}

impl ProfileIo {
    fn next(&mut self) -> u64 {
        self.jobs += 1;
        self.jobs
    }
}
