//! Keyboard shortcuts: Ctrl+Enter send, Esc cancel, Ctrl+O open, Ctrl+S save, Ctrl+Shift+S save as,
//! Ctrl+Q quit (asking first while a run or a batch is live), Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y)
//! undo and redo of the request (while the keyboard is in the composer or nowhere; a field of
//! the policy keeps its own text undo)
//! (Cmd instead of Ctrl on macOS).
//!
//! Esc belongs to whatever is open on top first: while a popup (a dropdown such as *Strategy*
//! or *Profile*, a menu) or a modal (the unsaved-changes prompt, the file picker) is open, Esc
//! is left for it to close itself and never cancels a run.

use egui::{Key, Modifiers};

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

const CMD_SHIFT: Modifiers = Modifiers::COMMAND.plus(Modifiers::SHIFT);

/// The keys of each shortcut, in the order they are taken: Save As before Save and Redo before
/// Undo, which would match them too.
const KEYMAP: [(Modifiers, Key, Shortcut); 9] = [
    (Modifiers::COMMAND, Key::Enter, Shortcut::Send),
    (Modifiers::COMMAND, Key::O, Shortcut::Open),
    (CMD_SHIFT, Key::S, Shortcut::SaveAs),
    (Modifiers::COMMAND, Key::S, Shortcut::Save),
    (CMD_SHIFT, Key::Z, Shortcut::Redo),
    (Modifiers::COMMAND, Key::Y, Shortcut::Redo),
    (Modifiers::COMMAND, Key::Z, Shortcut::Undo),
    (Modifiers::COMMAND, Key::Q, Shortcut::Quit),
    (Modifiers::NONE, Key::Escape, Shortcut::Cancel),
];

/// Whether a popup or a modal is open (from egui's memory of the previous frame), so Esc is
/// theirs.
pub fn overlay_open(ctx: &egui::Context) -> bool {
    egui::Popup::is_any_open(ctx) || ctx.memory(|m| m.top_modal_layer().is_some())
}

/// Consumes this frame's shortcuts (one table of key, modifiers and [`Shortcut`]). Esc is not
/// taken while [`overlay_open`]; undo and redo only when `undo_is_free` (else they stay with the
/// focused text field).
pub fn take_shortcuts(ctx: &egui::Context, undo_is_free: bool) -> Vec<Shortcut> {
    let esc_is_free = !overlay_open(ctx);
    ctx.input_mut(|i| {
        let mut out: Vec<Shortcut> = Vec::new();
        for (modifiers, key, shortcut) in KEYMAP {
            let free = match shortcut {
                Shortcut::Undo | Shortcut::Redo => undo_is_free,
                Shortcut::Cancel => esc_is_free,
                _ => true,
            };
            // One of Save As / Save and one of Redo / Undo a frame (Ctrl+Y after Ctrl+Shift+Z
            // redoes once).
            let taken = match shortcut {
                Shortcut::Save => Shortcut::SaveAs,
                Shortcut::Undo => Shortcut::Redo,
                other => other,
            };
            if free && !out.contains(&taken) && i.consume_key(modifiers, key) {
                out.push(shortcut);
            }
        }
        out
    })
}
