//! The environment picker (which variables fill `{{name}}` on Send) and the environment editor
//! window: add/remove variables, mark them secret (values masked, with a reveal toggle, kept in
//! the OS keyring or in memory only, never in a file).

use crate::model::{Environment, Variable, Variables};
use crate::store::EnvironmentStore;
use egui::Ui;

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

/// The picker and editor state.
#[derive(Debug, Default)]
pub struct EnvironmentPanel {
    store: Option<EnvironmentStore>,
    environments: Vec<Environment>,
    selected: Option<String>,
    editing: Option<Editing>,
    next_uid: u64,
    /// Why secrets are kept in memory only (no keyring), when they are.
    memory_only: Option<String>,
    problems: Vec<String>,
}

impl EnvironmentPanel {
    /// A panel over `store` (`None` = no data folder: environments cannot be saved), loading its
    /// environments; `memory_only` says why secrets are not kept in the OS keyring, if so.
    pub fn new(store: Option<EnvironmentStore>, memory_only: Option<String>) -> Self {
        let mut panel = Self {
            store,
            memory_only,
            ..Self::default()
        };
        panel.reload();
        panel
    }

    /// Re-reads every environment from the store (secrets included).
    pub fn reload(&mut self) {
        if let Some(store) = &self.store {
            let loaded = store.list();
            self.environments = loaded.environments;
            self.problems = loaded.problems;
        }
        if let Some(sel) = &self.selected
            && !self.environments.iter().any(|e| &e.name == sel)
        {
            self.selected = None;
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

    /// Selects environment `name` (`None` = no environment); an unknown name selects none.
    pub fn select(&mut self, name: Option<&str>) {
        self.selected = name
            .filter(|n| self.environments.iter().any(|e| e.name == *n))
            .map(str::to_owned);
    }

    /// Whether the editor window is open.
    pub fn is_editing(&self) -> bool {
        self.editing.is_some()
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
            if ui
                .button("Edit environments…")
                .on_hover_text("add, change or delete environments and their variables")
                .clicked()
            {
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

    /// Draws the editor window when open; returns a status line for the workbench
    /// (`(is_error, text)`) after Save or Delete.
    pub fn window_ui(&mut self, ctx: &egui::Context) -> Option<(bool, String)> {
        let mut open = self.editing.is_some();
        if !open {
            return None;
        }
        let mut status = None;
        egui::Window::new("Environments")
            .id(egui::Id::unique("env.window"))
            .open(&mut open)
            .default_width(520.0)
            .show(ctx, |ui| status = self.editor_ui(ui));
        if !open {
            self.editing = None;
        }
        status
    }

    fn editor_ui(&mut self, ui: &mut Ui) -> Option<(bool, String)> {
        let mut status = None;
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
            ui.colored_label(ui.visuals().error_fg_color, p);
        }
        ui.separator();
        let Some(edit) = &mut self.editing else {
            return None;
        };
        ui.horizontal(|ui| {
            let label = ui.label("Environment name");
            ui.add(egui::TextEdit::singleline(&mut edit.name).id_salt("env.name"))
                .labelled_by(label.id);
        });
        let mut remove = None;
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
                    ui.add(
                        egui::TextEdit::singleline(&mut row.variable.name)
                            .id_salt(format!("env.var.{}.name", row.uid))
                            .hint_text("name")
                            .desired_width(120.0),
                    )
                    .accessible_name(format!("variable {n} name"));
                    ui.add(
                        egui::TextEdit::singleline(&mut row.variable.value)
                            .id_salt(format!("env.var.{}.value", row.uid))
                            .hint_text("value")
                            .password(row.variable.secret && !row.shown)
                            .desired_width(200.0),
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
            save = ui.button("Save environment").clicked();
            if edit.original.is_some() && ui.button("Delete environment").clicked() {
                edit.confirm_delete = true;
            }
        });
        if edit.confirm_delete {
            ui.horizontal(|ui| {
                ui.label(format!("Delete \"{}\" and its secrets?", edit.name));
                if ui.button("Confirm delete").clicked() {
                    delete = true;
                }
                if ui.button("Cancel delete").clicked() {
                    edit.confirm_delete = false;
                }
            });
        }
        if save {
            status = Some(self.save_editing());
        } else if delete {
            status = Some(self.delete_editing());
        }
        status
    }

    fn save_editing(&mut self) -> (bool, String) {
        let (Some(store), Some(edit)) = (&self.store, &mut self.editing) else {
            return (
                true,
                "cannot save the environment: no data folder is known (set RETRYSCOPE_DATA_DIR)"
                    .into(),
            );
        };
        let env = edit.to_environment();
        let renamed = edit.original.as_ref().filter(|o| **o != env.name).cloned();
        let result = match &renamed {
            Some(old) => store.rename(old, &env.name).and_then(|()| store.save(&env)),
            None => store.save(&env),
        };
        match result {
            Ok(path) => {
                edit.original = Some(env.name.clone());
                if renamed.is_some() || self.selected.is_none() {
                    self.selected = Some(env.name.clone());
                }
                self.reload();
                let where_secrets =
                    if self.memory_only.is_some() && env.variables.iter().any(|v| v.secret) {
                        "; secrets kept in memory only (no OS keyring)"
                    } else {
                        ""
                    };
                (
                    false,
                    format!(
                        "saved environment \"{}\"{where_secrets}: {}",
                        env.name,
                        path.display()
                    ),
                )
            }
            Err(e) => (true, e.to_string()),
        }
    }

    fn delete_editing(&mut self) -> (bool, String) {
        let (Some(store), Some(edit)) = (&self.store, &self.editing) else {
            return (true, "nothing to delete".into());
        };
        let Some(name) = edit.original.clone() else {
            return (true, "nothing to delete".into());
        };
        match store.delete(&name) {
            Ok(()) => {
                self.editing = None;
                self.reload();
                (false, format!("deleted environment \"{name}\""))
            }
            Err(e) => (true, e.to_string()),
        }
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
