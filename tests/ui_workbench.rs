//! The workbench driven through its accessible widgets with `egui_kittest` (no window, no GPU).
//!
//! Tests at the top use a [`CoreLink::probe`] to observe the commands the UI sends; the ones under
//! "real engine" run against the embedded demo server on 127.0.0.1 and need the merged engine,
//! demo server and timeline.

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use retryscope::model::{Backoff, RetryProfile, Strategy};
use retryscope::service::{
    Core, CoreCommand, CoreLink, CoreOptions, CoreProbe, LinkSetup, Threads,
};
use retryscope::store::SecretStore as _;
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::persistence::PersistedWorkbench;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

const DEMO: &str = "http://127.0.0.1:9";

fn setup(
    dialog_answers: Vec<Option<PathBuf>>,
    persisted: Option<PersistedWorkbench>,
) -> (WorkbenchState, CoreProbe) {
    let (engine, probe) = CoreLink::probe();
    let state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::new(dialog_answers)),
        demo_base_url: Some(DEMO.into()),
        library_dir: None,
        persisted,
    });
    (state, probe)
}

/// Runs frames until no profile file is being read or written (their replies arrive from
/// worker threads); fails after 10 s.
fn settle_files(h: &mut Harness<'static, WorkbenchState>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        h.run();
        if !h.state().is_reading_a_file() && !h.state().is_saving_a_file() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "a profile file's reply never came"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn harness(state: WorkbenchState) -> Harness<'static, WorkbenchState> {
    // Wait explanations use `→` and `×`, which egui's bundled font lacks: add a system font,
    // and accept tofu only on machines without one.
    let has_fallback = retryscope::ui::fonts::install_fallback_fonts(&egui::Context::default());
    let mut builder = Harness::builder()
        .with_size([1600.0, 1400.0])
        .with_context_setup(|ctx| {
            retryscope::ui::fonts::install_fallback_fonts(ctx);
        });
    if !has_fallback {
        builder = builder.allow_missing_glyphs();
    }
    builder.build_ui_state(
        |ui, s: &mut WorkbenchState| {
            let ctx = ui.ctx().clone();
            s.logic(&ctx);
            s.ui(ui);
        },
        state,
    )
}

fn starts(probe: &CoreProbe) -> Vec<(u64, retryscope::model::RequestSpec, RetryProfile)> {
    probe
        .drain_commands()
        .into_iter()
        .filter_map(|c| match c {
            CoreCommand::Start {
                run_id,
                spec,
                profile,
                ..
            } => Some((run_id, spec, profile)),
            _ => None,
        })
        .collect()
}

fn label_of(h: &Harness<'_, WorkbenchState>, contains: &str) -> String {
    let node = h.get_by_label_contains(contains).accesskit_node();
    node.label()
        .filter(|l| !l.is_empty())
        .or_else(|| node.value())
        .unwrap_or_default()
}

fn write_temp(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write temp file");
    path
}

#[test]
fn send_button_starts_a_run_against_the_demo_with_the_default_profile() {
    let (state, probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Send").click();
    h.run();
    let started = starts(&probe);
    assert_eq!(started.len(), 1, "one Start command");
    let (run_id, spec, profile) = &started[0];
    assert_eq!(*run_id, 1);
    assert_eq!(spec.method, "GET");
    // The stub tree has no built-ins: the fallback retries 503 (the real seed 001 table: 429 only).
    let status = retryscope::ui::request_draft::demo_failure_status(profile);
    let prefix = format!("{DEMO}/status/{status}?times=2&case=");
    let key = spec
        .url
        .strip_prefix(&prefix)
        .expect("the demo URL with a case");
    assert_eq!(key.len(), 36, "a UUID replaced the placeholder: {key}");
    assert!(
        profile.retry_on.status.contains(status),
        "the default profile retries the demo failure"
    );
    assert_eq!(profile.name, "ServiceNow example (exponential)");
    assert_eq!(profile.backoff.strategy, Strategy::Exponential);
}

/// The redirect option is in the composer with its label, and what Send sends carries it.
#[test]
fn send_secret_headers_to_other_origins_reaches_the_request_sent() {
    let (state, probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Timeouts and connection").click();
    h.run();
    h.get_by_label("Send").click();
    h.run();
    assert!(!starts(&probe)[0].1.location_trusted, "off by default");
    h.get_by_label("Send secret headers to other origins")
        .click();
    h.run();
    h.get_by_label("Send").click();
    h.run();
    assert!(starts(&probe)[0].1.location_trusted);
}

#[test]
fn ctrl_enter_sends_and_every_send_gets_a_fresh_demo_key() {
    let (state, probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Enter);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Enter);
    h.run();
    let started = starts(&probe);
    assert_eq!(started.len(), 2);
    assert_eq!(started[1].0, 2, "second run id");
    let key = |i: usize| started[i].1.url.clone();
    assert_ne!(key(0), key(1));
}

#[test]
fn url_is_validated_as_you_type_and_blocks_send() {
    let (state, probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    let url = h.get_by_label("URL");
    url.focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("URL").type_text("ftp://example.com/x");
    h.run();
    assert_eq!(h.state().request.composer.draft.url, "ftp://example.com/x");
    assert!(
        h.query_by_label_contains("scheme `ftp` is not supported")
            .is_some()
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Enter);
    h.run();
    assert!(starts(&probe).is_empty(), "an invalid URL is not sent");
    let status = label_of(&h, "cannot send");
    assert!(status.contains("is not supported"), "{status}");
}

#[test]
fn secret_header_values_are_masked_until_shown_and_not_persisted() {
    let (mut state, _probe) = setup(vec![], None);
    state
        .request
        .composer
        .draft
        .headers
        .push(retryscope::model::KeyValue::new(
            "Authorization",
            "Bearer s3cret",
        ));
    let mut h = harness(state);
    h.run();
    let masked = h.get_by_label("header 2 value").value().unwrap_or_default();
    assert!(!masked.contains("s3cret"), "masked: {masked}");
    assert!(!masked.is_empty());
    h.get_by_label("header 2 show").click();
    h.run();
    assert_eq!(
        h.get_by_label("header 2 value").value().as_deref(),
        Some("Bearer s3cret")
    );
    let stored = h.state().to_persisted();
    let stored_headers = stored.request.expect("request stored").headers;
    assert_eq!(stored_headers[1].value, "", "secret blanked");
    assert_eq!(stored_headers[0].value, "application/json");
    h.get_by_label("Remember secrets").click();
    h.run();
    h.state_mut().remember_secrets_now();
    let kept = h
        .state()
        .to_persisted()
        .request
        .expect("request stored")
        .headers;
    assert_eq!(
        kept[1].value, "",
        "remembered secrets never go to the plain-text state"
    );
    // They go to the secret store (here the in-memory one; the app uses the OS keyring)
    // and come back into a new workbench.
    let secrets = std::sync::Arc::new(retryscope::store::MemorySecretStore::new());
    let opened = || retryscope::store::OpenedSecretStore {
        store: secrets.clone(),
        fallback_reason: None,
    };
    h.state_mut().attach_store(None, opened());
    h.state_mut().remember_secrets_now();
    assert_eq!(
        secrets
            .get("workbench/header/1/Authorization")
            .expect("get")
            .as_deref(),
        Some("Bearer s3cret")
    );
    let (mut restored, _probe) = setup(vec![], Some(h.state().to_persisted()));
    assert_eq!(restored.request.composer.draft.headers[1].value, "");
    restored.attach_store(None, opened());
    assert_eq!(
        restored.request.composer.draft.headers[1].value,
        "Bearer s3cret"
    );
}

#[test]
fn invalid_profile_file_shows_every_error_and_keeps_the_current_profile() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = write_temp(
        &dir,
        "bad.json",
        "{\n  \"format\": \"retryscope-profile/1\",\n  \"name\": \"Broken\",\n  \"backoff\": {\"strategy\": \"sometimes\"}\n}\n",
    );
    let (state, _probe) = setup(vec![Some(bad)], None);
    let mut h = harness(state);
    h.run();
    let before = h.state().profile.current.profile.clone();
    h.key_press_modifiers(Modifiers::COMMAND, Key::O);
    h.run();
    let failure = h
        .state()
        .load_failure()
        .cloned()
        .expect("load failure shown");
    assert!(!failure.issues.is_empty());
    assert!(h.query_by_label_contains("Cannot load profile").is_some());
    for line in failure.lines() {
        assert!(
            h.query_by_label(&line).is_some(),
            "issue line shown: {line}"
        );
    }
    assert!(
        failure.lines()[0].starts_with("4:"),
        "line:column of the bad strategy: {:?}",
        failure.lines()
    );
    assert_eq!(
        h.state().profile.current.profile,
        before,
        "current profile untouched"
    );
    h.get_by_label("Dismiss").click();
    h.run();
    assert!(h.state().load_failure().is_none());
}

#[test]
fn opening_a_valid_file_replaces_the_profile_after_confirming_unsaved_edits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut other = retryscope::ui::profile_library::fallback_default_profile();
    other.name = "Other API".into();
    other.backoff = Backoff::new(Strategy::Fixed);
    let good = write_temp(
        &dir,
        "other.json",
        &retryscope::profile::to_json_pretty(&other),
    );
    let (state, _probe) = setup(vec![Some(good.clone()), Some(good)], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    assert!(
        h.state().window_title().ends_with(" •"),
        "{}",
        h.state().window_title()
    );
    assert!(
        h.query_by_label_contains("(copy) •").is_some(),
        "unsaved marker in the toolbar"
    );

    h.get_by_label("Open…").click();
    h.run();
    assert!(h.state().is_confirm_open());
    h.get_by_label("Cancel").click();
    h.run();
    assert!(!h.state().is_confirm_open());
    assert!(h.state().profile.current.profile.name.ends_with("(copy)"));

    h.get_by_label("Open…").click();
    h.run();
    h.get_by_label("Discard changes").click();
    h.run();
    assert_eq!(h.state().profile.current.profile, other);
    assert!(!h.state().window_title().contains('•'));
}

#[test]
fn save_as_writes_the_file_and_clears_the_unsaved_marker() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("mine");
    let (state, _probe) = setup(vec![Some(target.clone())], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    settle_files(&mut h);
    let saved = target.with_extension("json");
    let loaded = retryscope::profile::load_file(&saved).expect("saved file loads");
    assert_eq!(loaded, h.state().profile.current.profile);
    assert!(!h.state().window_title().contains('•'));
    assert_eq!(h.state().profile.current.path(), Some(saved.as_path()));
}

#[test]
fn built_ins_are_read_only_until_duplicated() {
    let (state, _probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    assert!(h.query_by_label("built-in (read-only)").is_some());
    assert!(
        h.query_by_label_contains("attempts = retries + 1 = 4")
            .is_some()
    );
    h.get_by_label("Duplicate to edit").click();
    h.run();
    assert!(h.query_by_label("not saved yet").is_some());
}

#[test]
fn changing_base_delay_changes_the_preview_bounds() {
    let (state, _probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    let before = label_of(&h, "retry 1: wait");
    let runs_before = h.state().preview().computations();
    h.run();
    assert_eq!(
        h.state().preview().computations(),
        runs_before,
        "cached while unchanged"
    );
    h.state_mut().profile.current.profile.backoff.base_delay_ms = 4000;
    h.run();
    let after = label_of(&h, "retry 1: wait");
    assert_ne!(before, after, "preview follows base delay");
    let max_after = h.state().preview().stats()[0].wait.max;
    assert!(
        max_after > 4000.0,
        "retry 1 of exponential: up to b·1 + w = 5500 ms, got {max_after}"
    );
    assert_eq!(h.state().preview().computations(), runs_before + 1);
}

#[test]
fn retry_status_text_parses_codes_and_ranges_with_inline_errors() {
    let (state, _probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    h.get_by_label("Retry on status").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Retry on status").type_text("429, 5xx");
    h.run();
    assert!(
        h.query_by_label_contains("`5xx` is not a status code")
            .is_some()
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("Retry on status").type_text("429, 502-504");
    h.run();
    assert!(h.query_by_label_contains("is not a status code").is_none());
    assert_eq!(
        h.state()
            .profile
            .current
            .profile
            .retry_on
            .status
            .to_string(),
        "429, 502-504"
    );
}

#[test]
fn persisted_workspace_round_trips_through_ron() {
    let (mut state, _probe) = setup(vec![], None);
    state.request.composer.draft.method = "POST".into();
    let mut edited = state.profile.current.duplicate();
    edited.profile.max_retries = Some(7);
    state.profile.current = edited;
    let stored = state.to_persisted();
    assert!(
        stored
            .request
            .as_ref()
            .is_some_and(|r| r.url.starts_with("{{demo}}")),
        "demo URL stored without its port"
    );
    // eframe stores values as RON.
    let text = ron::ser::to_string(&stored).expect("serializes as RON");
    let back: PersistedWorkbench = ron::from_str(&text).expect("deserializes from RON");
    assert_eq!(back, stored);
    let (engine, _p) = CoreLink::probe();
    let restored = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::default()),
        demo_base_url: Some("http://127.0.0.1:7".into()),
        library_dir: None,
        persisted: Some(back),
    });
    assert_eq!(restored.request.composer.draft.method, "POST");
    let status =
        retryscope::ui::request_draft::demo_failure_status(&restored.profile.current.profile);
    assert_eq!(
        restored.request.composer.draft.url,
        format!("http://127.0.0.1:7/status/{status}?times=2&case={{{{uuid}}}}"),
        "the demo URL follows the new port"
    );
    assert_eq!(restored.profile.current.profile.max_retries, Some(7));
    assert!(restored.profile.current.is_dirty());
}

#[test]
fn library_profiles_are_listed_in_the_picker_and_load_when_chosen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut lib = retryscope::ui::profile_library::fallback_default_profile();
    lib.name = "Library API".into();
    let path = write_temp(
        &dir,
        "library-api.json",
        &retryscope::profile::to_json_pretty(&lib),
    );
    let (engine, _probe) = CoreLink::probe();
    let state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::default()),
        demo_base_url: Some(DEMO.into()),
        library_dir: Some(dir.path().to_path_buf()),
        persisted: None,
    });
    let mut h = harness(state);
    h.run();
    h.get_by_label("Profile").click();
    h.run();
    // Many built-ins come first: bring the entry into the popup's view before clicking.
    h.get_by_label("library: library-api.json").scroll_to_me();
    h.run();
    h.get_by_label("library: library-api.json").click();
    settle_files(&mut h);
    assert_eq!(h.state().profile.current.profile, lib);
    assert_eq!(h.state().profile.current.path(), Some(path.as_path()));
    assert!(h.query_by_label("file: library-api.json").is_some());
}

#[test]
fn at_1280_by_800_panels_keep_their_widths_and_the_table_fits_between_them() {
    use retryscope::testkit::EventScript;
    use retryscope::testkit::{response, retry};
    let (mut state, _probe) = setup(vec![], None);
    // The widest rows of both panels: a body file (path + Browse…) and delay headers.
    state.request.composer.draft.body.kind = retryscope::ui::request_draft::BodyKind::File;
    let mut profile = retryscope::ui::profile_library::fallback_default_profile();
    profile.backoff = Backoff::new(Strategy::ResponseHeader);
    state.profile.current.profile = profile;
    let started =
        chrono::DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("rfc3339");
    let script = EventScript::new(1, "GET", "http://127.0.0.1:9/status/503", started)
        .attempt(response(503, &[], "busy"), retry("503 is retryable"), 12.0)
        .wait(1000, 1003.0)
        .attempt(response(503, &[], "busy"), retry("503 is retryable"), 9.0)
        .schedule_wait(2000);
    let t0 = Instant::now();
    state.runs.add_run(1, "GET /status/503".into());
    for (event, ms) in script.timed() {
        state
            .runs
            .apply(event, t0 + Duration::from_secs_f64(ms / 1000.0));
    }
    state.set_clock(move || t0 + Duration::from_millis(1500));
    let mut h = Harness::builder()
        .with_size([1280.0, 800.0])
        .allow_missing_glyphs()
        .build_ui_state(
            |ui, s: &mut WorkbenchState| {
                let ctx = ui.ctx().clone();
                s.logic(&ctx);
                s.ui(ui);
            },
            state,
        );
    h.run();
    h.get_by_label("Body").click();
    for _ in 0..10 {
        h.step();
    }
    h.run();
    h.get_by_label("Browse…");
    h.get_by_label("delay header 1 unit");
    let layout = h.state().to_persisted().layout;
    assert!(
        (layout.composer_width - 300.0).abs() < 1.0,
        "request panel grew to {}",
        layout.composer_width
    );
    assert!(
        (layout.policy_width - 330.0).abs() < 1.0,
        "policy panel grew to {}",
        layout.policy_width
    );
    let policy_left = h.get_by_label("Retry policy").rect().left();
    for title in ["Wait\nplanned", "Wait\nmeasured", "Explanation"] {
        let rect = h.get_by_label(title).rect();
        assert!(
            rect.right() <= policy_left,
            "{title:?} at {rect:?} is behind the policy panel (left {policy_left})"
        );
    }
}

#[test]
fn browse_fills_the_body_file_path_from_the_picker() {
    let picked = PathBuf::from("/tmp/payload.bin");
    let (mut state, probe) = setup(vec![Some(picked.clone())], None);
    state.request.composer.draft.method = "POST".into();
    state.request.composer.draft.body.kind = retryscope::ui::request_draft::BodyKind::File;
    let mut h = harness(state);
    h.run();
    h.get_by_label("Body").click();
    h.run();
    h.get_by_label("Browse…").click();
    h.run();
    assert_eq!(
        h.state().request.composer.draft.body.file_path,
        picked.display().to_string()
    );
    h.get_by_label("Send").click();
    h.run();
    let started = starts(&probe);
    assert_eq!(
        started[0].1.body,
        retryscope::model::Body::File {
            path: picked.display().to_string(),
            content_type: None
        }
    );
}

#[test]
fn theme_switch_applies_and_persists() {
    let (state, _probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Dark").click();
    h.run();
    assert_eq!(
        h.ctx.options(|o| o.theme_preference),
        egui::ThemePreference::Dark
    );
    h.get_by_label("Light").click();
    h.run();
    assert_eq!(
        h.ctx.options(|o| o.theme_preference),
        egui::ThemePreference::Light
    );
    assert_eq!(
        h.state().to_persisted().theme,
        retryscope::ui::theme::ThemeChoice::Light
    );
}

#[derive(Debug)]
struct DroppedPath(PathBuf);

impl egui::DroppedFile for DroppedPath {
    fn path(&self) -> &std::path::Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn dropping_a_json_file_opens_it_and_other_files_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut other = retryscope::ui::profile_library::fallback_default_profile();
    other.name = "Dropped API".into();
    let good = write_temp(
        &dir,
        "dropped.json",
        &retryscope::profile::to_json_pretty(&other),
    );
    let txt = write_temp(&dir, "notes.txt", "hello");
    let (state, _probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.input_mut().dropped_files.push(Arc::new(DroppedPath(txt)));
    h.run();
    assert!(h.query_by_label_contains("not a .json file").is_some());
    assert_eq!(
        h.state().profile.current.profile.name,
        "ServiceNow example (exponential)"
    );
    h.input_mut()
        .dropped_files
        .push(Arc::new(DroppedPath(good.clone())));
    settle_files(&mut h);
    assert_eq!(h.state().profile.current.profile, other);
    assert_eq!(h.state().profile.current.path(), Some(good.as_path()));
}

#[test]
fn a_dropped_file_is_read_off_the_frame_and_a_failed_read_keeps_the_edited_profile() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gone = dir.path().join("gone.json");
    let (state, _probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    let edited = h.state().profile.current.clone();
    h.input_mut()
        .dropped_files
        .push(Arc::new(DroppedPath(gone.clone())));
    // The frame that takes the drop starts the read and says so where the name shows.
    h.step();
    assert!(h.state().is_reading_a_file());
    let picker = format!("{:?}", h.get_by_label("Profile").accesskit_node());
    assert!(picker.contains("reading gone.json …"), "{picker}");
    settle_files(&mut h);
    let failure = h
        .state()
        .load_failure()
        .cloned()
        .expect("load failure shown");
    assert!(
        failure.issues[0]
            .message
            .starts_with("cannot read the profile file: no such file"),
        "{:?}",
        failure.issues
    );
    assert!(!h.state().is_confirm_open(), "nothing to discard edits for");
    assert_eq!(
        h.state().profile.current,
        edited,
        "the edited profile stays"
    );
    assert!(h.state().window_title().ends_with(" •"), "still unsaved");
}

#[test]
fn idle_workbench_does_not_repaint_continuously() {
    let (state, _probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    let steps = h.run();
    assert!(steps <= 2, "idle frames settle at once, ran {steps}");
    // `run` only waits out immediate repaints; a `request_repaint_after` loop would still wake
    // the window every few ms. Follow the repaint delays over a stretch of idle time, as the
    // event loop would: an idle window asks for no frame at all.
    let mut frames = 0;
    let mut idle_ms = 0u128;
    while idle_ms < 60_000 {
        let delay = h
            .output()
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map_or(Duration::MAX, |v| v.repaint_delay);
        if delay == Duration::MAX {
            break;
        }
        idle_ms += delay.as_millis().max(1);
        frames += 1;
        h.step();
        assert!(
            frames < 100,
            "an idle window keeps scheduling frames ({delay:?} apart)"
        );
    }
    assert_eq!(
        frames, 0,
        "idle window scheduled {frames} frames in {idle_ms} ms"
    );
}

/// A workbench with the default profile duplicated and switched to `custom` with `script`.
fn editing_custom_script(script: &str) -> (Harness<'static, WorkbenchState>, CoreProbe) {
    let (state, probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    {
        let backoff = &mut h.state_mut().profile.current.profile.backoff;
        backoff.strategy = Strategy::Custom;
        backoff.script = Some(script.into());
    }
    h.run();
    (h, probe)
}

#[test]
fn custom_script_compile_errors_show_inline_with_line_and_column() {
    let (mut h, _probe) = editing_custom_script("fn get_delay(ctx) {\n    let x = ;\n}\n");
    assert!(h.query_by_label("Script").is_some(), "code editor shown");
    let error = label_of(&h, "line 2, column 13: ");
    assert!(
        !error.is_empty(),
        "compile error names line 2 under the editor"
    );
    assert!(
        h.query_by_label_contains("• backoff.script: script does not compile (script line 2")
            .is_some(),
        "and in the Problems list"
    );
    h.state_mut().profile.current.profile.backoff.script =
        Some("fn get_delay(ctx) { 100 * ctx.retry }\n".into());
    h.run();
    assert!(h.query_by_label("script compiles").is_some());
}

#[test]
fn send_refuses_a_profile_whose_script_fails_its_dry_run() {
    let (mut h, probe) = editing_custom_script("fn get_delay(ctx) { 0.0 / 0.0 }\n");
    h.get_by_label("Send").click();
    h.run();
    assert!(
        starts(&probe).is_empty(),
        "nothing is sent under a failing script"
    );
    let status = label_of(&h, "cannot send: the profile has a problem");
    assert!(status.contains("NaN"), "{status}");
}

// ---------------------------------------------------------------------------------------------
// Real engine + demo server on 127.0.0.1 (need the merged engine, demo and timeline).

struct Live {
    harness: Harness<'static, WorkbenchState>,
    _core: Core,
}

fn live(profile: Option<RetryProfile>) -> Live {
    let core = Core::new(CoreOptions {
        threads: Threads::Workers(2),
        demo: true,
    })
    .expect("runtime starts");
    let demo = core.demo_base_url().expect("demo server on loopback");
    let setup = LinkSetup {
        waker: Arc::new(|| {}),
        data_dir: None,
        record_runs: false,
        body_cap: 0,
        batches: None,
        secrets: None,
    };
    let mut state = WorkbenchState::new(WorkbenchSetup {
        link: CoreLink::start(&core, setup),
        dialogs: Box::new(ScriptedDialogs::default()),
        demo_base_url: Some(demo),
        library_dir: None,
        persisted: None,
    });
    if let Some(p) = profile {
        state.profile.current = retryscope::ui::profile_library::CurrentProfile::clean(
            retryscope::ui::profile_library::ProfileSource::Unsaved,
            p,
        );
    }
    let mut harness = harness(state);
    harness.run();
    Live {
        harness,
        _core: core,
    }
}

/// Steps the UI in real time until `done` holds or `timeout` passes.
fn wait_until(
    h: &mut Harness<'_, WorkbenchState>,
    timeout: Duration,
    done: impl Fn(&Harness<'_, WorkbenchState>) -> bool,
) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        h.step();
        if done(h) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    false
}

fn fixed(wait_ms: u64) -> RetryProfile {
    let mut p = retryscope::ui::profile_library::fallback_default_profile();
    p.name = format!("fixed {wait_ms} ms");
    p.backoff = Backoff::new(Strategy::Fixed);
    p.backoff.base_delay_ms = wait_ms;
    p
}

#[test]
fn live_default_request_succeeds_on_attempt_3() {
    let mut live = live(None);
    let h = &mut live.harness;
    h.get_by_label("Send").click();
    let ok = wait_until(h, Duration::from_secs(20), |h| {
        h.query_all_by_label_contains("ucceeded on attempt 3")
            .next()
            .is_some()
    });
    assert!(ok, "success banner within 20 s (two 503s then 200)");
    assert!(h.state().runs.active_runs().is_empty());
}

#[test]
fn live_escape_cancels_a_run_mid_wait() {
    let mut live = live(Some(fixed(10_000)));
    let h = &mut live.harness;
    h.get_by_label("Send").click();
    assert!(
        wait_until(h, Duration::from_secs(5), |h| !h
            .state()
            .runs
            .active_runs()
            .is_empty()),
        "run is active"
    );
    // Mid-wait for real: the engine has scheduled the 10 s wait after attempt 1.
    assert!(
        wait_until(h, Duration::from_secs(5), |h| {
            h.state().runs.active_runs().first().is_some_and(|id| {
                h.state()
                    .runs
                    .timeline(*id)
                    .is_some_and(|t| t.current_wait().is_some())
            })
        }),
        "the run reaches its wait"
    );
    let run_id = h.state().runs.active_runs()[0];
    let t = Instant::now();
    h.key_press(Key::Escape);
    let ended = wait_until(h, Duration::from_secs(3), |h| {
        h.state().runs.active_runs().is_empty()
    });
    let attempts = h.state().runs.timeline(run_id).map(|t| t.attempts().len());
    assert_eq!(attempts, Some(1), "nothing is sent after the cancel");
    assert!(
        ended,
        "cancel ends the run at once, not after the 10 s wait"
    );
    assert!(t.elapsed() < Duration::from_secs(3));
    assert!(
        h.query_all_by_label_contains("ancelled").next().is_some(),
        "Cancelled banner"
    );
}

#[test]
fn live_two_runs_overlap_and_both_finish() {
    let mut live = live(Some(fixed(400)));
    let h = &mut live.harness;
    h.get_by_label("Send").click();
    h.step();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Enter);
    assert!(
        wait_until(h, Duration::from_secs(5), |h| h
            .state()
            .runs
            .active_runs()
            .len()
            == 2),
        "both runs active at once"
    );
    assert!(
        wait_until(h, Duration::from_secs(15), |h| h
            .state()
            .runs
            .active_runs()
            .is_empty()),
        "both runs finish"
    );
    assert!(
        h.query_all_by_label_contains("ucceeded on attempt 3")
            .next()
            .is_some()
    );
}

#[test]
fn profile_problems_are_listed_and_block_save_and_send() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("broken");
    let (state, probe) = setup(vec![Some(target.clone())], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    assert!(
        h.query_by_label_contains("Problems (").is_none(),
        "valid at first"
    );
    // The editor accepts a max delay below the base delay; the panel must say so.
    h.state_mut().profile.current.profile.backoff.max_delay_ms = Some(500);
    h.run();
    assert!(h.query_by_label_contains("Problems (1)").is_some());
    assert!(
        h.query_by_label_contains(
            "backoff.max_delay_ms: max_delay_ms 500 is smaller than base_delay_ms"
        )
        .is_some()
    );
    // Save As refuses (no dialog is asked for, nothing is written) and says why.
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    h.run();
    assert!(!target.with_extension("json").exists(), "nothing saved");
    let status = h.state().status().cloned().expect("a status line");
    assert!(
        status.0
            && status
                .1
                .starts_with("cannot save: the profile has a problem"),
        "{status:?}"
    );
    // Send refuses too.
    h.get_by_label("Send").click();
    h.run();
    assert!(starts(&probe).is_empty(), "no run started");
    // Fixed: the list goes away and Save As writes the file.
    h.state_mut().profile.current.profile.backoff.max_delay_ms = Some(10_000);
    h.run();
    assert!(h.query_by_label_contains("Problems (").is_none());
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
    settle_files(&mut h);
    assert!(target.with_extension("json").exists(), "saved once valid");
}

#[test]
fn preview_lists_only_retries_the_deadline_lets_happen() {
    let (state, _probe) = setup(vec![], None);
    let mut h = harness(state);
    h.run();
    h.get_by_label("Duplicate to edit").click();
    h.run();
    // Exponential b = 1000, c = 10 000: wait 1 ≥ 0, but no run can wait past 1.5 s in total
    // by retry 10.
    h.state_mut().profile.current.profile.max_retries = Some(10);
    h.state_mut().profile.current.profile.deadline_ms = Some(1500);
    h.run();
    assert!(
        h.query_by_label_contains("not reached in any sampled run (the 1500 ms deadline")
            .is_some()
    );
    assert!(h.query_by_label_contains("retry 10: wait").is_none());
}
