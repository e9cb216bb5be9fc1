//! Exact restore: what the user typed (key by key) into the composer and the policy, the tabs
//! they picked and the environment come back as left after the workspace goes through its file
//! and a new window starts from it (with the demo server on another port).

mod ui_support;

use egui_kittest::kittest::Queryable;
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
