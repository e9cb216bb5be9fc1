//! The environment picker (which variables fill `{{name}}` on Send) and the environment editor
//! window: add/remove variables, mark them secret (values masked, with a reveal toggle, kept in
//! the OS keyring or in memory only, never in a file).

use super::store_worker::StoreWorker;
use crate::model::{Environment, Variable, Variables};
use crate::store::{EnvironmentStore, LoadedEnvironments};
use crate::ui::controls::{button, confirm_row, error_line, labelled};
use egui::Ui;
use std::path::PathBuf;
use std::sync::Arc;

/// Width of a variable's name field in the editor, points.
const NAME_WIDTH: f32 = 140.0;
/// Width of a variable's value field, points (fixed: the window sizes itself to its content).
const VALUE_WIDTH: f32 = 220.0;

/// What a job of the store worker did, with the environments as they stand after it.
struct StoreReply {
    done: StoreDone,
    loaded: LoadedEnvironments,
}

/// The write a job made, if any.
enum StoreDone {
    /// Only listed.
    Listed,
    /// Saved `name` to `path`; `renamed` from another name; `secrets` when it holds any.
    Saved {
        name: String,
        path: PathBuf,
        renamed: bool,
        secrets: bool,
    },
    /// Deleted `name`.
    Deleted { name: String },
    /// The write failed: the message says why (nothing changed).
    Failed(String),
}

/// Every environment as the store has it now.
fn listed(store: &EnvironmentStore, done: StoreDone) -> StoreReply {
    StoreReply {
        done,
        loaded: store.list(),
    }
}

/// One variable row being edited, with an id fixed when the row was created (widget ids come
/// from it, so renaming a variable while typing keeps focus).
#[derive(Debug, Clone, PartialEq)]
struct Row {
    uid: u64,
    variable: Variable,
    shown: bool,
}

/// The environment open in the editor.
#[derive(Debug, Clone, PartialEq)]
struct Editing {
    /// Its name when loaded (`None` = new, not saved yet).
    original: Option<String>,
    name: String,
    rows: Vec<Row>,
    confirm_delete: bool,
}

impl Editing {
    fn to_environment(&self) -> Environment {
        let mut env = Environment::new(self.name.trim());
        env.variables = self.rows.iter().map(|r| r.variable.clone()).collect();
        env
    }
}

/// The picker and editor state. Every store call (files, the OS keyring) runs on the store
/// worker, never in the frame: a keyring that prompts holds the worker, not the window.
#[derive(Debug, Default)]
pub struct EnvironmentPanel {
    store: Option<StoreWorker<EnvironmentStore, StoreReply>>,
    /// Whether the store's first listing arrived (until then a restored selection is kept).
    loaded: bool,
    environments: Vec<Environment>,
    selected: Option<String>,
    editing: Option<Editing>,
    next_uid: u64,
    /// Why secrets are kept in memory only (no keyring), when they are.
    memory_only: Option<String>,
    problems: Vec<String>,
}

impl EnvironmentPanel {
    /// A panel over `store` (`None` = no data folder: environments cannot be saved), listing its
    /// environments; `memory_only` says why secrets are not kept in the OS keyring, if so. With
    /// a `waker` the store moves to a worker thread that calls it after each reply; without,
    /// each job runs at once (tests) and its reply is applied at the next frame.
    pub fn new(
        store: Option<EnvironmentStore>,
        memory_only: Option<String>,
        waker: Option<Arc<dyn Fn() + Send + Sync>>,
    ) -> Self {
        let store = store.map(|s| match waker {
            Some(waker) => StoreWorker::spawn("environments", s, waker),
            None => StoreWorker::inline(s),
        });
        let mut panel = Self {
            store,
            memory_only,
            ..Self::default()
        };
        panel.reload();
        panel
    }

    /// Re-reads every environment from the store (secrets included), on the store worker.
    pub fn reload(&mut self) {
        match &mut self.store {
            Some(store) => store.submit(|s| listed(s, StoreDone::Listed)),
            None => self.loaded = true,
        }
    }

    /// Applies the store's replies; returns the status line of the last write among them
    /// (`(is_error, text)`).
    fn poll(&mut self) -> Option<(bool, String)> {
        let mut status = None;
        while let Some(reply) = self.store.as_mut().and_then(StoreWorker::poll) {
            self.loaded = true;
            self.environments = reply.loaded.environments;
            self.problems = reply.loaded.problems;
            status = self.apply(reply.done).or(status);
        }
        if self.loaded
            && let Some(sel) = &self.selected
            && !self.environments.iter().any(|e| &e.name == sel)
        {
            self.selected = None;
        }
        status
    }

    /// What the editor and the selection make of a finished write, and its status line.
    fn apply(&mut self, done: StoreDone) -> Option<(bool, String)> {
        match done {
            StoreDone::Listed => None,
            StoreDone::Saved {
                name,
                path,
                renamed,
                secrets,
            } => {
                if let Some(edit) = &mut self.editing
                    && edit.name.trim() == name
                {
                    edit.original = Some(name.clone());
                }
                if renamed || self.selected.is_none() {
                    self.selected = Some(name.clone());
                }
                let where_secrets = if self.memory_only.is_some() && secrets {
                    "; secrets kept in memory only (no OS keyring)"
                } else {
                    ""
                };
                Some((
                    false,
                    format!(
                        "saved environment \"{name}\"{where_secrets}: {}",
                        path.display()
                    ),
                ))
            }
            StoreDone::Deleted { name } => {
                if self
                    .editing
                    .as_ref()
                    .is_some_and(|e| e.original.as_deref() == Some(name.as_str()))
                {
                    self.editing = None;
                }
                Some((false, format!("deleted environment \"{name}\"")))
            }
            StoreDone::Failed(message) => Some((true, message)),
        }
    }

    /// The names of the saved environments, sorted.
    pub fn names(&self) -> Vec<String> {
        self.environments.iter().map(|e| e.name.clone()).collect()
    }

    /// The selected environment's name.
    pub fn selected(&self) -> Option<&str> {
        self.selected.as_deref()
    }

    /// Selects environment `name` (`None` = no environment); an unknown name selects none
    /// (before the store's first listing arrives, the name is kept until it does).
    pub fn select(&mut self, name: Option<&str>) {
        self.selected = name
            .filter(|n| !self.loaded || self.environments.iter().any(|e| e.name == *n))
            .map(str::to_owned);
    }

    /// The variables Send resolves with: the selected environment's, including unsaved edits
    /// when it is open in the editor.
    pub fn variables(&self) -> Variables {
        let Some(name) = &self.selected else {
            return Variables::new();
        };
        if let Some(e) = &self.editing
            && e.original.as_deref() == Some(name.as_str())
        {
            return Variables::from_environment(&e.to_environment());
        }
        self.environments
            .iter()
            .find(|e| &e.name == name)
            .map(Variables::from_environment)
            .unwrap_or_default()
    }

    /// The picker row: `Environment` combo box and `Edit environments…`.
    pub fn picker_ui(&mut self, ui: &mut Ui) {
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Environment");
            let shown = self.selected.clone().unwrap_or_else(|| "none".into());
            let mut chosen: Option<Option<String>> = None;
            egui::ComboBox::from_id_salt("env.picker")
                .selected_text(shown)
                .truncate()
                .show_ui(ui, |ui| {
                    if ui
                        .selectable_label(self.selected.is_none(), "none")
                        .clicked()
                    {
                        chosen = Some(None);
                    }
                    for e in &self.environments {
                        if ui
                            .selectable_label(self.selected.as_ref() == Some(&e.name), &e.name)
                            .clicked()
                        {
                            chosen = Some(Some(e.name.clone()));
                        }
                    }
                })
                .response
                .on_hover_text("variables used as {{name}} in URL, query, headers, body and auth")
                .labelled_by(label.id);
            if let Some(choice) = chosen {
                self.selected = choice;
            }
            if button(
                ui,
                true,
                "Edit environments…",
                "add, change or delete environments and their variables",
            ) {
                self.open_editor();
            }
        });
    }

    fn open_editor(&mut self) {
        let env = self
            .selected
            .as_ref()
            .and_then(|n| self.environments.iter().find(|e| &e.name == n))
            .cloned();
        match env {
            Some(env) => self.edit(&env, true),
            None => self.edit_new(),
        }
    }

    fn edit(&mut self, env: &Environment, saved: bool) {
        let rows = env
            .variables
            .iter()
            .map(|v| {
                self.next_uid += 1;
                Row {
                    uid: self.next_uid,
                    variable: v.clone(),
                    shown: false,
                }
            })
            .collect();
        self.editing = Some(Editing {
            original: saved.then(|| env.name.clone()),
            name: env.name.clone(),
            rows,
            confirm_delete: false,
        });
    }

    fn edit_new(&mut self) {
        let mut name = "new environment".to_owned();
        let mut n = 2;
        while self.environments.iter().any(|e| e.name == name) {
            name = format!("new environment {n}");
            n += 1;
        }
        self.edit(&Environment::new(name), false);
    }

    /// Draws the editor window when open (520 points wide, less in a narrower window); returns a status line for the workbench
    /// (`(is_error, text)`) after Save or Delete.
    pub fn window_ui(&mut self, ctx: &egui::Context) -> Option<(bool, String)> {
        let mut status = self.poll();
        let mut open = self.editing.is_some();
        if !open {
            return status;
        }
        egui::Window::new("Environments")
            .id(egui::Id::unique("env.window"))
            .open(&mut open)
            .default_width(520.0)
            .show(ctx, |ui| status = self.editor_ui(ui).or(status.take()));
        if !open {
            self.editing = None;
        }
        status
    }

    fn editor_ui(&mut self, ui: &mut Ui) -> Option<(bool, String)> {
        let mut status = None;
        // One write at a time: Save and Delete wait for the store's answer to the last one.
        let busy = self.store.as_ref().is_some_and(StoreWorker::is_busy);
        ui.horizontal_wrapped(|ui| {
            ui.label("Open");
            let current = self.editing.as_ref().and_then(|e| e.original.clone());
            let mut open_other = None;
            for e in &self.environments {
                if ui
                    .selectable_label(current.as_ref() == Some(&e.name), &e.name)
                    .on_hover_text("edit this environment")
                    .clicked()
                {
                    open_other = Some(e.clone());
                }
            }
            if let Some(env) = open_other {
                self.edit(&env, true);
            }
            if ui.button("New environment").clicked() {
                self.edit_new();
            }
        });
        if let Some(reason) = &self.memory_only {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("No OS keyring: {reason}"),
            );
        }
        for p in &self.problems {
            error_line(ui, Some(p));
        }
        ui.separator();
        let Some(edit) = &mut self.editing else {
            return None;
        };
        let name = egui::TextEdit::singleline(&mut edit.name).id_salt("env.name");
        labelled(ui, "Environment name", name);
        let mut remove = None;
        // Sized cells: a grid gives a field only its column's width of the frame before, so
        // a field sized by `desired_width` stayed as narrow as the column's heading.
        let height = ui.spacing().interact_size.y;
        egui::Grid::new("env.variables")
            .num_columns(5)
            .striped(true)
            .show(ui, |ui| {
                ui.weak("name");
                ui.weak("value");
                ui.weak("secret");
                ui.weak("");
                ui.weak("");
                ui.end_row();
                for (i, row) in edit.rows.iter_mut().enumerate() {
                    let n = i + 1;
                    ui.add_sized(
                        [NAME_WIDTH, height],
                        egui::TextEdit::singleline(&mut row.variable.name)
                            .id_salt(format!("env.var.{}.name", row.uid))
                            .hint_text("name"),
                    )
                    .accessible_name(format!("variable {n} name"));
                    ui.add_sized(
                        [VALUE_WIDTH, height],
                        egui::TextEdit::singleline(&mut row.variable.value)
                            .id_salt(format!("env.var.{}.value", row.uid))
                            .hint_text("value")
                            .password(row.variable.secret && !row.shown),
                    )
                    .accessible_name(format!("variable {n} value"));
                    ui.add(egui::Checkbox::without_text(&mut row.variable.secret))
                        .accessible_name(format!("variable {n} secret"))
                        .on_hover_text(
                            "secret: masked here and as *** in the timeline; the value is kept in \
                             the OS keyring (memory only without one), never in a file",
                        );
                    if row.variable.secret {
                        ui.toggle_value(&mut row.shown, "show")
                            .accessible_name(format!("variable {n} show"))
                            .on_hover_text("show the secret value");
                    } else {
                        ui.label("");
                    }
                    if ui
                        .small_button("x")
                        .accessible_name(format!("variable {n} remove"))
                        .on_hover_text("remove this variable")
                        .clicked()
                    {
                        remove = Some(i);
                    }
                    ui.end_row();
                }
            });
        if let Some(i) = remove {
            edit.rows.remove(i);
        }
        for problem in row_problems(&edit.rows) {
            ui.colored_label(ui.visuals().warn_fg_color, problem);
        }
        let mut save = false;
        let mut delete = false;
        ui.horizontal(|ui| {
            if ui.button("Add variable").clicked() {
                self.next_uid += 1;
                edit.rows.push(Row {
                    uid: self.next_uid,
                    variable: Variable::new("", ""),
                    shown: false,
                });
            }
            save = ui
                .add_enabled(!busy, egui::Button::new("Save environment"))
                .clicked();
            if edit.original.is_some()
                && ui
                    .add_enabled(!busy, egui::Button::new("Delete environment"))
                    .clicked()
            {
                edit.confirm_delete = true;
            }
        });
        if edit.confirm_delete {
            let question = format!("Delete \"{}\" and its secrets?", edit.name);
            match confirm_row(ui, &question, ("Confirm delete", !busy), "Cancel delete") {
                Some(true) => delete = true,
                Some(false) => edit.confirm_delete = false,
                None => {}
            }
        }
        if save {
            status = Some(self.save_editing());
        } else if delete {
            status = Some(self.delete_editing());
        }
        status
    }

    fn save_editing(&mut self) -> (bool, String) {
        let (Some(store), Some(edit)) = (&mut self.store, &self.editing) else {
            return (
                true,
                "cannot save the environment: no data folder is known (set RETRYSCOPE_DATA_DIR)"
                    .into(),
            );
        };
        let env = edit.to_environment();
        let renamed = edit.original.clone().filter(|o| *o != env.name);
        let said = format!("saving environment \"{}\"…", env.name);
        store.submit(move |s| {
            let result = match &renamed {
                Some(old) => s.rename(old, &env.name).and_then(|()| s.save(&env)),
                None => s.save(&env),
            };
            let done = match result {
                Ok(path) => StoreDone::Saved {
                    secrets: env.variables.iter().any(|v| v.secret),
                    name: env.name,
                    path,
                    renamed: renamed.is_some(),
                },
                Err(e) => StoreDone::Failed(e.to_string()),
            };
            listed(s, done)
        });
        (false, said)
    }

    fn delete_editing(&mut self) -> (bool, String) {
        let name = self.editing.as_ref().and_then(|e| e.original.clone());
        let (Some(store), Some(name)) = (&mut self.store, name) else {
            return (true, "nothing to delete".into());
        };
        let said = format!("deleting environment \"{name}\"…");
        store.submit(move |s| {
            let done = match s.delete(&name) {
                Ok(()) => StoreDone::Deleted { name },
                Err(e) => StoreDone::Failed(e.to_string()),
            };
            listed(s, done)
        });
        (false, said)
    }
}

/// Warnings about the rows: names that cannot be used as `{{name}}`, duplicates, `uuid`.
fn row_problems(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let name = r.variable.name.trim();
        if name.is_empty() {
            continue;
        }
        if !crate::model::is_variable_name(name) {
            out.push(format!(
                "`{name}` cannot be used as {{{{{name}}}}}: letters, digits, _ - . only"
            ));
        } else if name == crate::model::UUID_VARIABLE {
            out.push(
                "{{uuid}} is built in (a fresh UUID per Send); this variable is ignored".into(),
            );
        } else if rows[..i].iter().any(|o| o.variable.name.trim() == name) {
            out.push(format!("`{name}` is defined twice; the first one is used"));
        }
    }
    out
}
