//! Keyboard shortcuts: Ctrl+Enter send, Esc cancel, Ctrl+O open, Ctrl+S save, Ctrl+Shift+S save as
//! (Cmd instead of Ctrl on macOS).
//!
//! Esc belongs to whatever is open on top first: while a popup (a dropdown such as *Strategy*
//! or *Profile*, a menu) or a modal (the unsaved-changes prompt, the file picker) is open, Esc
//! is left for it to close itself and never cancels a run.

use egui::{Key, KeyboardShortcut, Modifiers};

/// A shortcut the user pressed this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    /// Ctrl+Enter.
    Send,
    /// Esc: cancel the selected run.
    Cancel,
    /// Ctrl+O.
    Open,
    /// Ctrl+S.
    Save,
    /// Ctrl+Shift+S.
    SaveAs,
}

const SEND: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Enter);
const OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
const SAVE_AS: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::S);
const SAVE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
const CANCEL: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::Escape);

/// Whether a popup or a modal is open (from egui's memory of the previous frame), so Esc is
/// theirs.
pub fn overlay_open(ctx: &egui::Context) -> bool {
    egui::Popup::is_any_open(ctx) || ctx.memory(|m| m.top_modal_layer().is_some())
}

/// Consumes this frame's shortcuts (Save As is checked before Save, which would match it too).
/// Esc is not taken while [`overlay_open`].
pub fn take_shortcuts(ctx: &egui::Context) -> Vec<Shortcut> {
    let esc_is_free = !overlay_open(ctx);
    ctx.input_mut(|i| {
        let mut out = Vec::new();
        if i.consume_shortcut(&SEND) {
            out.push(Shortcut::Send);
        }
        if i.consume_shortcut(&OPEN) {
            out.push(Shortcut::Open);
        }
        if i.consume_shortcut(&SAVE_AS) {
            out.push(Shortcut::SaveAs);
        } else if i.consume_shortcut(&SAVE) {
            out.push(Shortcut::Save);
        }
        if esc_is_free && i.consume_shortcut(&CANCEL) {
            out.push(Shortcut::Cancel);
        }
        out
    })
}
