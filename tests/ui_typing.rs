//! Typing into the workbench key by key, as a person does, while problems boxes and the preview
//! change above and below the field: every value comes out as typed and focus never moves.

mod ui_support;

use egui::Key;
use egui_kittest::kittest::Queryable;
use retryscope::model::Strategy;
use ui_support::{harness_sized, type_into, workbench};

const SIZE: [f32; 2] = [1600.0, 1400.0];

fn editable() -> egui_kittest::Harness<'static, retryscope::ui::workbench::WorkbenchState> {
    ui_support::editable(SIZE)
}

#[test]
fn max_retries_takes_multi_digit_values_while_the_preview_and_problems_change() {
    let mut h = editable();
    type_into(&mut h, "Max retries", "12");
    assert_eq!(h.state().profile.current.profile.max_retries, Some(12));
    assert!(
        h.query_by_label_contains("attempts = retries + 1 = 13")
            .is_some()
    );
    type_into(&mut h, "Max retries", "100000");
    assert_eq!(h.state().profile.current.profile.max_retries, Some(100_000));
    assert!(
        h.query_by_label_contains("Problems (").is_none(),
        "format 2 takes any count up to u32::MAX: 100000 is no problem"
    );
    // Past u32: the text stays, the value keeps the last number that fits, the field says why.
    type_into(&mut h, "Max retries", "999999999999");
    assert_eq!(
        h.state().profile.current.profile.max_retries,
        Some(999_999_999)
    );
    assert!(
        h.query_by_label_contains("`9999999999` is too large")
            .is_some()
            || h.query_by_label_contains("`999999999999` is too large")
                .is_some()
    );
    // Leaving the field keeps the text and its message (Send refuses) until it is fixed.
    h.get_by_label("Name").focus();
    h.run();
    assert!(h.query_by_label_contains("is too large").is_some());
    type_into(&mut h, "Max retries", "7");
    assert_eq!(h.state().profile.current.profile.max_retries, Some(7));
    assert!(h.query_by_label_contains("is too large").is_none());
}

#[test]
fn every_delay_field_takes_the_typed_number_even_when_a_problem_appears_after_one_digit() {
    let mut h = editable();
    for (label, read) in [
        (
            "Base delay",
            (|p| p.backoff.base_delay_ms) as fn(&retryscope::model::RetryProfile) -> u64,
        ),
        ("Max delay value", |p| p.backoff.max_delay_ms.unwrap_or(0)),
        ("Jitter window", |p| p.backoff.jitter_window_ms),
    ] {
        for typed in ["12", "100000", "999999999999"] {
            type_into(&mut h, label, typed);
            let want: u64 = typed.parse().expect("digits");
            assert_eq!(
                read(&h.state().profile.current.profile),
                want,
                "{label} after {typed}"
            );
        }
        // Back to something valid for the next field.
        type_into(&mut h, label, "1000");
    }
    // The max delay typed digit by digit: "9" is below the base delay (a problem appears after
    // the first key) and the value still ends as typed.
    type_into(&mut h, "Max delay value", "999999999999");
    assert_eq!(
        h.state().profile.current.profile.backoff.max_delay_ms,
        Some(999_999_999_999)
    );
}

#[test]
fn the_deadline_and_the_jitter_ratio_take_typed_values() {
    let mut h = editable();
    h.get_by_label("Deadline").click();
    h.run();
    type_into(&mut h, "Deadline value", "100000");
    assert_eq!(h.state().profile.current.profile.deadline_ms, Some(100_000));
    h.state_mut().profile.current.profile.backoff.strategy = Strategy::ExponentialProportional;
    h.run();
    type_into(&mut h, "Jitter ratio", "0.35");
    assert!((h.state().profile.current.profile.backoff.jitter_ratio - 0.35).abs() < 1e-12);
    type_into(&mut h, "Jitter ratio", "0.3x");
    assert!(
        (h.state().profile.current.profile.backoff.jitter_ratio - 0.3).abs() < 1e-12,
        "the last number typed stays"
    );
    assert!(
        h.query_by_label_contains("`0.3x` is not a number")
            .is_some()
    );
}

#[test]
fn a_twenty_line_script_is_typed_whole_while_compile_errors_come_and_go() {
    let mut h = editable();
    h.state_mut().profile.current.profile.backoff.strategy = Strategy::Custom;
    h.run();
    let script = "\
// twenty lines, typed key by key
fn get_delay(ctx) {
let n = ctx.retry;
let base = 100;
let cap = 5000;
let d = base * n;
if d > cap {
d = cap;
}
if n > 8 {
return ();
}
let extra = 0;
if ctx.status == 429 {
extra = 50;
}
let total = d + extra;
total
}
// end";
    assert_eq!(script.lines().count(), 20);
    type_into(&mut h, "Script", script);
    let typed = h
        .state()
        .profile
        .current
        .profile
        .backoff
        .script
        .clone()
        .unwrap_or_default();
    assert_eq!(typed, script);
    assert!(h.query_by_label_contains("script compiles").is_some());
    // Return goes to the script (a newline), not to the Strategy picker.
    h.key_press(Key::Enter);
    h.run();
    assert!(h.get_by_label("Script").is_focused());
    assert_eq!(
        h.state().profile.current.profile.backoff.strategy,
        Strategy::Custom
    );
    assert!(
        h.state()
            .profile
            .current
            .profile
            .backoff
            .script
            .as_deref()
            .is_some_and(|s| s.ends_with("// end\n"))
    );
}

#[test]
fn the_url_a_header_value_and_the_redirect_limit_are_typed_whole() {
    let (state, _probe) = workbench();
    let mut h = harness_sized(state, SIZE);
    h.run();
    type_into(&mut h, "URL", "http://127.0.0.1:9/items?page=12");
    assert_eq!(
        h.state().request.composer.draft.url,
        "http://127.0.0.1:9/items?page=12"
    );
    h.get_by_label("Timeouts and connection").click();
    h.run();
    type_into(&mut h, "Redirect limit", "12");
    assert_eq!(h.state().request.composer.draft.max_redirects, 12);
}

#[test]
fn text_that_is_not_a_number_stays_and_blocks_send_until_fixed() {
    let (state, probe) = workbench();
    let mut h = harness_sized(state, SIZE);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    type_into(&mut h, "Jitter window", "abc");
    // Focus moves on: the text and its message stay, the value is the old one.
    h.get_by_label("Name").focus();
    h.run();
    assert_eq!(
        h.state().profile.current.profile.backoff.jitter_window_ms,
        1500
    );
    assert!(
        h.query_by_label_contains("`abc` is not a whole number")
            .is_some()
    );
    h.get_by_label("Send").click();
    h.run();
    let status = h.state().status().cloned().unwrap_or_default();
    assert!(
        status.0
            && status
                .1
                .starts_with("cannot send: Jitter window: `abc` is not"),
        "{status:?}"
    );
    assert!(
        probe.drain_commands().is_empty(),
        "nothing sent while a field holds text that is not a number"
    );
    // Fixed: the message and the refusal go, Send works.
    type_into(&mut h, "Jitter window", "250");
    assert_eq!(
        h.state().profile.current.profile.backoff.jitter_window_ms,
        250
    );
    h.get_by_label("Send").click();
    h.run();
    assert_eq!(probe.drain_commands().len(), 1);
}

#[test]
fn url_secrets_read_masked_once_the_field_is_left_and_show_reveals_them() {
    let (state, _probe) = workbench();
    let mut h = harness_sized(state, SIZE);
    h.run();
    type_into(&mut h, "URL", "http://127.0.0.1:9/x?sig=SIG456&page=2");
    // While editing, the text is what was typed.
    assert_eq!(
        h.get_by_label("URL").value().as_deref(),
        Some("http://127.0.0.1:9/x?sig=SIG456&page=2")
    );
    h.get_by_label("Method token").focus();
    h.run();
    let shown = h.get_by_label("URL").value().unwrap_or_default();
    assert!(!shown.contains("SIG456"), "masked once left: {shown}");
    assert!(shown.contains("page=2"), "{shown}");
    assert_eq!(
        h.state().request.composer.draft.url,
        "http://127.0.0.1:9/x?sig=SIG456&page=2",
        "masking is display only"
    );
    h.get_by_label("Show").click();
    h.run();
    assert!(
        h.get_by_label("URL")
            .value()
            .is_some_and(|v| v.contains("SIG456"))
    );
}

#[test]
fn a_field_holding_text_that_is_not_a_number_blocks_send_from_a_hidden_tab() {
    let (state, probe) = workbench();
    // Narrow: request and policy are tabs, only one is drawn.
    let mut h = harness_sized(state, [800.0, 600.0]);
    h.run();
    h.get_by_label("Policy").click();
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    type_into(&mut h, "Jitter window", "abc");
    h.get_by_label("Request").click();
    h.run();
    assert!(
        h.query_by_label("Jitter window").is_none(),
        "policy tab hidden"
    );
    h.get_by_label("Send").click();
    h.run();
    let status = h.state().status().cloned().unwrap_or_default();
    assert!(
        status.0 && status.1.starts_with("cannot send: Jitter window"),
        "{status:?}"
    );
    assert!(probe.drain_commands().is_empty());
}

#[test]
fn the_trusted_ca_file_is_typed_whole_and_sent_with_the_request() {
    let (state, probe) = workbench();
    let mut h = harness_sized(state, SIZE);
    h.run();
    h.get_by_label("Timeouts and connection").click();
    h.run();
    type_into(&mut h, "Trusted CA file", "/etc/ssl/private-ca.pem");
    assert_eq!(
        h.state().request.composer.draft.ca_cert,
        "/etc/ssl/private-ca.pem"
    );
    h.get_by_label("Send").click();
    h.run();
    let sent: Vec<Option<String>> = probe
        .drain_commands()
        .into_iter()
        .filter_map(|c| match c {
            retryscope::service::CoreCommand::Start { spec, .. } => Some(spec.ca_cert),
            _ => None,
        })
        .collect();
    assert_eq!(sent, [Some("/etc/ssl/private-ca.pem".to_owned())]);
}

/// *Add header* gives the new row's name field the keyboard, so what the user types next is
/// its name (it was lost before: the row looked focused but was not).
#[test]
fn add_header_focuses_the_new_rows_name_and_typing_goes_there() {
    let (state, _probe) = ui_support::workbench();
    let mut h = ui_support::harness_sized(state, [1280.0, 800.0]);
    h.run();
    let before = h.state().request.composer.draft.headers.len();
    let label = format!("header {} name", before + 1);
    h.get_by_label("Add header").click();
    h.run();
    h.run();
    assert!(
        h.get_by_label(&label).is_focused(),
        "the new name field has the keyboard"
    );
    for c in "X-Trace".chars() {
        h.event(egui::Event::Text(c.to_string()));
        h.run();
    }
    assert_eq!(
        h.state().request.composer.draft.headers[before].name,
        "X-Trace"
    );
}
