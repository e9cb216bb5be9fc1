//! Keyboard behaviour of the workbench (egui_kittest, no window): paste into text fields, and
//! Esc closing an open dropdown before it ever cancels a run.

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use retryscope::service::Command;
use retryscope::ui::engine_link::{ChannelEngine, EngineProbe};
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};

fn workbench() -> (Harness<'static, WorkbenchState>, EngineProbe) {
    let (engine, probe) = ChannelEngine::new();
    let state = WorkbenchState::new(WorkbenchSetup {
        engine: Box::new(engine),
        dialogs: Box::new(ScriptedDialogs::default()),
        demo_base_url: Some("http://127.0.0.1:9".into()),
        library_dir: None,
        persisted: None,
    });
    let mut h = Harness::builder()
        .with_size([1280.0, 800.0])
        .with_max_steps(32)
        .build_ui_state(
            |ui, s: &mut WorkbenchState| {
                let ctx = ui.ctx().clone();
                s.logic(&ctx);
                s.ui(ui);
            },
            state,
        );
    h.run();
    (h, probe)
}

fn cancels(probe: &EngineProbe) -> usize {
    probe
        .drain_commands()
        .into_iter()
        .filter(|c| matches!(c, Command::Cancel(_)))
        .count()
}

#[test]
fn pasting_replaces_the_selected_url() {
    let (mut h, _probe) = workbench();
    h.get_by_label("URL").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    // What eframe sends for Ctrl+V with the system clipboard's text (the `clipboard` feature).
    h.event(egui::Event::Paste("http://127.0.0.1:9/pasted?x=1".into()));
    h.run();
    assert_eq!(
        h.state().composer.draft.url,
        "http://127.0.0.1:9/pasted?x=1"
    );
}

#[test]
fn escape_closes_an_open_dropdown_and_only_then_cancels_the_run() {
    let (mut h, probe) = workbench();
    h.get_by_label("Send").click();
    h.run();
    probe.drain_commands();
    assert_eq!(h.state().runs.active_runs().len(), 1, "a run is going");

    h.get_by_label("Profile").click();
    h.run();
    assert!(egui::Popup::is_any_open(&h.ctx), "the dropdown is open");
    h.key_press(Key::Escape);
    h.run();
    assert!(!egui::Popup::is_any_open(&h.ctx), "Esc closed the dropdown");
    assert_eq!(cancels(&probe), 0, "and did not cancel the run");

    h.key_press(Key::Escape);
    h.run();
    assert_eq!(cancels(&probe), 1, "with nothing open, Esc cancels");
}
