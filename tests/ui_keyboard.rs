//! Keyboard behaviour of the workbench (egui_kittest, no window): paste into text fields, and
//! Esc closing an open dropdown before it ever cancels a run.

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use retryscope::service::CoreCommand;
use retryscope::service::{CoreLink, CoreProbe};
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};

fn workbench() -> (Harness<'static, WorkbenchState>, CoreProbe) {
    let (engine, probe) = CoreLink::probe();
    let state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
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

fn cancels(probe: &CoreProbe) -> usize {
    probe
        .drain_commands()
        .into_iter()
        .filter(|c| matches!(c, CoreCommand::Cancel(_)))
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
        h.state().request.composer.draft.url,
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

/// Whether the window was told to close within the next frames (egui_kittest keeps only the
/// last pass's output, so the guard's own record is read).
fn told_to_close(h: &mut Harness<'static, WorkbenchState>) -> bool {
    (0..4).any(|_| {
        h.step();
        h.state().quit.is_closing()
    })
}

/// The window system's close button, as eframe reports it for one frame.
fn press_close_button(h: &mut Harness<'static, WorkbenchState>) {
    h.input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .events
        .push(egui::ViewportEvent::Close);
    h.step();
}

#[test]
fn ctrl_q_with_nothing_live_quits_at_once() {
    let (mut h, _probe) = workbench();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    assert!(told_to_close(&mut h), "the window is told to close");
    assert!(
        h.query_by_label("Quit Retryscope?").is_none(),
        "no question"
    );
}

#[test]
fn ctrl_q_and_the_close_button_ask_first_while_a_run_is_live() {
    let (mut h, probe) = workbench();
    h.get_by_label("Send").click();
    h.run();
    assert_eq!(h.state().runs.active_runs().len(), 1, "a run is going");

    h.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    h.run();
    assert!(
        !h.state().quit.is_closing(),
        "Ctrl+Q did not close the window"
    );
    h.get_by_label("1 run is waiting or sending: quit anyway?");
    h.get_by_label_contains("A run is cancelled");
    h.get_by_label("Keep working").click();
    h.run();
    assert!(h.query_by_label("Quit Retryscope?").is_none(), "answered");
    assert!(!h.state().quit.is_closing());
    assert_eq!(cancels(&probe), 0, "the run goes on");

    // The close button: the close is held back and the same question asked.
    press_close_button(&mut h);
    let held_back = h
        .output()
        .viewport_output
        .get(&egui::ViewportId::ROOT)
        .is_some_and(|v| v.commands.contains(&egui::ViewportCommand::CancelClose));
    assert!(held_back, "the close was cancelled");
    h.run();
    h.get_by_label("Quit Retryscope?");
    // Esc is the modal's (it closes it), never the run's.
    h.key_press(Key::Escape);
    h.run();
    assert!(h.query_by_label("Quit Retryscope?").is_none());
    assert_eq!(cancels(&probe), 0, "Esc closed the question, not the run");

    h.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    h.run();
    h.get_by_label("Quit anyway").click();
    assert!(told_to_close(&mut h), "Quit anyway closes the window");
    // The close that follows goes through without a second question.
    press_close_button(&mut h);
    assert!(h.query_by_label("Quit Retryscope?").is_none());
}
