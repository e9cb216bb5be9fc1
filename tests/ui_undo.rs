//! Undo and redo of the request (egui_kittest, no network): a pasted curl command, a typed URL
//! and the Undo button of the fill notice put the composer back; Ctrl+Z in a policy field is
//! that field's.

mod ui_support;

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use retryscope::model::KeyValue;
use retryscope::ui::workbench::WorkbenchState;

const CURL: &str = "curl -X POST -H 'X-Trace: t-1' -H 'Accept: text/plain' http://127.0.0.1:9/echo";

fn window() -> Harness<'static, WorkbenchState> {
    let (state, _probe) = ui_support::workbench();
    let mut h = ui_support::harness_sized(state, [1280.0, 800.0]);
    h.run();
    h
}

fn paste_curl(h: &mut Harness<'static, WorkbenchState>) {
    h.get_by_label("URL").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.event(egui::Event::Paste(CURL.into()));
    h.run();
}

#[test]
fn ctrl_z_puts_back_the_request_a_pasted_curl_command_replaced() {
    let mut h = window();
    // A header of the user's own, which the paste replaces.
    h.state_mut()
        .request
        .composer
        .draft
        .headers
        .push(KeyValue::new("X-Mine", "keep me"));
    h.run();
    let before = h.state().request.composer.draft.clone();

    paste_curl(&mut h);
    assert_eq!(
        h.state().request.composer.draft.url,
        "http://127.0.0.1:9/echo"
    );
    assert_eq!(h.state().request.composer.draft.method, "POST");
    h.get_by_label("The whole request was replaced by the pasted curl command.");

    // The URL field still has the keyboard: Ctrl+Z is the composer's, not the field's.
    assert!(h.get_by_label("URL").is_focused());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(
        h.state().request.composer.draft,
        before,
        "all of it came back"
    );
    assert!(
        h.query_by_label_contains("The whole request was replaced")
            .is_none()
    );
    h.get_by_label("Undid the pasted curl command in the request (Ctrl+Shift+Z redoes it)");

    h.key_press_modifiers(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
    h.run();
    let draft = &h.state().request.composer.draft;
    assert_eq!(draft.method, "POST");
    assert!(draft.headers.contains(&KeyValue::new("X-Trace", "t-1")));
    assert!(!draft.headers.contains(&KeyValue::new("X-Mine", "keep me")));
}

#[test]
fn the_fill_notice_undo_button_and_typed_text_undo() {
    let mut h = window();
    let original = h.state().request.composer.draft.clone();
    paste_curl(&mut h);
    h.get_by_label("Undo").click();
    h.run();
    assert_eq!(h.state().request.composer.draft, original);

    // Typed key by key, then undone as one burst of typing.
    ui_support::type_into(&mut h, "URL", "http://127.0.0.1:9/typed");
    assert_eq!(
        h.state().request.composer.draft.url,
        "http://127.0.0.1:9/typed"
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().request.composer.draft.url, original.url);
    // Ctrl+Y redoes too.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run();
    assert_eq!(
        h.state().request.composer.draft.url,
        "http://127.0.0.1:9/typed"
    );
}

#[test]
fn ctrl_z_in_a_policy_field_leaves_the_request_alone() {
    let mut h = ui_support::editable([1280.0, 800.0]);
    ui_support::type_into(&mut h, "URL", "http://127.0.0.1:9/typed");
    let typed = h.state().request.composer.draft.clone();
    ui_support::type_into(&mut h, "Max retries", "12");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(
        h.state().request.composer.draft,
        typed,
        "the request is untouched"
    );
}
