//! Layout as a person meets it: the field being typed into never moves (the preview grows
//! above it, a status line appears), and 800×600 shows every control whole.

mod ui_support;

use egui_kittest::kittest::Queryable;
use ui_support::{editable, harness_sized, type_into, workbench};

/// Typing `12` into Max retries grows the preview from 3 to 12 retries above the field: the
/// field stays where it was under the pointer after every key.
#[test]
fn max_retries_does_not_move_while_the_preview_grows_above_it() {
    let mut h = editable([1280.0, 800.0]);
    let before = h.get_by_label("Max retries").rect();
    type_into(&mut h, "Max retries", "12");
    assert_eq!(h.state().profile.current.profile.max_retries, Some(12));
    let after = h.get_by_label("Max retries").rect();
    assert!(
        (before.top() - after.top()).abs() < 0.5,
        "the field moved while typing: {before:?} → {after:?}"
    );
    assert!(
        h.query_by_label_contains("retry 12:").is_some(),
        "the grown preview is there, scrolled inside its held height"
    );
}

/// A status line (here: Send refused) appears at the bottom, in space kept for it: the URL
/// field does not move.
#[test]
fn a_status_line_does_not_push_the_composer_down() {
    let (state, _probe) = workbench();
    let mut h = harness_sized(state, [1280.0, 800.0]);
    h.run();
    let before = h.get_by_label("URL").rect();
    type_into(&mut h, "URL", "http://127.0.0.1:9/{{nope}}");
    h.get_by_label("Send").click();
    h.run();
    assert!(
        h.state()
            .status()
            .is_some_and(|(error, text)| *error && text.contains("{{nope}}")),
        "{:?}",
        h.state().status()
    );
    let after = h.get_by_label("URL").rect();
    assert!(
        (before.top() - after.top()).abs() < 0.5,
        "{before:?} → {after:?}"
    );
}

/// At 800×600 the toolbar is one row: every button of it is on the first line, whole.
#[test]
fn the_toolbar_is_one_row_at_800_wide() {
    let (state, _probe) = workbench();
    let mut h = harness_sized(state, [800.0, 600.0]);
    h.run();
    let open = h.get_by_label("Open…").rect();
    for label in ["Save As…", "Dark", "About", "Remember secrets"] {
        let rect = h.get_by_label(label).rect();
        assert!(
            (rect.center().y - open.center().y).abs() < 2.0 && rect.right() <= 800.0,
            "{label} at {rect:?}, Open… at {open:?}"
        );
    }
}

/// At 800×600 the environment editor's fields are wide enough to read what is typed (they were
/// as narrow as their column headings, ~40 points).
#[test]
fn environment_fields_are_readable_at_800x600() {
    let (state, _probe) = workbench();
    let mut h = harness_sized(state, [800.0, 600.0]);
    h.run();
    h.get_by_label("Edit environments…").click();
    h.run();
    h.get_by_label("Add variable").click();
    h.run();
    type_into(&mut h, "variable 1 name", "token");
    type_into(&mut h, "variable 1 value", "Bearer abc");
    for (label, least) in [("variable 1 name", 120.0), ("variable 1 value", 160.0)] {
        let width = h.get_by_label(label).rect().width();
        assert!(width >= least, "{label} is {width} points wide");
    }
}

/// Typing `Authorization` into a new header's name makes the row secret (a *show* toggle
/// appears): its value field and its remove button stay where they were, inside the panel.
#[test]
fn a_header_that_turns_secret_while_its_name_is_typed_does_not_move() {
    let (state, _probe) = workbench();
    let mut h = harness_sized(state, [1280.0, 800.0]);
    h.run();
    let row = h.state().request.composer.draft.headers.len() + 1;
    h.get_by_label("Add header").click();
    h.run();
    let value = h.get_by_label(&format!("header {row} value")).rect();
    let remove = h.get_by_label(&format!("header {row} remove")).rect();
    type_into(&mut h, &format!("header {row} name"), "Authorization");
    assert!(h.query_by_label(&format!("header {row} show")).is_some());
    assert_eq!(h.get_by_label(&format!("header {row} value")).rect(), value);
    let after = h.get_by_label(&format!("header {row} remove")).rect();
    assert_eq!(after, remove);
    let url = h.get_by_label("URL").rect();
    assert!(
        after.right() <= url.right() + 1.0,
        "remove {after:?} past the panel ({url:?})"
    );
}
