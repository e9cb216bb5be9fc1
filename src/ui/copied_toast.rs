//! The short note after a copy ("Copied the run as HAR (secrets masked)"): every Copy button and
//! Ctrl+C copy through [`copy`], and the frame draws the note with [`show`] until it expires.

use egui::{Context, Id};

/// How long the note stays, seconds.
pub const SHOWN_FOR_S: f64 = 2.5;

/// What the copied text holds of the secrets it could contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secrets {
    /// Secrets were replaced by `***`.
    Masked,
    /// The user asked for the secrets as they are.
    Included,
    /// The text cannot hold a secret (a profile's settings, a simulation's figures).
    None,
}

impl Secrets {
    /// `Included` when the user asked for secrets, else `Masked`.
    pub fn included_if(include: bool) -> Self {
        if include {
            Secrets::Included
        } else {
            Secrets::Masked
        }
    }
}

#[derive(Debug, Clone)]
struct Note {
    text: String,
    /// `egui::InputState::time` at which the note goes, s.
    until: f64,
}

fn note_id() -> Id {
    Id::unique("copied_toast")
}

/// The note for `what` (e.g. `the run as HAR`): `Copied the run as HAR (secrets masked)`.
pub fn note_text(what: &str, secrets: Secrets) -> String {
    match secrets {
        Secrets::Masked => format!("Copied {what} (secrets masked)"),
        Secrets::Included => format!("Copied {what}, secrets included"),
        Secrets::None => format!("Copied {what}"),
    }
}

/// Puts `text` on the system clipboard and notes what was copied.
pub fn copy(ctx: &Context, text: String, what: &str, secrets: Secrets) {
    ctx.copy_text(text);
    let until = ctx.input(|i| i.time) + SHOWN_FOR_S;
    let note = Note {
        text: note_text(what, secrets),
        until,
    };
    ctx.data_mut(|d| d.insert_temp(note_id(), note));
    ctx.request_repaint();
}

/// A Copy button (`text`, `tooltip`; greyed out unless `enabled`) that copies what `make`
/// returns, made only when clicked, noting it as `what`; true when clicked.
pub fn copy_button(
    ui: &mut egui::Ui,
    enabled: bool,
    (text, tooltip): (&str, &str),
    (what, secrets): (&str, Secrets),
    make: impl FnOnce() -> String,
) -> bool {
    let clicked = super::controls::button(ui, enabled, text, tooltip);
    if clicked {
        copy(ui.ctx(), make(), what, secrets);
    }
    clicked
}

/// The note shown now, if any.
pub fn current(ctx: &Context) -> Option<String> {
    let now = ctx.input(|i| i.time);
    ctx.data(|d| d.get_temp::<Note>(note_id()))
        .filter(|n| n.until > now)
        .map(|n| n.text)
}

/// Draws the note at the bottom of the window while it lasts (call once per frame).
pub fn show(ctx: &Context) {
    let now = ctx.input(|i| i.time);
    let Some(note) = ctx.data(|d| d.get_temp::<Note>(note_id())) else {
        return;
    };
    if note.until <= now {
        ctx.data_mut(|d| d.remove::<Note>(note_id()));
        return;
    }
    egui::Area::new(note_id().with("area"))
        .order(egui::Order::Tooltip)
        .interactable(false)
        .anchor(egui::Align2::CENTER_BOTTOM, egui::vec2(0.0, -24.0))
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| ui.label(&note.text));
        });
    ctx.request_repaint_after(std::time::Duration::from_secs_f64(note.until - now));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_says_what_was_copied_and_what_of_its_secrets() {
        assert_eq!(
            note_text("the run as HAR", Secrets::Masked),
            "Copied the run as HAR (secrets masked)"
        );
        assert_eq!(
            note_text("attempt 2 as curl", Secrets::Included),
            "Copied attempt 2 as curl, secrets included"
        );
        assert_eq!(
            note_text("the sweep CSV", Secrets::None),
            "Copied the sweep CSV"
        );
    }

    /// One frame at `time` seconds (its texture changes dropped: nothing draws them).
    fn frame(ctx: &Context, time: f64, add: impl FnMut(&mut egui::Ui)) {
        let input = egui::RawInput {
            time: Some(time),
            ..Default::default()
        };
        ctx.run_ui(input, add).textures_delta.clear();
    }

    #[test]
    fn the_note_goes_after_its_time() {
        let ctx = Context::default();
        frame(&ctx, 10.0, |ui| {
            copy(ui.ctx(), "x".into(), "the body", Secrets::None);
        });
        frame(&ctx, 11.0, |ui| {
            assert_eq!(current(ui.ctx()).as_deref(), Some("Copied the body"));
        });
        frame(&ctx, 10.0 + SHOWN_FOR_S + 0.1, |ui| {
            assert_eq!(current(ui.ctx()), None);
        });
    }
}
