//! The conditions editor (DESIGN.md §8) in the workbench: adding `retry_on.response` and
//! `success_when` matchers, typing into them key by key, switching what they test.

mod ui_support;

use egui_kittest::kittest::Queryable;
use retryscope::model::{ResponseMatcher, StatusRange, StatusSet};
use serde_json::json;
use ui_support::type_into;

const SIZE: [f32; 2] = [1600.0, 2000.0];

fn editable() -> egui_kittest::Harness<'static, retryscope::ui::workbench::WorkbenchState> {
    ui_support::editable(SIZE)
}

fn click(
    h: &mut egui_kittest::Harness<'static, retryscope::ui::workbench::WorkbenchState>,
    label: &str,
) {
    h.get_by_label(label).scroll_to_me();
    h.run();
    h.get_by_label(label).click();
    h.run();
}

#[test]
fn a_success_condition_is_added_typed_and_switched() {
    let mut h = editable();
    assert!(h.state().profile.current.profile.success_when.is_empty());
    click(&mut h, "Add success condition");
    assert_eq!(
        h.state().profile.current.profile.success_when,
        vec![ResponseMatcher {
            json_pointer: Some("/state".into()),
            equals: Some(json!("done")),
            ..ResponseMatcher::default()
        }]
    );
    type_into(&mut h, "success condition 1 JSON pointer", "/job/state");
    // Typed as JSON, key by key: the quotes stay while typing and the value is the string.
    type_into(&mut h, "success condition 1 JSON value", "\"ready\"");
    let m = &h.state().profile.current.profile.success_when[0];
    assert_eq!(m.json_pointer.as_deref(), Some("/job/state"));
    assert_eq!(m.equals, Some(json!("ready")));
    type_into(&mut h, "success condition 1 JSON value", "3");
    assert_eq!(
        h.state().profile.current.profile.success_when[0].equals,
        Some(json!(3))
    );
    // Status typed with an invalid step on the way ("200-" is not a set yet).
    type_into(&mut h, "success condition 1 status", "200-204");
    assert_eq!(
        h.state().profile.current.profile.success_when[0].status,
        Some(StatusSet(vec![StatusRange::new(200, 204)]))
    );
    // Switch the comparison: the pointer must be missing.
    click(&mut h, "success condition 1 comparison");
    click(&mut h, "is missing");
    let m = &h.state().profile.current.profile.success_when[0];
    assert_eq!((m.equals.clone(), m.exists), (None, Some(false)));
    click(&mut h, "success condition 1 remove");
    assert!(h.state().profile.current.profile.success_when.is_empty());
}

#[test]
fn a_retry_condition_on_the_body_and_a_header_regex() {
    let mut h = editable();
    click(&mut h, "Add retry condition");
    type_into(&mut h, "retry condition 1 body contains", "quota exceeded");
    assert_eq!(
        h.state().profile.current.profile.retry_on.response[0]
            .body_contains
            .as_deref(),
        Some("quota exceeded")
    );
    // Emptying the text removes the key.
    type_into(&mut h, "retry condition 1 body contains", "");
    h.key_press(egui::Key::Backspace);
    h.run();
    assert_eq!(
        h.state().profile.current.profile.retry_on.response[0].body_contains,
        None
    );
    type_into(&mut h, "retry condition 1 body matches", "(?i)rate.?limit");
    click(&mut h, "retry condition 1 test");
    click(&mut h, "a header");
    click(&mut h, "retry condition 1 comparison");
    click(&mut h, "matches regex");
    type_into(&mut h, "retry condition 1 header name", "X-Throttle");
    type_into(&mut h, "retry condition 1 header regex", "^yes");
    let m = &h.state().profile.current.profile.retry_on.response[0];
    assert_eq!(
        m,
        &ResponseMatcher {
            header: Some("X-Throttle".into()),
            matches: Some("^yes".into()),
            body_matches: Some("(?i)rate.?limit".into()),
            ..ResponseMatcher::default()
        }
    );
    // A regex that does not compile is listed as a problem at its path.
    type_into(&mut h, "retry condition 1 header regex", "(open");
    assert!(
        h.query_all_by_label_contains(
            "retry_on.response[0].matches: invalid regex: unclosed group"
        )
        .next()
        .is_some(),
        "the problems box names the bad regex at its path"
    );
}
