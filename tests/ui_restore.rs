//! Exact restore: what the user typed (key by key) into the composer and the policy, the tabs
//! they picked and the environment come back as left after the workspace goes through its file
//! and a new window starts from it (with the demo server on another port).

mod ui_support;

use egui_kittest::kittest::{NodeT as _, Queryable};
use retryscope::service::CoreLink;
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::persistence::PersistedWorkbench;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
use retryscope::ui::workspace_file;
use ui_support::{harness_sized, type_into, workbench};

#[test]
fn typed_request_policy_and_tabs_come_back_exactly_after_a_restart() {
    let (state, _probe) = workbench();
    let mut h = harness_sized(state, [1280.0, 800.0]);
    h.run();
    type_into(&mut h, "URL", "http://{{demo}}/status/503?times=2");
    let row = h.state().request.composer.draft.headers.len() + 1;
    h.get_by_label("Add header").click();
    h.run();
    type_into(&mut h, &format!("header {row} name"), "Authorization");
    type_into(&mut h, &format!("header {row} value"), "Bearer {{token}}");
    h.get_by_label("Duplicate to edit").click();
    h.run();
    type_into(&mut h, "Max retries", "12");
    type_into(&mut h, "every", "45s");
    type_into(&mut h, "for", "2h");
    h.get_by_label("Lab").click();
    h.run();
    let left = h.state().to_persisted();

    // Through the file, as the window writes and reads it.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = workspace_file::path_in(dir.path());
    workspace_file::WorkspaceSaver::spawn(Some(path.clone()), None).save_now(left.clone());
    let back: PersistedWorkbench = workspace_file::load(&path, None)
        .expect("readable")
        .expect("saved");
    assert_eq!(back, left);

    let (engine, _probe) = CoreLink::probe();
    let restored = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::default()),
        demo_base_url: Some("http://127.0.0.1:7".into()),
        library_dir: None,
        persisted: Some(back),
    });
    let mut h2 = harness_sized(restored, [1280.0, 800.0]);
    h2.run();
    assert!(h2.state().lab_shown(), "the Lab tab");
    assert_eq!(h2.state().to_persisted(), left, "field by field as left");
    h2.get_by_label("Timeline").click();
    h2.run();
    assert_eq!(
        h2.get_by_label("URL").value().as_deref(),
        Some("http://{{demo}}/status/503?times=2"),
        "a {{{{demo}}}} typed inside the URL is the user's text"
    );
    // (A secret row's field shows dots: read the request itself.)
    assert_eq!(
        h2.state().request.composer.draft.headers[row - 1].value,
        "Bearer {{token}}",
        "a value that only names a variable holds no secret and comes back"
    );
    assert_eq!(h2.state().profile.current.profile.max_retries, Some(12));
    // The Watch toggle's schedule as typed.
    assert_eq!(h2.get_by_label("every").value().as_deref(), Some("45s"));
    assert_eq!(h2.get_by_label("for").value().as_deref(), Some("2h"));
    assert!(
        h2.state().profile.current.is_dirty(),
        "the unsaved edit is kept"
    );
}

/// The `Start` commands the window sent to the core.
fn starts(probe: &retryscope::service::CoreProbe) -> Vec<retryscope::model::RequestSpec> {
    probe
        .drain_commands()
        .into_iter()
        .filter_map(|c| match c {
            retryscope::service::CoreCommand::Start { spec, .. } => Some(spec),
            _ => None,
        })
        .collect()
}

#[test]
fn a_secret_header_comes_back_marked_secret_and_send_refuses_it_empty() {
    let (state, probe) = workbench();
    let mut h = harness_sized(state, [1280.0, 800.0]);
    h.run();
    h.get_by_label("URL").focus();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run();
    h.event(egui::Event::Paste(
        "curl -H 'X-Api-Key: guiPASTEsecret42' http://127.0.0.1:9/echo".into(),
    ));
    h.run();
    h.get_by_label("Send").click();
    h.run();
    let sent = starts(&probe);
    assert_eq!(sent.len(), 1, "sent before the restart");
    assert!(
        sent[0]
            .headers
            .iter()
            .any(|r| r.name == "X-Api-Key" && r.value == "guiPASTEsecret42")
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let path = workspace_file::path_in(dir.path());
    workspace_file::WorkspaceSaver::spawn(Some(path.clone()), None)
        .save_now(h.state().to_persisted());
    let text = std::fs::read_to_string(&path).expect("written");
    assert!(!text.contains("guiPASTEsecret42"), "no secret in the file");
    let back = workspace_file::load(&path, None).expect("readable");

    let (engine, probe2) = CoreLink::probe();
    let mut h2 = harness_sized(ui_support::workbench_on(engine, back), [1280.0, 800.0]);
    h2.run();
    let headers = &h2.state().request.composer.draft.headers;
    let n = 1 + headers
        .iter()
        .position(|r| r.name == "X-Api-Key")
        .expect("the row comes back");
    assert_eq!(headers[n - 1].value, "", "secret values are not kept");
    assert_eq!(
        h2.get_by_label(&format!("header {n} enabled"))
            .accesskit_node()
            .toggled(),
        Some(egui::accesskit::Toggled::True)
    );
    assert_eq!(
        h2.get_by_label(&format!("header {n} secret"))
            .accesskit_node()
            .toggled(),
        Some(egui::accesskit::Toggled::True),
        "the blanked row comes back marked secret"
    );

    h2.get_by_label("Send").click();
    h2.run();
    let status = h2.state().status().map(|s| s.1.clone()).unwrap_or_default();
    assert!(
        status.starts_with("cannot send: header X-Api-Key is secret and has no value"),
        "{status}"
    );
    assert!(status.contains("untick the row"), "{status}");
    assert!(
        starts(&probe2).is_empty(),
        "no empty credential on the wire"
    );

    // Unticking the row sends the request without it.
    h2.get_by_label(&format!("header {n} enabled")).click();
    h2.run();
    h2.get_by_label("Send").click();
    h2.run();
    let sent = starts(&probe2);
    assert_eq!(sent.len(), 1, "{:?}", h2.state().status());
    assert!(
        !sent[0]
            .headers
            .iter()
            .any(|r| r.enabled && r.name == "X-Api-Key")
    );
}
