//! Shared set-up of the egui_kittest workbench tests: a workbench on a [`CoreLink::probe`] (the
//! commands it sends are observable, nothing touches the network) and a harness that draws it.

#![allow(dead_code)]

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::service::{CoreLink, CoreProbe};
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};

/// The demo base URL the tests pretend to have (nothing listens there).
pub const DEMO: &str = "http://127.0.0.1:9";

/// A fresh workbench (first-run state) and the probe of its link to the core.
pub fn workbench() -> (WorkbenchState, CoreProbe) {
    let (link, probe) = CoreLink::probe();
    (workbench_on(link, None), probe)
}

/// A workbench on `link` (its History panel and Batch tab connected when the link serves
/// them), restored from `persisted` when given.
pub fn workbench_on(
    link: CoreLink,
    persisted: Option<retryscope::ui::persistence::PersistedWorkbench>,
) -> WorkbenchState {
    workbench_on_with(link, persisted, ScriptedDialogs::default())
}

/// [`workbench_on`] whose file dialogs answer as `dialogs` says.
pub fn workbench_on_with(
    link: CoreLink,
    persisted: Option<retryscope::ui::persistence::PersistedWorkbench>,
    dialogs: ScriptedDialogs,
) -> WorkbenchState {
    WorkbenchState::new(WorkbenchSetup {
        link,
        dialogs: Box::new(dialogs),
        demo_base_url: Some(DEMO.into()),
        library_dir: None,
        persisted,
    })
}

/// A harness `size` points large on a fresh workbench whose built-in profile was duplicated,
/// so the policy editor is editable (what the editor tests start from).
pub fn editable(size: [f32; 2]) -> Harness<'static, WorkbenchState> {
    let (state, _probe) = workbench();
    let mut h = harness_sized(state, size);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    h
}

/// A harness `size` points large drawing `state` (logic, then ui, as eframe does).
pub fn harness_sized(state: WorkbenchState, size: [f32; 2]) -> Harness<'static, WorkbenchState> {
    // Explanations use `→` and `×`, which egui's bundled font lacks: add a system font, and
    // accept tofu only on machines without one.
    let has_fallback = retryscope::ui::fonts::install_fallback_fonts(&egui::Context::default());
    // A click can start a background worker whose reply lands a few frames later: allow
    // more than egui_kittest's default 4 frames for the UI to settle.
    let mut builder = Harness::builder()
        .with_size(size)
        .with_max_steps(32)
        .with_context_setup(|ctx| {
            retryscope::ui::fonts::install_fallback_fonts(ctx);
        });
    if !has_fallback {
        builder = builder.allow_missing_glyphs();
    }
    builder.build_ui_state(
        |ui, s: &mut WorkbenchState| {
            let ctx = ui.ctx().clone();
            s.logic(&ctx);
            s.ui(ui);
        },
        state,
    )
}

/// Types `text` into the field labelled `label` as a person does: focus it, select all, then
/// one key at a time (Return for a newline), running frames after each key. After every key
/// the field must still have keyboard focus; the panic names the key that lost it.
pub fn type_into(h: &mut Harness<'_, WorkbenchState>, label: &str, text: &str) {
    h.get_by_label(label).focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    for (i, c) in text.chars().enumerate() {
        if c == '\n' {
            h.key_press(Key::Enter);
        } else {
            h.get_by_label(label).type_text(&c.to_string());
        }
        h.run();
        assert!(
            h.get_by_label(label).is_focused(),
            "`{label}` lost focus after key {} ({c:?}) of {text:?}",
            i + 1
        );
    }
}

/// Runs frames until `idle` holds for three frames in a row (a background reader answered
/// everything asked); panics naming `what` after 1,000 frames.
pub fn settle_until(
    h: &mut Harness<'_, WorkbenchState>,
    what: &str,
    idle: impl Fn(&WorkbenchState) -> bool,
) {
    let mut calm = 0;
    for _ in 0..1000 {
        h.run();
        if idle(h.state()) {
            calm += 1;
            if calm == 3 {
                return;
            }
        } else {
            calm = 0;
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    panic!("{what} never became idle");
}
