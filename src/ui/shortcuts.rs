//! Keyboard shortcuts: Ctrl+Enter send, Esc cancel, Ctrl+O open, Ctrl+S save, Ctrl+Shift+S save as,
//! Ctrl+Q quit (asking first while a run or a batch is live), Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y)
//! undo and redo of the request (while the keyboard is in the composer or nowhere; a field of
//! the policy keeps its own text undo)
//! (Cmd instead of Ctrl on macOS).
//!
//! Esc belongs to whatever is open on top first: while a popup (a dropdown such as *Strategy*
//! or *Profile*, a menu) or a modal (the unsaved-changes prompt, the file picker) is open, Esc
//! is left for it to close itself and never cancels a run.

use egui::{Key, KeyboardShortcut, Modifiers};

/// Every keyboard shortcut and what it does, as the About window lists them (docs/window.md
/// has the same table).
#[rustfmt::skip]
pub const KEYS: &[(&str, &str)] = &[
    ("Ctrl+Enter", "send the composed request"),
    ("Esc", "close the open popup, menu or dialog; with none open, cancel the selected run"),
    ("Ctrl+O", "open a profile file"),
    ("Ctrl+S", "save the profile"),
    ("Ctrl+Shift+S", "save the profile as a new file"),
    ("Ctrl+Q", "quit (asks first while a run is waiting or a batch is working)"),
    ("Ctrl+Z", "undo the last change of the request: a paste, an import, a load, typing"),
    ("Ctrl+Shift+Z / Ctrl+Y", "redo it"),
    ("Ctrl+C", "in the attempts table, no text field focused: copy the selected attempt row"),
];

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
    /// Ctrl+Q.
    Quit,
    /// Ctrl+Z.
    Undo,
    /// Ctrl+Shift+Z or Ctrl+Y.
    Redo,
}

const SEND: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Enter);
const OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
const SAVE_AS: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::S);
const SAVE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
const REDO: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
const REDO_Y: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Y);
const UNDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
const QUIT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Q);
const CANCEL: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::Escape);

/// Whether a popup or a modal is open (from egui's memory of the previous frame), so Esc is
/// theirs.
pub fn overlay_open(ctx: &egui::Context) -> bool {
    egui::Popup::is_any_open(ctx) || ctx.memory(|m| m.top_modal_layer().is_some())
}

/// Consumes this frame's shortcuts (Save As is checked before Save, and Redo before Undo, which
/// would match them too). Esc is not taken while [`overlay_open`]; undo and redo only when
/// `undo_is_free` (else they stay with the focused text field).
pub fn take_shortcuts(ctx: &egui::Context, undo_is_free: bool) -> Vec<Shortcut> {
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
        if undo_is_free {
            if i.consume_shortcut(&REDO) || i.consume_shortcut(&REDO_Y) {
                out.push(Shortcut::Redo);
            } else if i.consume_shortcut(&UNDO) {
                out.push(Shortcut::Undo);
            }
        }
        if i.consume_shortcut(&QUIT) {
            out.push(Shortcut::Quit);
        }
        if esc_is_free && i.consume_shortcut(&CANCEL) {
            out.push(Shortcut::Cancel);
        }
        out
    })
}
