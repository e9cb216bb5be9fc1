//! "Export as…" and "Import from…" in the profile area: the export shows what the target
//! cannot express and saves through the file dialog; the import lists what did not map and
//! "Use this profile" makes it the current (unsaved) profile.

mod ui_support;

use egui_kittest::kittest::Queryable;
use retryscope::service::CoreLink;
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};

#[test]
fn export_as_and_import_from_round_trip_through_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let exported = dir.path().join("route.yaml");
    let (engine, _probe) = CoreLink::probe();
    let state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::new([
            Some(exported.clone()),
            Some(exported.clone()),
        ])),
        demo_base_url: Some(ui_support::DEMO.into()),
        library_dir: None,
        persisted: None,
    });
    let mut h = ui_support::harness_sized(state, [1400.0, 1000.0]);
    h.run();
    h.get_by_label("Export as…").click();
    h.run();
    assert!(
        h.query_by_label(
            "Not expressible in gRPC service config (JSON) (not in the text: this format has no comments):"
        )
        .is_some(),
        "gRPC JSON has no comments: the list is beside the text"
    );
    h.get_by_label("Format").click();
    h.run();
    h.get_by_label("Envoy retry_policy (YAML)").click();
    h.run();
    assert!(
        h.query_by_label(
            "Not expressible in Envoy retry_policy (YAML) (also in the text's comments):"
        )
        .is_some()
    );
    assert!(
        h.query_by_label("• methods: Envoy retries every method (POST included)")
            .is_some()
    );
    h.get_by_label("Save…").click();
    h.run();
    h.run();
    let text = std::fs::read_to_string(&exported).expect("Save… wrote the file");
    assert!(
        text.starts_with(
            "# retry settings of Retryscope profile \"ServiceNow example (exponential)\""
        ),
        "{text}"
    );
    assert!(text.contains("retry_policy:\n  retry_on:"), "{text}");

    h.get_by_label("Import from…").click();
    h.run();
    h.get_by_label("Format").click();
    h.run();
    h.get_by_label("Envoy retry_policy (YAML)").click();
    h.run();
    h.get_by_label("Choose file…").click();
    h.run();
    h.run();
    assert!(
        h.query_by_label(&format!("Profile \"route\" from {}", exported.display()))
            .is_some(),
        "the imported file is named"
    );
    assert!(
        h.query_by_label("• approximated: (methods) = every method")
            .is_some(),
        "what did not map exactly is listed"
    );
    h.get_by_label("Use this profile").click();
    h.run();
    let current = &h.state().profile.current;
    assert_eq!(current.profile.name, "route");
    assert_eq!(current.profile.max_retries, Some(3));
    assert!(current.is_dirty(), "an imported profile is unsaved");
}

#[test]
fn an_import_error_is_shown_in_the_modal_and_keeps_the_profile() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"methodConfig\": 5}").expect("write");
    let latin1 = dir.path().join("latin1.json");
    std::fs::write(&latin1, b"{\"methodConfig\": []}\n\"caf\xe9\"").expect("write");
    let (engine, _probe) = CoreLink::probe();
    let state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::new([
            Some(bad.clone()),
            Some(latin1.clone()),
        ])),
        demo_base_url: Some(ui_support::DEMO.into()),
        library_dir: None,
        persisted: None,
    });
    let mut h = ui_support::harness_sized(state, [1400.0, 1000.0]);
    h.run();
    let before = h.state().profile.current.profile.clone();
    h.get_by_label("Import from…").click();
    h.run();
    h.get_by_label("Choose file…").click();
    h.run();
    h.run();
    let message = format!(
        "{}:1:3: cannot import gRPC service config (JSON): methodConfig: expected a list, found 5",
        bad.display()
    );
    assert!(
        h.query_by_label(&message).is_some(),
        "the error says what and where"
    );
    assert!(h.query_by_label("Use this profile").is_none());
    // Text that is not UTF-8 is refused as the CLI refuses it, the place first.
    h.get_by_label("Choose file…").click();
    h.run();
    h.run();
    let message = format!(
        "{}:2:5: cannot import gRPC service config (JSON): the file is not UTF-8: byte 0xE9 is not valid here; save it as UTF-8",
        latin1.display()
    );
    assert!(h.query_by_label(&message).is_some(), "the place leads");
    h.get_by_label("Cancel").click();
    h.run();
    assert_eq!(h.state().profile.current.profile, before);
}
