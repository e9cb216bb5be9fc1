//! The request composer: method, URL (validated as you type), Send and the Watch toggle
//! ([`super::watch_toggle`]), query and header tables, body, per-attempt timeouts and transport
//! toggles.

use super::body_editor::{BodyAction, JsonCheck, body_editor};
use super::field_id::field_id;
use super::kv_table::{RevealedSecrets, kv_table};
use super::ms_field::optional_ms_field;
use super::number_field::{NumberSpec, number_field};
use super::request_draft::{RequestDraft, UUID_PLACEHOLDER};
use super::url_check::url_problem;
use crate::ui::controls::{button, check};
use egui::Ui;

/// Methods offered in the picker; any other token can be typed.
pub const COMMON_METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// What the composer asks the workbench to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerAction {
    /// Send the request (the Send button).
    Send,
    /// Start or stop a watch of the request (the Watch toggle).
    Watch(super::watch_toggle::WatchAction),
    /// Pick a body file.
    BrowseBodyFile,
    /// Pick a HAR file to import a request from ("Import HAR…").
    ImportHar,
}

/// The composer: the draft plus UI-only state.
#[derive(Debug, Default)]
pub struct Composer {
    /// The request being edited (persisted).
    pub draft: RequestDraft,
    /// Secret rows currently shown in clear.
    pub revealed: RevealedSecrets,
    /// Whether the URL's secrets (user, password, secret query values) are shown in clear
    /// while the URL field is not being edited.
    pub reveal_url: bool,
    /// Result of the last JSON Pretty/Validate.
    pub json_check: JsonCheck,
    /// Count of edits made in the composer (lets the app save only after changes).
    pub edits: u64,
    /// "Import curl…" modal and the last import's notes.
    pub curl_import: super::curl_import_modal::CurlImporter,
    /// "Export curl…" modal.
    pub curl_export: super::curl_export_modal::CurlExporter,
    /// The entry picker of "Import HAR…" (open once a file is read).
    pub har_import: super::har_import_modal::HarPicker,
    /// Undo and redo of the whole request (Ctrl+Z, Ctrl+Shift+Z).
    pub undo: super::composer_undo::ComposerUndo,
    /// The Watch toggle under Send: its schedule and the watch it runs.
    pub watch: super::watch_toggle::WatchToggle,
}

impl Composer {
    /// A composer editing `draft`.
    pub fn new(draft: RequestDraft) -> Self {
        Self {
            draft,
            ..Self::default()
        }
    }

    /// Replaces the whole request with `draft`, filled from `what` (`the pasted curl command`),
    /// as one undo step; the composer offers Undo until the next change.
    pub fn fill(&mut self, draft: RequestDraft, what: &str) {
        self.undo.will_fill(what);
        self.draft = draft;
        self.edits += 1;
    }

    /// Undoes the last step; returns what was undone, `None` when there is nothing to undo.
    pub fn undo(&mut self) -> Option<String> {
        let undone = self.undo.undo(&mut self.draft)?;
        self.edits += 1;
        Some(undone)
    }

    /// Redoes the last undone step; returns what was redone.
    pub fn redo(&mut self) -> Option<String> {
        let redone = self.undo.redo(&mut self.draft)?;
        self.edits += 1;
        Some(redone)
    }

    /// Why the request cannot be sent now, if it cannot.
    pub fn send_blocker(&self) -> Option<String> {
        if self.draft.method.trim().is_empty()
            || self.draft.method.trim().contains(char::is_whitespace)
        {
            return Some("type a method token such as GET".into());
        }
        url_problem(&self.draft.url)
    }

    /// Draws the composer; returns the actions the user asked for.
    pub fn ui(&mut self, ui: &mut Ui) -> Vec<ComposerAction> {
        let mut actions = Vec::new();
        let mut changed = false;
        ui.heading("Request");
        // Wrapped: three buttons must never widen a narrow request panel.
        ui.horizontal_wrapped(|ui| {
            let tip = "fill the composer from a pasted curl command";
            if button(ui, true, "Import curl…", tip) {
                self.curl_import.open();
            }
            if button(
                ui,
                true,
                "Export curl…",
                "this request as a curl command, to copy",
            ) {
                self.curl_export.open();
            }
            let tip = "pick a request from a HAR file saved by a browser's network panel";
            if button(ui, true, "Import HAR…", tip) {
                actions.push(ComposerAction::ImportHar);
            }
        });
        if let Some(draft) = self.har_import.modal_ui(ui) {
            self.fill(draft, "the HAR entry");
        }
        if let Some(draft) = self.curl_import.modal_ui(ui) {
            self.fill(draft, "the imported curl command");
        }
        self.fill_notice_ui(ui);
        self.curl_export.modal_ui(ui, &self.draft);
        self.curl_import.notes_ui(ui);
        self.method_and_url(ui, &mut actions, &mut changed);
        ui.separator();
        section(ui, "Query parameters", "query_section", true, |ui| {
            ui.weak(format!(
                "{UUID_PLACEHOLDER} in a value becomes a fresh UUID on every Send"
            ));
            changed |= kv_table(ui, "query", &mut self.draft.query, &mut self.revealed);
        });
        section(ui, "Headers", "headers_section", true, |ui| {
            changed |= kv_table(ui, "header", &mut self.draft.headers, &mut self.revealed);
        });
        section(ui, "Auth", "auth_section", false, |ui| {
            changed |= super::auth_editor::auth_editor(ui, &mut self.draft.auth);
        });
        section(ui, "Body", "body_section", false, |ui| {
            let (body, check) = (&mut self.draft.body, &mut self.json_check);
            let action = body_editor(ui, body, check, &mut self.revealed, &mut changed);
            if action == Some(BodyAction::BrowseFile) {
                actions.push(ComposerAction::BrowseBodyFile);
            }
        });
        let transport = "Timeouts and connection";
        section(ui, transport, "transport_section", false, |ui| {
            changed |= self.transport(ui);
        });
        if changed {
            self.edits += 1;
        }
        actions
    }

    /// "Filled from the pasted curl command. [Undo]" while the last fill can be undone.
    fn fill_notice_ui(&mut self, ui: &mut Ui) {
        let Some(what) = self.undo.fill_notice().map(str::to_owned) else {
            return;
        };
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("The whole request was replaced by {what}."));
            let tip = "put the request back as it was before (Ctrl+Z)";
            if button(ui, true, "Undo", tip) {
                self.undo();
            }
            if ui
                .small_button("Keep")
                .on_hover_text("hide this note (Ctrl+Z still undoes it)")
                .clicked()
            {
                self.undo.dismiss_notice();
            }
        });
    }

    fn method_and_url(
        &mut self,
        ui: &mut Ui,
        actions: &mut Vec<ComposerAction>,
        changed: &mut bool,
    ) {
        ui.horizontal(|ui| {
            let label = ui.label("Method");
            // One place shows the method: the token field; the picker beside it only offers the
            // common verbs (showing the method twice read as two different settings).
            *changed |= ui
                .add(
                    egui::TextEdit::singleline(&mut self.draft.method)
                        .id(field_id("request.method"))
                        .desired_width(70.0),
                )
                .accessible_name("Method token")
                .on_hover_text("any method token, e.g. PURGE")
                .changed();
            egui::ComboBox::from_id_salt("method_picker")
                .selected_text("common")
                .width(70.0)
                .show_ui(ui, |ui| {
                    for m in COMMON_METHODS {
                        if ui.selectable_label(self.draft.method == m, m).clicked() {
                            m.clone_into(&mut self.draft.method);
                            *changed = true;
                        }
                    }
                })
                .response
                .on_hover_text("pick a common method")
                .labelled_by(label.id);
            let blocked = self.send_blocker();
            let send = ui
                .add_enabled(blocked.is_none(), egui::Button::new("Send"))
                .on_hover_text("send the request under the selected profile (Ctrl+Enter)");
            if send.clicked() {
                actions.push(ComposerAction::Send);
            }
        });
        let blocked = self.send_blocker();
        if let Some(action) = self.watch.ui(ui, blocked.as_deref()) {
            actions.push(ComposerAction::Watch(action));
        }
        let mut url_changed = false;
        ui.horizontal(|ui| {
            let label = ui.label("URL");
            let id = field_id("request.url");
            // DESIGN.md §9: the URL's secrets read `***` unless the field is being edited or
            // the user revealed them; the masked copy is display only.
            let masked = crate::model::secrets::mask_url(&self.draft.url);
            let holds_secrets = masked != self.draft.url;
            let editing = ui.memory(|m| m.has_focus(id));
            let toggle_width = if holds_secrets { 70.0 } else { 0.0 };
            let width = (ui.available_width() - toggle_width).max(80.0);
            if holds_secrets && !editing && !self.reveal_url {
                let mut shown = masked;
                ui.add(
                    egui::TextEdit::singleline(&mut shown)
                        .id(id)
                        .desired_width(width),
                )
                .labelled_by(label.id)
                .on_hover_text("secrets in the URL read *** until you edit the field or tick Show");
            } else {
                url_changed = ui
                    .add(
                        egui::TextEdit::singleline(&mut self.draft.url)
                            .id(id)
                            .desired_width(width),
                    )
                    .labelled_by(label.id)
                    .changed();
            }
            if holds_secrets {
                ui.checkbox(&mut self.reveal_url, "Show").on_hover_text(
                    "show the URL's user, password and secret query values in clear",
                );
            }
        });
        *changed |= url_changed;
        // A curl command pasted into the URL field fills the whole composer.
        if url_changed
            && crate::interop::starts_with_curl_program(&self.draft.url)
            && let Some(draft) = self.curl_import.import(&self.draft.url.clone())
        {
            self.fill(draft, "the pasted curl command");
        }
        if let Some(problem) = url_problem(&self.draft.url) {
            ui.colored_label(ui.visuals().error_fg_color, problem);
        }
    }

    fn transport(&mut self, ui: &mut Ui) -> bool {
        let t = &mut self.draft.timeouts;
        let mut changed = false;
        // (field, label, value, ms when switched on, tooltip)
        #[rustfmt::skip]
        let fields = [
            ("resolve_ms", "Resolve timeout", &mut t.resolve_ms, 5000,
             "DNS lookup limit — the VBScript seed's resolveTimeout"),
            ("connect_ms", "Connect timeout", &mut t.connect_ms, 5000,
             "TCP + TLS connect limit — the seed's connectTimeout"),
            ("read_ms", "Read timeout", &mut t.read_ms, 30000,
             "limit between reads; covers the seed's sendTimeout and receiveTimeout (the request is sent within the same budget)"),
            ("total_ms", "Total timeout", &mut t.total_ms, 60000,
             "whole attempt incl. redirects and body; no seed equivalent (the seed's four limits add up to it)"),
        ];
        for (field, label, value, on_ms, tip) in fields {
            let path = format!("request.timeouts.{field}");
            changed |= optional_ms_field(ui, &path, label, value, on_ms, tip);
        }
        ui.weak("unset timeouts use the profile's values");
        let d = &mut self.draft;
        ui.horizontal(|ui| {
            let (on, tip) = (
                &mut d.follow_redirects,
                "every hop is shown inside its attempt",
            );
            changed |= check(ui, "request.follow_redirects", on, "Follow redirects", tip);
            ui.add_enabled_ui(d.follow_redirects, |ui| {
                let spec = NumberSpec::new("request.max_redirects", "Redirect limit").max(50.0);
                changed |= number_field(ui, spec, &mut d.max_redirects);
            });
        });
        ui.add_enabled_ui(d.follow_redirects, |ui| {
            changed |= check(
                ui,
                "request.location_trusted",
                &mut d.location_trusted,
                "Send secret headers to other origins",
                "as curl --location-trusted; off: Authorization, cookies and API-key headers \
                 stop at a redirect to another host, and the hop names them",
            );
        });
        let tip = "turn off only for test servers with self-signed certificates";
        let label = "Verify TLS certificates";
        changed |= check(ui, "request.verify_tls", &mut d.verify_tls, label, tip);
        ui.add_enabled_ui(d.verify_tls, |ui| {
            ui.horizontal(|ui| {
                let label = ui.label("Trusted CA file").on_hover_text(
                    "a PEM file of a private CA's certificate(s), trusted besides the system's (curl's --cacert); read when the run starts",
                );
                let field = egui::TextEdit::singleline(&mut d.ca_cert)
                    .id(field_id("request.ca_cert"))
                    .hint_text("/path/to/private-ca.pem");
                let field = field.desired_width(f32::INFINITY);
                changed |= ui.add(field).labelled_by(label.id).changed();
            });
        });
        changed |= check(
            ui,
            "request.new_connection_per_attempt",
            &mut d.new_connection_per_attempt,
            "New connection per attempt",
            "no pooled connection: every attempt connects afresh, as the VBScript seed does",
        );
        ui.horizontal(|ui| {
            let tip = "one key for the run, the same on every attempt; lets POST/PATCH be retried";
            let path = "request.idempotency_enabled";
            let toggled = check(
                ui,
                path,
                &mut d.idempotency_enabled,
                "Send Idempotency-Key",
                tip,
            );
            let new_key = || uuid::Uuid::new_v4().to_string();
            if toggled && d.idempotency_enabled && d.idempotency_key.is_empty() {
                d.idempotency_key = new_key();
            }
            if d.idempotency_enabled {
                ui.monospace(&d.idempotency_key);
                if ui.small_button("New key").clicked() {
                    d.idempotency_key = new_key();
                    changed = true;
                }
            }
            changed |= toggled;
        });
        changed
    }
}

/// A collapsing section `title` with the id `id`, open at first when `open`.
fn section(ui: &mut Ui, title: &str, id: &str, open: bool, add: impl FnOnce(&mut Ui)) {
    egui::CollapsingHeader::new(title)
        .id_salt(id)
        .default_open(open)
        .show(ui, add);
}
