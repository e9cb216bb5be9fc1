//! The Auth section of the composer: Bearer token or Basic auth, producing the
//! `Authorization` header on Send. The token and the password are secret: masked unless
//! "show" is on, never written to a file (saved requests blank them; "Remember secrets" keeps
//! them in the OS keyring).

use super::controls::{labelled, picker};
use crate::model::{AuthDraft, AuthKind};
use egui::Ui;

/// Draws the auth editor for `auth`; returns true when anything changed. Widgets are labelled
/// `Auth type`, `Bearer token`, `Basic auth user`, `Basic auth password`, and `show` toggles
/// (`Show Bearer token`, `Show Basic auth password`).
pub fn auth_editor(ui: &mut Ui, auth: &mut AuthDraft) -> bool {
    let mut changed = false;
    let kinds = AuthKind::ALL.map(|k| (k, k.label(), ""));
    changed |= picker(ui, "request.auth.kind", "Auth type", &mut auth.kind, &kinds).changed();
    match auth.kind {
        AuthKind::None => {
            ui.weak("no Authorization header is added");
        }
        AuthKind::Bearer => {
            changed |= secret_field(
                ui,
                "Bearer token",
                "request.auth.bearer_token",
                &mut auth.bearer_token,
            );
            ui.weak("sent as Authorization: Bearer <token>; {{variables}} allowed");
        }
        AuthKind::Basic => {
            let user = egui::TextEdit::singleline(&mut auth.basic_user)
                .id_salt("request.auth.basic_user")
                .desired_width(180.0);
            changed |= labelled(ui, "Basic auth user", user).changed();
            changed |= secret_field(
                ui,
                "Basic auth password",
                "request.auth.basic_password",
                &mut auth.basic_password,
            );
            ui.weak("sent as Authorization: Basic base64(user:password)");
        }
    }
    if auth.kind != AuthKind::None {
        ui.weak("replaces an Authorization row of the headers table");
    }
    changed
}

/// A masked single-line field with a `show` toggle (reveal state kept in egui's memory, never
/// persisted).
fn secret_field(ui: &mut Ui, label: &str, id: &str, value: &mut String) -> bool {
    let reveal_id = egui::Id::unique((id, "revealed"));
    let mut shown = ui.data(|d| d.get_temp::<bool>(reveal_id).unwrap_or(false));
    let mut changed = false;
    ui.horizontal(|ui| {
        let l = ui.label(label);
        changed = ui
            .add(
                egui::TextEdit::singleline(value)
                    .id_salt(id)
                    .password(!shown)
                    .desired_width(180.0),
            )
            .labelled_by(l.id)
            .changed();
        if ui
            .toggle_value(&mut shown, "show")
            .accessible_name(format!("Show {label}"))
            .on_hover_text("show the secret value")
            .changed()
        {
            ui.data_mut(|d| d.insert_temp(reveal_id, shown));
        }
    });
    changed
}
