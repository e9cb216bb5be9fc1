//! The Requests section, the environment editor and the Auth section, driven through their
//! labelled widgets with `egui_kittest` (temp data folder, in-memory secret store, no keyring).

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable};
use retryscope::model::RequestSpec;
use retryscope::service::CoreCommand;
use retryscope::service::{CoreLink, CoreProbe};
use retryscope::store::{MemorySecretStore, OpenedSecretStore, SecretStore as _};
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
use std::path::Path;
use std::sync::Arc;

const DEMO: &str = "http://127.0.0.1:9";

fn setup(data: &Path) -> (WorkbenchState, CoreProbe, Arc<MemorySecretStore>) {
    let (engine, probe) = CoreLink::probe();
    let mut state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::new(vec![])),
        demo_base_url: Some(DEMO.into()),
        library_dir: None,
        persisted: None,
    });
    let secrets = Arc::new(MemorySecretStore::new());
    state.attach_store(
        Some(data),
        OpenedSecretStore {
            store: secrets.clone(),
            fallback_reason: Some("no Secret Service in this test".into()),
        },
    );
    (state, probe, secrets)
}

fn harness(state: WorkbenchState) -> Harness<'static, WorkbenchState> {
    Harness::builder()
        .with_size([1600.0, 1400.0])
        .allow_missing_glyphs()
        .build_ui_state(
            |ui, s: &mut WorkbenchState| {
                let ctx = ui.ctx().clone();
                s.logic(&ctx);
                s.ui(ui);
            },
            state,
        )
}

/// Types `text` key by key into the field labelled `label` (after focusing it).
fn type_into(h: &mut Harness<'_, WorkbenchState>, label: &str, text: &str) {
    h.get_by_label(label).focus();
    h.run();
    for c in text.chars() {
        h.get_by_label(label).type_text(&c.to_string());
        h.run();
    }
}

fn starts(probe: &CoreProbe) -> Vec<RequestSpec> {
    probe
        .drain_commands()
        .into_iter()
        .filter_map(|c| match c {
            CoreCommand::Start { spec, .. } => Some(spec),
            _ => None,
        })
        .collect()
}

fn status(h: &Harness<'_, WorkbenchState>) -> String {
    h.state().status().map(|s| s.1.clone()).unwrap_or_default()
}

fn files_text(dir: &Path) -> String {
    let mut out = String::new();
    for sub in ["requests", "environments"] {
        if let Ok(entries) = std::fs::read_dir(dir.join(sub)) {
            for e in entries {
                let path = e.expect("entry").path();
                out.push_str(&std::fs::read_to_string(&path).expect("read"));
            }
        }
    }
    out
}

#[test]
fn requests_are_saved_searched_renamed_duplicated_and_deleted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut state, _probe, _) = setup(dir.path());
    state
        .request
        .composer
        .draft
        .headers
        .push(retryscope::model::KeyValue::new(
            "Authorization",
            "Bearer s3cret-hdr",
        ));
    let mut h = harness(state);
    h.run();
    type_into(&mut h, "Request name", "Orders list");
    h.get_by_label("Save as new").click();
    h.run();
    assert!(
        status(&h).starts_with("saved \"Orders list\""),
        "{}",
        status(&h)
    );
    assert_eq!(h.state().request.requests.requests().len(), 1);
    let text = files_text(dir.path());
    assert!(
        text.contains("Orders list") && !text.contains("s3cret-hdr"),
        "{text}"
    );

    h.get_by_label("Duplicate").click();
    h.run();
    assert_eq!(h.state().request.requests.requests().len(), 2);
    assert!(h.query_by_label("GET Orders list (copy)").is_some());

    h.get_by_label("Rename").click();
    h.run();
    h.get_by_label("New name").focus();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run();
    for c in "Copy B".chars() {
        h.get_by_label("New name").type_text(&c.to_string());
        h.run();
    }
    h.get_by_label("Apply rename").click();
    h.run();
    assert!(status(&h).starts_with("renamed to"), "{}", status(&h));
    let names: Vec<String> = h
        .state()
        .request
        .requests
        .requests()
        .iter()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(names, ["Copy B", "Orders list"]);

    type_into(&mut h, "Search requests", "orders");
    assert!(h.query_by_label("GET Copy B").is_none(), "filtered out");
    assert!(h.query_by_label_contains("GET Orders list").is_some());

    // Delete asks first; Cancel keeps it.
    let selected = h.state().request.requests.current().map(str::to_owned);
    assert!(selected.is_some());
    h.get_by_label("Delete").click();
    h.run();
    h.get_by_label("Cancel delete").click();
    h.run();
    assert_eq!(h.state().request.requests.requests().len(), 2);
    h.get_by_label("Delete").click();
    h.run();
    h.get_by_label("Confirm delete").click();
    h.run();
    let left: Vec<String> = h
        .state()
        .request
        .requests
        .requests()
        .iter()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(left, ["Orders list"]);
}

#[test]
fn clicking_a_saved_request_loads_it_and_asks_before_dropping_edits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (state, _probe, _) = setup(dir.path());
    let mut h = harness(state);
    h.run();
    type_into(&mut h, "Request name", "first");
    h.get_by_label("Save as new").click();
    h.run();
    // Edit the URL: the composer now differs from the saved request.
    h.state_mut().request.composer.draft.url = "http://127.0.0.1:9/other".into();
    h.state_mut().request.composer.edits += 1;
    h.get_by_label("Save as new").click(); // saves "first" again as a second request
    h.run();
    h.state_mut().request.composer.draft.url = "http://127.0.0.1:9/unsaved".into();
    h.state_mut().request.composer.edits += 1;
    // Both are named "first"; click the one not loaded (the list is in the same order).
    let current = h.state().request.requests.current().map(str::to_owned);
    let index = h
        .state()
        .request
        .requests
        .requests()
        .iter()
        .position(|r| Some(&r.id) != current.as_ref())
        .expect("the other one");
    let first_id = h.state().request.requests.requests()[index].id.clone();
    let demo_url = h.state().request.requests.requests()[index]
        .request
        .url
        .replace("{{demo}}", DEMO);
    assert!(
        h.state().request.requests.requests()[index]
            .request
            .url
            .starts_with("{{demo}}/"),
        "the demo address is saved as {{{{demo}}}}"
    );
    let buttons = h.get_all_by_label("GET first").collect::<Vec<_>>();
    assert_eq!(buttons.len(), 2);
    buttons[index].click();
    h.run();
    assert!(h.query_by_label("Discard and load").is_some(), "asks first");
    h.get_by_label("Keep editing").click();
    h.run();
    assert_eq!(
        h.state().request.composer.draft.url,
        "http://127.0.0.1:9/unsaved"
    );
    h.get_all_by_label("GET first")
        .nth(index)
        .expect("entry")
        .click();
    h.run();
    h.get_by_label("Discard and load").click();
    h.run();
    assert_eq!(h.state().request.composer.draft.url, demo_url);
    assert_eq!(
        h.state().request.requests.current(),
        Some(first_id.as_str())
    );
}

#[test]
fn environment_variables_fill_the_request_and_secrets_stay_out_of_files_and_titles() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut state, probe, secrets) = setup(dir.path());
    state.request.composer.draft.url = "http://{{host}}/status/200?sig={{token}}".into();
    state
        .request
        .composer
        .draft
        .headers
        .push(retryscope::model::KeyValue::new("X-Sig", "{{token}}"));
    let mut h = harness(state);
    h.run();
    // Unknown variables: Send is refused and says which and where.
    h.get_by_label("Send").click();
    h.run();
    assert_eq!(
        status(&h),
        "cannot send: unknown variables {{host}}, {{token}} in URL"
    );
    assert!(starts(&probe).is_empty());

    h.get_by_label("Edit environments…").click();
    h.run();
    assert!(
        h.query_by_label_contains("No OS keyring").is_some(),
        "says secrets stay in memory"
    );
    h.get_by_label("Environment name").focus();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run();
    for c in "local".chars() {
        h.get_by_label("Environment name").type_text(&c.to_string());
        h.run();
    }
    h.get_by_label("Add variable").click();
    h.run();
    type_into(&mut h, "variable 1 name", "host");
    type_into(&mut h, "variable 1 value", "127.0.0.1:9");
    h.get_by_label("Add variable").click();
    h.run();
    type_into(&mut h, "variable 2 name", "token");
    h.get_by_label("variable 2 secret").click();
    h.run();
    type_into(&mut h, "variable 2 value", "tok-s3cret");
    let masked = h
        .get_by_label("variable 2 value")
        .value()
        .unwrap_or_default();
    assert!(!masked.contains("tok-s3cret"), "masked: {masked}");
    h.get_by_label("variable 2 show").click();
    h.run();
    assert_eq!(
        h.get_by_label("variable 2 value").value().as_deref(),
        Some("tok-s3cret")
    );
    h.get_by_label("Save environment").click();
    h.run();
    assert!(
        status(&h).starts_with("saved environment \"local\"; secrets kept in memory only"),
        "{}",
        status(&h)
    );
    assert_eq!(h.state().request.environments.selected(), Some("local"));
    let text = files_text(dir.path());
    assert!(
        text.contains("\"host\"") && !text.contains("tok-s3cret"),
        "{text}"
    );
    assert_eq!(
        secrets.get("env/local/token").expect("get").as_deref(),
        Some("tok-s3cret")
    );

    h.get_by_label("Send").click();
    h.run();
    let sent = starts(&probe);
    assert_eq!(sent.len(), 1, "{}", status(&h));
    assert_eq!(sent[0].url, "http://127.0.0.1:9/status/200?sig=tok-s3cret");
    let sig = sent[0]
        .headers
        .iter()
        .find(|r| r.name == "X-Sig")
        .expect("header");
    assert_eq!(sig.value, "tok-s3cret");
    assert!(sig.secret, "a header holding a secret variable is secret");
    assert!(
        h.query_by_label_contains("GET /status/200 · ").is_some(),
        "the run's tab shows the resolved path (its query, with the secret, is left out)"
    );
    assert!(h.query_by_label_contains("tok-s3cret").is_none());
}

#[test]
fn bearer_auth_adds_the_header_and_the_token_is_never_persisted_in_plain_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (state, probe, _) = setup(dir.path());
    let mut h = harness(state);
    h.run();
    h.get_by_label("Auth").click();
    h.run();
    h.get_by_label("Auth type").click();
    h.run();
    h.get_by_label("Bearer token").click();
    h.run();
    assert_eq!(
        h.state().request.composer.draft.auth.kind,
        retryscope::model::AuthKind::Bearer
    );
    type_into(&mut h, "Bearer token", "abc-s3cret");
    let masked = h.get_by_label("Bearer token").value().unwrap_or_default();
    assert!(!masked.contains("abc-s3cret"), "masked: {masked}");
    h.get_by_label("Send").click();
    h.run();
    let sent = starts(&probe);
    assert_eq!(sent.len(), 1, "{}", status(&h));
    let auth = sent[0]
        .headers
        .iter()
        .find(|r| r.name == "Authorization")
        .expect("auth header");
    assert_eq!(auth.value, "Bearer abc-s3cret");
    let persisted = h.state().to_persisted().request.expect("request");
    assert_eq!(persisted.auth.bearer_token, "");
    type_into(&mut h, "Request name", "with auth");
    h.get_by_label("Save as new").click();
    h.run();
    let text = files_text(dir.path());
    assert!(
        text.contains("\"bearer\"") && !text.contains("abc-s3cret"),
        "{text}"
    );
}

#[test]
fn a_secret_variable_lost_with_the_last_session_refuses_send_instead_of_sending_it_empty() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The last session saved `local` with a secret kept only in its (memory) secret store.
    let earlier = Arc::new(MemorySecretStore::new());
    let mut env = retryscope::model::Environment::new("local");
    env.variables = vec![retryscope::model::Variable::secret("token", "gone-now")];
    retryscope::store::EnvironmentStore::in_data_dir(dir.path(), earlier)
        .save(&env)
        .expect("saves");
    let (engine, probe) = CoreLink::probe();
    let mut state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::new(vec![])),
        demo_base_url: Some(DEMO.into()),
        library_dir: None,
        persisted: Some(retryscope::ui::persistence::PersistedWorkbench {
            environment: Some("local".into()),
            ..Default::default()
        }),
    });
    state.attach_store(
        Some(dir.path()),
        OpenedSecretStore {
            store: Arc::new(MemorySecretStore::new()),
            fallback_reason: Some("no Secret Service in this test".into()),
        },
    );
    state.request.composer.draft.url = "http://127.0.0.1:9/echo?t={{token}}".into();
    let mut h = harness(state);
    h.run();
    h.get_by_label("Send").click();
    h.run();
    assert!(
        status(&h).starts_with("cannot send: the secret variable {{token}} has no value"),
        "{}",
        status(&h)
    );
    assert!(starts(&probe).is_empty(), "no empty credential on the wire");
}

/// A keyring whose `set` waits until the test lets it go (a locked Secret Service prompting).
struct HeldKeyring {
    inner: MemorySecretStore,
    gate: std::sync::Mutex<bool>,
    opened: std::sync::Condvar,
}

impl retryscope::store::SecretStore for HeldKeyring {
    fn get(&self, key: &str) -> Result<Option<String>, retryscope::store::SecretStoreError> {
        self.inner.get(key)
    }
    fn set(&self, key: &str, value: &str) -> Result<(), retryscope::store::SecretStoreError> {
        let mut open = self.gate.lock().expect("gate");
        while !*open {
            open = self.opened.wait(open).expect("gate");
        }
        self.inner.set(key, value)
    }
    fn delete(&self, key: &str) -> Result<(), retryscope::store::SecretStoreError> {
        self.inner.delete(key)
    }
    fn is_persistent(&self) -> bool {
        true
    }
}

/// Saving an environment whose secret the keyring holds up never holds the frame: the window
/// says it is saving, Save waits for the answer, and the answer arrives once the keyring lets go.
#[test]
fn a_keyring_that_hangs_holds_the_store_worker_not_the_frame() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (engine, _probe) = CoreLink::probe();
    let mut state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::new(vec![])),
        demo_base_url: Some(DEMO.into()),
        library_dir: None,
        persisted: None,
    });
    state.analyse_in_background(Arc::new(|| {}));
    let keyring = Arc::new(HeldKeyring {
        inner: MemorySecretStore::new(),
        gate: std::sync::Mutex::new(false),
        opened: std::sync::Condvar::new(),
    });
    state.attach_store(
        Some(dir.path()),
        OpenedSecretStore {
            store: keyring.clone(),
            fallback_reason: None,
        },
    );
    let mut h = harness(state);
    h.run_ok();
    h.get_by_label("Edit environments…").click();
    h.run_ok();
    h.get_by_label("Add variable").click();
    h.run_ok();
    type_into(&mut h, "variable 1 name", "token");
    h.get_by_label("variable 1 secret").click();
    h.run_ok();
    type_into(&mut h, "variable 1 value", "tok-held-123");
    h.get_by_label("Save environment").click();
    h.run_ok();
    assert!(
        status(&h).starts_with("saving environment"),
        "{}",
        status(&h)
    );
    assert!(
        h.get_by_label("Save environment")
            .accesskit_node()
            .is_disabled(),
        "one write at a time"
    );
    *keyring.gate.lock().expect("gate") = true;
    keyring.opened.notify_all();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !status(&h).starts_with("saved environment") {
        assert!(std::time::Instant::now() < deadline, "{}", status(&h));
        std::thread::sleep(std::time::Duration::from_millis(5));
        h.run_ok();
    }
    assert!(
        !h.get_by_label("Save environment")
            .accesskit_node()
            .is_disabled()
    );
    assert_eq!(
        keyring
            .inner
            .get("env/new environment/token")
            .ok()
            .flatten()
            .as_deref(),
        Some("tok-held-123"),
        "{:?}",
        keyring.inner.keys()
    );
}
