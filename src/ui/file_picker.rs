//! The in-app file picker, used where no system file dialog can open (no xdg desktop portal,
//! no zenity): a path field with Tab completion, the entries of the folder it names, a recent
//! list, and Up / Home / Refresh.
//!
//! Folder listings are I/O, so each runs on its own named thread ([`list_dir`]); the frame only
//! reads the cache. A folder is listed when the picker first needs it (open, Tab, a new folder
//! typed into the field, Up, Home, a click on a folder) and again only on Refresh or the next
//! time the picker opens; never per frame. Answers go back through
//! [`super::file_dialogs::FileDialogHost`] exactly like the system dialog's.

use super::background::Background;
use super::file_dialogs::{DialogAnswer, DialogPurpose, home_dir};
use crate::ui::controls::{button, error_line};
use egui::{Key, Modifiers, RichText};
use std::collections::{HashMap, HashSet};
use std::path::{MAIN_SEPARATOR, Path, PathBuf};

/// One entry of a folder listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// File or folder name.
    pub name: String,
    /// True for folders (symbolic links are followed).
    pub is_dir: bool,
}

/// A folder's entries (folders first, then files, each by name ignoring case), or why it
/// could not be listed (`no such folder: /x`).
pub type Listing = Result<Vec<Entry>, String>;

/// Lists `dir` (the worker's job; blocking I/O). Unreadable entries are skipped.
///
/// # Errors
/// Why the folder could not be read (`no such folder: /x`).
pub fn list_dir(dir: &Path) -> Listing {
    let read = std::fs::read_dir(dir).map_err(|e| {
        let what = match e.kind() {
            std::io::ErrorKind::NotFound => "no such folder".to_owned(),
            std::io::ErrorKind::PermissionDenied => "no permission to list the folder".to_owned(),
            std::io::ErrorKind::NotADirectory => "not a folder".to_owned(),
            _ => format!("cannot list the folder ({e})"),
        };
        format!("{what}: {}", dir.display())
    })?;
    let mut entries: Vec<Entry> = read
        .filter_map(Result::ok)
        .map(|e| {
            let path = e.path();
            Entry {
                name: e.file_name().to_string_lossy().into_owned(),
                is_dir: path.is_dir(),
            }
        })
        .collect();
    entries.sort_by_key(|e| (!e.is_dir, e.name.to_lowercase()));
    Ok(entries)
}

/// `text` split after its last `/`: the folder part (with the `/`, possibly empty) and the name
/// being typed. `/tmp/pro` → (`/tmp/`, `pro`).
pub fn split_typed(text: &str) -> (&str, &str) {
    match text.rfind(['/', MAIN_SEPARATOR]) {
        Some(i) => text.split_at(i + 1),
        None => ("", text),
    }
}

/// The path `text` names: `~` and `~/…` start at `home`, relative paths at `base`.
pub fn resolve(text: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    if let Some(home) = home {
        if text == "~" {
            return home.to_path_buf();
        }
        if let Some(rest) = text.strip_prefix("~/") {
            return home.join(rest);
        }
    }
    let path = Path::new(text);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// Whether `entry` is listed: folders always, files when not `json_only` or named `*.json`;
/// names starting with `.` only when the typed `prefix` does too.
fn listed(entry: &Entry, json_only: bool, prefix: &str) -> bool {
    if entry.name.starts_with('.') && !prefix.starts_with('.') {
        return false;
    }
    entry.is_dir
        || !json_only
        || Path::new(&entry.name)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Shell-style completion of `prefix` among `entries`: the one match in full (a folder with a
/// trailing `/`), else the longest common start of all matches; `None` when that adds nothing.
pub fn complete(prefix: &str, entries: &[Entry], json_only: bool) -> Option<String> {
    let matches: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.name.starts_with(prefix) && listed(e, json_only, prefix))
        .collect();
    match matches.as_slice() {
        [] => None,
        [one] => Some(if one.is_dir {
            format!("{}/", one.name)
        } else {
            one.name.clone()
        }),
        [first, rest @ ..] => {
            let mut common = first.name.as_str();
            for e in rest {
                let len = common
                    .char_indices()
                    .zip(e.name.chars())
                    .take_while(|((_, a), b)| a == b)
                    .last()
                    .map_or(0, |((i, a), _)| i + a.len_utf8());
                common = &common[..len];
            }
            (common.len() > prefix.len()).then(|| common.to_owned())
        }
    }
}

/// One open picker.
struct Session {
    purpose: DialogPurpose,
    /// Where relative paths start (the folder the picker opened in).
    base: PathBuf,
    /// The path field.
    text: String,
    /// Tab was pressed before the folder's listing arrived: complete when it does.
    pending_tab: bool,
    /// Open/Save was pressed before the listing arrived: choose when it does.
    pending_choose: bool,
    /// Why the last Open/Save did not pick (e.g. `no such file: /x`).
    message: Option<String>,
    /// Give the path field the keyboard on the next frame.
    focus_path: bool,
    /// Put the caret at the end of the path field on the next frame.
    caret_to_end: bool,
}

impl Session {
    /// Whether it picks a file to write (its purpose suggests a name).
    fn saving(&self) -> bool {
        self.purpose.suggested_name().is_some()
    }

    /// Whether only `*.json` files (and folders) are listed: profiles, and files to write.
    fn json_only(&self) -> bool {
        self.purpose.is_profile() || self.saving()
    }
}

/// What the user did this frame (applied after drawing).
enum Action {
    SetText(String),
    Choose,
    Cancel,
    Refresh,
}

/// The in-app picker: closed until [`FilePicker::open`], then a modal until the user picks
/// or cancels.
#[derive(Default)]
pub struct FilePicker {
    session: Option<Session>,
    /// Folder listings under way, one `file-picker-lister` thread each.
    listings: Background<(PathBuf, Listing)>,
    cache: HashMap<PathBuf, Listing>,
    pending: HashSet<PathBuf>,
    /// The folder to create before listing (Save into a library folder not made yet).
    create_dir: Option<PathBuf>,
    ctx: Option<egui::Context>,
    home: Option<PathBuf>,
}

/// Egui id of the path field.
pub fn path_field_id() -> egui::Id {
    egui::Id::unique("file_picker.path")
}

impl FilePicker {
    /// Opens the picker for `purpose` in `dir` (forgetting earlier listings, so the folder is
    /// read fresh). Saving puts `dir/suggested_name` in the field and creates `dir` if needed.
    pub fn open(&mut self, purpose: DialogPurpose, dir: PathBuf) {
        self.cache.clear();
        self.home = home_dir();
        let mut text = with_slash(&dir);
        self.create_dir = None;
        if let Some(name) = purpose.suggested_name() {
            text.push_str(name);
            self.create_dir = Some(dir.clone());
        }
        self.session = Some(Session {
            purpose,
            base: dir,
            text,
            pending_tab: false,
            pending_choose: false,
            message: None,
            focus_path: true,
            caret_to_end: true,
        });
    }

    /// Whether the picker is showing.
    pub fn is_open(&self) -> bool {
        self.session.is_some()
    }

    /// What the open picker is for, `None` when closed.
    pub fn purpose(&self) -> Option<&DialogPurpose> {
        self.session.as_ref().map(|s| &s.purpose)
    }

    /// The path field's text, when open.
    pub fn text(&self) -> Option<&str> {
        self.session.as_ref().map(|s| s.text.as_str())
    }

    /// Draws the picker (a modal) when open; returns the answer once the user picked a path or
    /// cancelled (Cancel, Esc, a click outside).
    pub fn ui(&mut self, ui: &egui::Ui, recent: &[PathBuf]) -> Option<DialogAnswer> {
        self.ctx.get_or_insert_with(|| ui.ctx().clone());
        self.receive();
        let dir = self.current_dir()?;
        self.ensure_listed(&dir);
        let answer = self.apply_pending(&dir);
        if answer.is_some() {
            return answer;
        }
        let action = self.draw(ui, &dir, recent);
        match action? {
            Action::SetText(text) => {
                self.set_text(text);
                None
            }
            Action::Refresh => {
                self.cache.remove(&dir);
                self.ensure_listed(&dir);
                None
            }
            Action::Cancel => self.finish(None),
            Action::Choose => self.choose(),
        }
    }

    /// Folder the field's text names (its part up to the last `/`).
    fn current_dir(&self) -> Option<PathBuf> {
        let s = self.session.as_ref()?;
        let (dir, _) = split_typed(&s.text);
        Some(if dir.is_empty() {
            s.base.clone()
        } else {
            resolve(dir, &s.base, self.home.as_deref())
        })
    }

    /// Takes finished listings from the worker into the cache.
    fn receive(&mut self) {
        while let Some((dir, listing)) = self.listings.poll() {
            self.pending.remove(&dir);
            self.cache.insert(dir, listing);
        }
    }

    /// Asks the worker for `dir` unless it is cached or already asked for.
    fn ensure_listed(&mut self, dir: &Path) {
        if self.cache.contains_key(dir) || self.pending.contains(dir) {
            return;
        }
        let dir = dir.to_path_buf();
        // The library folder the first time something is saved there.
        let create = self.create_dir.as_ref() == Some(&dir);
        let job_dir = dir.clone();
        let list = move || {
            if create {
                // A failure shows as the listing's own error just below.
                let _ = std::fs::create_dir_all(&job_dir);
            }
            let listing = list_dir(&job_dir);
            (job_dir, listing)
        };
        if let Err(e) = self
            .listings
            .start("file-picker-lister", self.ctx.clone(), list)
        {
            self.cache
                .insert(dir, Err(format!("cannot list the folder ({e})")));
        } else {
            self.pending.insert(dir);
        }
    }

    /// Completes a Tab or an Open/Save pressed before the folder's listing had arrived.
    fn apply_pending(&mut self, dir: &Path) -> Option<DialogAnswer> {
        let Self { session, cache, .. } = self;
        let listing = cache.get(dir)?;
        let s = session.as_mut()?;
        if s.pending_tab {
            s.pending_tab = false;
            apply_completion(s, listing.as_ref().ok());
        }
        if s.pending_choose {
            s.pending_choose = false;
            return self.choose();
        }
        None
    }

    fn draw(&mut self, ui: &egui::Ui, dir: &Path, recent: &[PathBuf]) -> Option<Action> {
        let Self {
            session,
            cache,
            home,
            ..
        } = self;
        let listing = cache.get(dir);
        let s = session.as_mut()?;
        let mut action = None;
        let modal = egui::Modal::new(egui::Id::unique("file_picker")).show(ui.ctx(), |ui| {
            ui.set_width(580.0);
            ui.heading(s.purpose.title());
            ui.horizontal(|ui| {
                if button(ui, true, "Up", "go to the parent folder")
                    && let Some(parent) = dir.parent()
                {
                    action = Some(Action::SetText(with_slash(parent)));
                }
                if let Some(home) = home.as_deref()
                    && button(ui, true, "Home", home.display().to_string())
                {
                    action = Some(Action::SetText(with_slash(home)));
                }
                if button(ui, true, "Refresh", "list this folder again") {
                    action = Some(Action::Refresh);
                }
                ui.add(
                    egui::Label::new(RichText::new(dir.display().to_string()).weak()).truncate(),
                );
            });
            if let Some(a) = path_field(ui, s, listing) {
                action = Some(a);
            }
            let (_, prefix) = split_typed(&s.text);
            let prefix = prefix.to_owned();
            let json_only = s.json_only();
            let filter_note = if json_only {
                " (.json files and folders)"
            } else {
                ""
            };
            ui.label(format!("In this folder{filter_note}"));
            match listing {
                None => {
                    ui.weak("listing…");
                }
                Some(Err(e)) => error_line(ui, Some(e)),
                Some(Ok(entries)) => {
                    let shown: Vec<&Entry> = entries
                        .iter()
                        .filter(|e| e.name.starts_with(&prefix) && listed(e, json_only, &prefix))
                        .collect();
                    if let Some(a) = entries_list(ui, dir, &shown, &prefix) {
                        action = Some(a);
                    }
                }
            }
            if let Some(a) = recent_list(ui, recent, json_only) {
                action = Some(a);
            }
            error_line(ui, s.message.as_deref());
            ui.separator();
            ui.horizontal(|ui| {
                let verb = if s.saving() { "Save file" } else { "Open file" };
                if ui.button(verb).clicked() {
                    action = Some(Action::Choose);
                }
                if ui.button("Cancel").clicked() {
                    action = Some(Action::Cancel);
                }
                if s.saving()
                    && let Some(Ok(entries)) = listing
                    && entries.iter().any(|e| !e.is_dir && e.name == prefix)
                {
                    ui.weak(format!("{prefix} exists and will be replaced"));
                }
            });
        });
        if action.is_none() && modal.should_close() {
            action = Some(Action::Cancel);
        }
        action
    }

    /// Open/Save: a folder is entered; a file is answered (Open: it must exist; Save: its
    /// folder must exist). Waits for the listing of the file's folder when it is not cached.
    fn choose(&mut self) -> Option<DialogAnswer> {
        enum Step {
            Message(String),
            Enter(PathBuf),
            Wait(PathBuf),
            Pick(PathBuf),
        }
        let s = self.session.as_ref()?;
        let text = s.text.trim();
        let path = resolve(text, &s.base, self.home.as_deref());
        let step = if text.is_empty() {
            Step::Message("type a file name or pick one from the list".into())
        } else if text.ends_with(['/', MAIN_SEPARATOR]) {
            Step::Enter(path)
        } else {
            match (path.parent(), path.file_name()) {
                (Some(parent), Some(name)) => match self.cache.get(parent) {
                    None => Step::Wait(parent.to_path_buf()),
                    Some(Err(e)) => Step::Message(e.clone()),
                    Some(Ok(entries)) => {
                        let name = name.to_string_lossy();
                        match (entries.iter().find(|e| e.name == name), s.saving()) {
                            (Some(e), _) if e.is_dir => Step::Enter(path),
                            (Some(_), _) | (None, true) => Step::Pick(path),
                            (None, false) => {
                                Step::Message(format!("no such file: {}", path.display()))
                            }
                        }
                    }
                },
                _ => Step::Enter(path),
            }
        };
        match step {
            Step::Pick(path) => self.finish(Some(path)),
            Step::Wait(parent) => {
                if let Some(s) = self.session.as_mut() {
                    s.pending_choose = true;
                }
                self.ensure_listed(&parent);
                None
            }
            Step::Enter(path) => {
                self.set_text(with_slash(&path));
                None
            }
            Step::Message(message) => {
                if let Some(s) = self.session.as_mut() {
                    s.message = Some(message);
                }
                None
            }
        }
    }

    /// Puts `text` in the path field, the caret at its end and the keyboard on it.
    fn set_text(&mut self, text: String) {
        if let Some(s) = self.session.as_mut() {
            s.text = text;
            s.message = None;
            s.caret_to_end = true;
            s.focus_path = true;
        }
    }

    fn finish(&mut self, path: Option<PathBuf>) -> Option<DialogAnswer> {
        let s = self.session.take()?;
        // The file is read by the host, off the UI thread.
        Some(DialogAnswer {
            purpose: s.purpose,
            path,
            contents: None,
        })
    }
}

/// The path field; Tab completes from the listing (or once it arrives), Enter chooses.
fn path_field(ui: &mut egui::Ui, s: &mut Session, listing: Option<&Listing>) -> Option<Action> {
    let id = path_field_id();
    let has_focus = ui.memory(|m| m.has_focus(id));
    // Taken before the field sees it, applied after the field has taken this frame's typing
    // (a quick `l` + Tab arrive in one frame: complete what includes the `l`).
    let tab = has_focus && ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Tab));
    if s.caret_to_end {
        s.caret_to_end = false;
        let mut state = egui::TextEdit::load_state(ui.ctx(), id).unwrap_or_default();
        let end = egui::text::CCursor::new(s.text.chars().count());
        state
            .cursor
            .set_char_range(Some(egui::text::CCursorRange::one(end)));
        state.store(ui.ctx(), id);
    }
    let mut action = None;
    ui.horizontal(|ui| {
        let label = ui.label("File path");
        let response = ui
            .add(
                egui::TextEdit::singleline(&mut s.text)
                    .id(id)
                    .desired_width(f32::INFINITY)
                    .hint_text("type a path; Tab completes")
                    // Keep the keyboard on Tab: it completes instead of moving focus.
                    .event_filter(egui::EventFilter {
                        tab: true,
                        horizontal_arrows: true,
                        vertical_arrows: true,
                        ..Default::default()
                    }),
            )
            .labelled_by(label.id)
            .on_hover_text("Tab completes a file or folder name; Enter opens");
        if s.focus_path {
            s.focus_path = false;
            response.request_focus();
        }
        if response.changed() {
            s.message = None;
        }
        if response.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
            action = Some(Action::Choose);
        }
    });
    if tab {
        match listing {
            Some(l) => apply_completion(s, l.as_ref().ok()),
            None => s.pending_tab = true,
        }
    }
    action
}

/// Applies Tab completion to the field from `entries` (no change when nothing matches).
fn apply_completion(s: &mut Session, entries: Option<&Vec<Entry>>) {
    let Some(entries) = entries else { return };
    let (dir, prefix) = split_typed(&s.text);
    if let Some(done) = complete(prefix, entries, s.json_only()) {
        s.text = format!("{dir}{done}");
        s.caret_to_end = true;
    }
    s.focus_path = true;
}

/// The entries of the folder (virtualised rows). A click on a folder enters it, on a file puts
/// it in the field; a double click on a file chooses it.
fn entries_list(ui: &mut egui::Ui, dir: &Path, shown: &[&Entry], prefix: &str) -> Option<Action> {
    let mut action = None;
    if shown.is_empty() {
        ui.weak("(no matching entries)");
        return None;
    }
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
    egui::ScrollArea::vertical()
        .id_salt("file_picker.entries")
        .max_height(240.0)
        .auto_shrink([false, true])
        .show_rows(ui, row_height, shown.len(), |ui, range| {
            for entry in &shown[range] {
                let label = if entry.is_dir {
                    format!("{}/", entry.name)
                } else {
                    entry.name.clone()
                };
                let response = ui.selectable_label(entry.name == prefix, label);
                let path = dir.join(&entry.name);
                if entry.is_dir && response.clicked() {
                    action = Some(Action::SetText(with_slash(&path)));
                } else if response.double_clicked() {
                    action = Some(Action::Choose);
                } else if response.clicked() {
                    action = Some(Action::SetText(path.display().to_string()));
                }
            }
        });
    action
}

/// Recent files (newest first); a click puts one in the field.
fn recent_list(ui: &mut egui::Ui, recent: &[PathBuf], json_only: bool) -> Option<Action> {
    let shown: Vec<&PathBuf> = recent
        .iter()
        .filter(|p| {
            !json_only
                || p.extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        })
        .take(8)
        .collect();
    if shown.is_empty() {
        return None;
    }
    let mut action = None;
    ui.label("Recent");
    egui::ScrollArea::vertical()
        .id_salt("file_picker.recent")
        .max_height(120.0)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            for path in shown {
                let text = path.display().to_string();
                if ui.selectable_label(false, &text).clicked() {
                    action = Some(Action::SetText(text));
                }
            }
        });
    action
}

/// `dir` as text ending in `/` (the field's form of a folder).
fn with_slash(dir: &Path) -> String {
    let mut text = dir.display().to_string();
    if !text.ends_with(['/', MAIN_SEPARATOR]) {
        text.push(MAIN_SEPARATOR);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries() -> Vec<Entry> {
        let e = |name: &str, is_dir| Entry {
            name: name.into(),
            is_dir,
        };
        vec![
            e("nested", true),
            e(".hidden.json", false),
            e("alpha-profile.json", false),
            e("alpha-two.json", false),
            e("notes.txt", false),
        ]
    }

    #[test]
    fn tab_completes_the_one_match_or_the_common_start() {
        let e = entries();
        assert_eq!(complete("ne", &e, true), Some("nested/".into()));
        assert_eq!(
            complete("alpha-p", &e, true),
            Some("alpha-profile.json".into())
        );
        assert_eq!(complete("al", &e, true), Some("alpha-".into()));
        assert_eq!(complete("alpha-", &e, true), None, "nothing to add");
        assert_eq!(complete("no", &e, true), None, ".txt is not a profile");
        assert_eq!(complete("no", &e, false), Some("notes.txt".into()));
        assert_eq!(
            complete("", &e, true),
            None,
            "several matches, no common start"
        );
        assert_eq!(complete(".h", &e, true), Some(".hidden.json".into()));
    }

    #[test]
    fn typed_paths_split_and_resolve() {
        assert_eq!(split_typed("/tmp/pro"), ("/tmp/", "pro"));
        assert_eq!(split_typed("/tmp/"), ("/tmp/", ""));
        assert_eq!(split_typed("pro"), ("", "pro"));
        let base = Path::new("/base");
        let home = Path::new("/home/me");
        assert_eq!(resolve("~/x.json", base, Some(home)), home.join("x.json"));
        assert_eq!(resolve("~", base, Some(home)), home);
        assert_eq!(resolve("a/b", base, Some(home)), base.join("a/b"));
        assert_eq!(resolve("/abs", base, None), PathBuf::from("/abs"));
    }

    #[test]
    fn listing_puts_folders_first_and_reports_missing_folders() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("zeta")).expect("mkdir");
        std::fs::write(dir.path().join("Alpha.json"), "{}").expect("write");
        std::fs::write(dir.path().join("beta.json"), "{}").expect("write");
        let listing = list_dir(dir.path()).expect("listed");
        let names: Vec<&str> = listing.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["zeta", "Alpha.json", "beta.json"]);
        assert!(listing[0].is_dir && !listing[1].is_dir);
        let missing = dir.path().join("missing");
        assert_eq!(
            list_dir(&missing),
            Err(format!("no such folder: {}", missing.display()))
        );
    }
}
