//! Keyboard shortcuts: Ctrl+Enter send, Esc cancel, Ctrl+O open, Ctrl+S save, Ctrl+Shift+S save as
//! (Cmd instead of Ctrl on macOS).

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

/// Consumes this frame's shortcuts (Save As is checked before Save, which would match it too).
pub fn take_shortcuts(ctx: &egui::Context) -> Vec<Shortcut> {
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
        if i.consume_shortcut(&CANCEL) {
            out.push(Shortcut::Cancel);
        }
        out
    })
}
