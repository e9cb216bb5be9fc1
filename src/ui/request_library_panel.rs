//! The Requests section: saved requests with search, Save, Save as new, Rename, Duplicate and
//! Delete (confirmed). Clicking one loads it into the composer (asking first when the composer
//! has unsaved changes). Files hold no secret values: after loading, secrets are typed again or
//! come from `{{variables}}` of a secret environment variable.

use super::composer::Composer;
use super::workspace_file::DemoAddress;
use crate::model::{RequestDraft, SavedRequest};
use crate::store::RequestLibrary;
use crate::ui::controls::{button, confirm_row, error_line, labelled};
use egui::Ui;

/// What waits for a confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pending {
    Delete(String),
    Load(String),
}

/// The panel's state.
#[derive(Debug, Default)]
pub struct RequestLibraryPanel {
    library: Option<RequestLibrary>,
    requests: Vec<SavedRequest>,
    problems: Vec<String>,
    search: String,
    new_name: String,
    /// The saved request the composer was loaded from or last saved to.
    current: Option<String>,
    /// The composer's draft (without secrets) when it was loaded or saved.
    snapshot: Option<RequestDraft>,
    renaming: Option<(String, String)>,
    pending: Option<Pending>,
    /// The demo server's base URL: stored as `{{demo}}` (its port changes per start).
    demo_base_url: Option<String>,
}

impl RequestLibraryPanel {
    /// A panel over `library` (`None` = no data folder), listing it. URLs starting with
    /// `demo_base_url` are saved with `{{demo}}` in its place and get the current demo address
    /// back when loaded.
    pub fn new(library: Option<RequestLibrary>, demo_base_url: Option<String>) -> Self {
        let mut panel = Self {
            library,
            demo_base_url,
            ..Self::default()
        };
        panel.reload();
        panel
    }

    /// Re-reads the library folder.
    pub fn reload(&mut self) {
        if let Some(lib) = &self.library {
            let loaded = lib.list();
            self.requests = loaded.requests;
            self.problems = loaded.problems;
        }
    }

    /// Every saved request, sorted by name.
    pub fn requests(&self) -> &[SavedRequest] {
        &self.requests
    }

    /// The id of the saved request the composer holds, if any.
    pub fn current(&self) -> Option<&str> {
        self.current.as_deref()
    }

    /// Whether the composer differs from the saved request it was loaded from (any edit
    /// counts when it was not loaded from one).
    pub fn has_unsaved_changes(&self, composer: &Composer) -> bool {
        self.snapshot.as_ref().map_or(composer.edits > 0, |s| {
            *s != composer.draft.without_secrets()
        })
    }

    /// Draws the section; returns a status line (`(is_error, text)`) after an action.
    pub fn ui(&mut self, ui: &mut Ui, composer: &mut Composer) -> Option<(bool, String)> {
        let mut status = None;
        egui::CollapsingHeader::new("Requests")
            .id_salt("requests_section")
            .default_open(true)
            .show(ui, |ui| status = self.body(ui, composer));
        status
    }

    fn body(&mut self, ui: &mut Ui, composer: &mut Composer) -> Option<(bool, String)> {
        let Some(lib) = self.library.clone() else {
            ui.weak("no data folder is known: saved requests are off (set RETRYSCOPE_DATA_DIR)");
            return None;
        };
        let mut status = None;
        let search = name_field(&mut self.search, "requests.search");
        labelled(
            ui,
            "Search requests",
            search.hint_text("name, method or URL"),
        );
        for p in &self.problems {
            error_line(ui, Some(p));
        }
        let shown: Vec<&SavedRequest> = self
            .requests
            .iter()
            .filter(|r| r.matches(&self.search))
            .collect();
        if self.requests.is_empty() {
            ui.weak("no saved requests yet: type a name and press Save as new");
        } else if shown.is_empty() {
            ui.weak("no saved request matches");
        }
        let mut clicked = None;
        egui::ScrollArea::vertical()
            .id_salt("requests.list")
            .max_height(160.0)
            .show(ui, |ui| {
                for r in shown {
                    let text = format!("{} {}", r.request.method, r.name);
                    if ui
                        .selectable_label(self.current.as_ref() == Some(&r.id), text)
                        .on_hover_text(&r.request.url)
                        .clicked()
                    {
                        clicked = Some(r.id.clone());
                    }
                }
            });
        if let Some(id) = clicked {
            if self.has_unsaved_changes(composer) && self.current.as_ref() != Some(&id) {
                self.pending = Some(Pending::Load(id));
            } else {
                status = self.load(&lib, &id, composer);
            }
        }
        let name = name_field(&mut self.new_name, "requests.new_name");
        labelled(ui, "Request name", name.hint_text("name for Save as new"));
        ui.horizontal_wrapped(|ui| {
            #[rustfmt::skip]
            let saves = [
                ("Save request", "save over the selected request (secret values are not saved)", false),
                ("Save as new", "save as a new request named as typed (secret values are not saved)", true),
            ];
            for (text, tip, as_new) in saves {
                if button(ui, true, text, tip) {
                    status = Some(self.save(&lib, composer, as_new));
                }
            }
            let selected = self.current.clone();
            ui.add_enabled_ui(selected.is_some(), |ui| {
                if ui.button("Rename").clicked()
                    && let Some(id) = &selected
                {
                    let name = self.name_of(id).unwrap_or_default();
                    self.renaming = Some((id.clone(), name));
                }
                if ui.button("Duplicate").clicked()
                    && let Some(id) = &selected
                {
                    status = Some(match lib.duplicate(id) {
                        Ok(copy) => {
                            self.current = Some(copy.id.clone());
                            self.snapshot = Some(self.for_composer(&copy.request));
                            self.reload();
                            (false, format!("saved \"{}\"", copy.name))
                        }
                        Err(e) => (true, e.to_string()),
                    });
                }
                if ui.button("Delete").clicked()
                    && let Some(id) = &selected
                {
                    self.pending = Some(Pending::Delete(id.clone()));
                }
            });
        });
        if let Some(s) = self.rename_row(ui, &lib) {
            status = Some(s);
        }
        if let Some(s) = self.confirm_row(ui, &lib, composer) {
            status = Some(s);
        }
        status
    }

    fn rename_row(&mut self, ui: &mut Ui, lib: &RequestLibrary) -> Option<(bool, String)> {
        let (id, name) = self.renaming.as_mut()?;
        let mut done = None;
        let mut cancel = false;
        // Wraps: the composer panel may be narrower than the row.
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("New name");
            ui.add(name_field(name, "requests.rename"))
                .labelled_by(label.id);
            if ui.button("Apply rename").clicked() {
                done = Some(lib.rename(id, name));
            }
            cancel = ui.button("Cancel rename").clicked();
        });
        if cancel {
            self.renaming = None;
        }
        let result = done?;
        self.renaming = None;
        self.reload();
        Some(match result {
            Ok(r) => (false, format!("renamed to \"{}\"", r.name)),
            Err(e) => (true, e.to_string()),
        })
    }

    fn confirm_row(
        &mut self,
        ui: &mut Ui,
        lib: &RequestLibrary,
        composer: &mut Composer,
    ) -> Option<(bool, String)> {
        let pending = self.pending.clone()?;
        match &pending {
            Pending::Delete(id) => {
                let name = self.name_of(id).unwrap_or_default();
                let question = format!("Delete the saved request \"{name}\"?");
                let confirmed =
                    confirm_row(ui, &question, ("Confirm delete", true), "Cancel delete")?;
                self.pending = None;
                confirmed.then(|| match lib.delete(id) {
                    Ok(()) => {
                        self.current = None;
                        self.snapshot = None;
                        self.reload();
                        (false, format!("deleted \"{name}\""))
                    }
                    Err(e) => (true, e.to_string()),
                })
            }
            Pending::Load(id) => {
                let question = "The composer has unsaved changes; load the saved request anyway?";
                let confirmed =
                    confirm_row(ui, question, ("Discard and load", true), "Keep editing")?;
                self.pending = None;
                if confirmed {
                    self.load(lib, id, composer)
                } else {
                    None
                }
            }
        }
    }

    fn name_of(&self, id: &str) -> Option<String> {
        self.requests
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.name.clone())
    }

    fn load(
        &mut self,
        lib: &RequestLibrary,
        id: &str,
        composer: &mut Composer,
    ) -> Option<(bool, String)> {
        match lib.load(id) {
            Ok(saved) => {
                let draft = self.for_composer(&saved.request);
                composer.fill(
                    draft.clone(),
                    &format!("the saved request \"{}\"", saved.name),
                );
                self.current = Some(saved.id);
                self.snapshot = Some(draft);
                self.new_name.clone_from(&saved.name);
                None
            }
            Err(e) => Some((true, e.to_string())),
        }
    }

    /// Saves the composer over the selected request, or (`as_new`, or none selected) as a new
    /// one named as typed; the status line's (error, text).
    fn save(&mut self, lib: &RequestLibrary, composer: &Composer, as_new: bool) -> (bool, String) {
        let draft = self.for_file(&composer.draft);
        let saved = match self.current.clone().filter(|_| !as_new) {
            Some(id) => {
                let name = self
                    .name_of(&id)
                    .unwrap_or_else(|| self.typed_name(composer));
                let saved = SavedRequest::new(id, name, &draft);
                lib.save(&saved).map(|_| saved)
            }
            None => lib.save_new(&self.typed_name(composer), &draft),
        };
        match saved {
            Ok(saved) => {
                self.current = Some(saved.id.clone());
                self.snapshot = Some(composer.draft.without_secrets());
                self.reload();
                let text = format!("saved \"{}\" (without secret values)", saved.name);
                (false, text)
            }
            Err(e) => (true, e.to_string()),
        }
    }

    /// `draft` as stored: a leading demo address as `{{demo}}` ([`DemoAddress`]).
    fn for_file(&self, draft: &RequestDraft) -> RequestDraft {
        DemoAddress(self.demo_base_url.as_deref()).stored(draft)
    }

    /// `draft` from a file for the composer: a leading `{{demo}}` back to the demo address.
    fn for_composer(&self, draft: &RequestDraft) -> RequestDraft {
        DemoAddress(self.demo_base_url.as_deref()).restored(draft)
    }

    /// The typed name, else `METHOD /path` of the composer's URL.
    fn typed_name(&self, composer: &Composer) -> String {
        let typed = self.new_name.trim();
        if typed.is_empty() {
            format!(
                "{} {}",
                composer.draft.method.trim(),
                super::timeline::url_path(composer.draft.url.trim())
            )
        } else {
            typed.to_owned()
        }
    }
}

/// A one-line name field 160 points wide, its id from `id`.
fn name_field<'t>(text: &'t mut String, id: &str) -> egui::TextEdit<'t> {
    egui::TextEdit::singleline(text)
        .id_salt(id)
        .desired_width(160.0)
}
