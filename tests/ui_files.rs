//! Files without a system dialog, and the unsaved-changes prompt (egui_kittest, no window).
//!
//! The native dialog's absence is injected with `ScriptedDialogs::unavailable`; the in-app
//! picker then lists real temp folders on its worker thread, so tests step the harness until
//! the listing has arrived ([`settle`]).

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use retryscope::model::RetryProfile;
use retryscope::service::CoreLink;
use retryscope::ui::file_dialogs::ScriptedDialogs;
use retryscope::ui::profile_library::fallback_default_profile;
use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const NO_PORTAL: &str = "no system file dialog (no D-Bus session bus for a portal, no zenity)";

fn workbench(dialogs: ScriptedDialogs, library: &Path) -> Harness<'static, WorkbenchState> {
    let (engine, _probe) = CoreLink::probe();
    let state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(dialogs),
        demo_base_url: Some("http://127.0.0.1:9".into()),
        library_dir: Some(library.to_path_buf()),
        persisted: None,
    });
    let mut h = Harness::builder()
        .with_size([1280.0, 800.0])
        // Modals fade in over a few frames.
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
    h
}

fn profile_named(name: &str) -> RetryProfile {
    let mut p = fallback_default_profile();
    p.name = name.into();
    p
}

fn write_profile(dir: &Path, file: &str, profile: &RetryProfile) -> PathBuf {
    let path = dir.join(file);
    std::fs::write(&path, retryscope::profile::to_json_pretty(profile)).expect("write profile");
    path
}

/// A folder with two profiles, a text file and a sub-folder holding a third profile.
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    write_profile(dir.path(), "alpha-profile.json", &profile_named("Alpha"));
    write_profile(dir.path(), "beta.json", &profile_named("Beta"));
    std::fs::write(dir.path().join("notes.txt"), "not a profile").expect("write");
    std::fs::create_dir(dir.path().join("nested")).expect("mkdir");
    write_profile(
        &dir.path().join("nested"),
        "inner.json",
        &profile_named("Inner"),
    );
    dir
}

/// Steps the harness until `done` holds: the picker's folder listings arrive from its worker
/// thread. Gives up after 10 s (a failure, not a wait for time-dependent logic).
fn settle(
    h: &mut Harness<'static, WorkbenchState>,
    what: &str,
    done: impl Fn(&Harness<'static, WorkbenchState>) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        h.run();
        if done(h) {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// No profile file is being read or written (their replies arrive from worker threads).
fn files_done(h: &Harness<'static, WorkbenchState>) -> bool {
    !h.state().is_reading_a_file() && !h.state().is_saving_a_file()
}

fn path_text(h: &Harness<'static, WorkbenchState>) -> String {
    h.get_by_label("File path")
        .accesskit_node()
        .value()
        .unwrap_or_default()
}

/// Replaces the path field's text by typing `text` key by key.
fn type_path(h: &mut Harness<'static, WorkbenchState>, text: &str) {
    h.get_by_label("File path").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    for c in text.chars() {
        h.get_by_label("File path").type_text(&c.to_string());
        h.run();
    }
}

fn slash(dir: &Path) -> String {
    format!("{}/", dir.display())
}

#[test]
fn the_in_app_picker_appears_once_the_native_dialog_is_unavailable() {
    let dir = folder();
    let mut h = workbench(ScriptedDialogs::unavailable(NO_PORTAL), dir.path());
    assert!(h.query_by_label("Open profile").is_none());
    let source = h.state().profile.current.source.clone();
    h.get_by_label("Open…").click();
    settle(&mut h, "the library folder's listing", |h| {
        h.query_by_label("alpha-profile.json").is_some()
    });
    h.get_by_label("Open profile");
    let status = h.state().status().cloned().expect("a status line");
    assert_eq!(
        status,
        (
            false,
            format!("{NO_PORTAL}: using the built-in file picker")
        )
    );
    // The picker starts in the library folder and lists profiles and folders only.
    assert_eq!(path_text(&h), slash(dir.path()));
    h.get_by_label("nested/");
    h.get_by_label("beta.json");
    assert!(h.query_by_label("notes.txt").is_none(), ".json filter");

    h.get_by_label("Cancel").click();
    h.run();
    assert!(h.query_by_label("Open profile").is_none(), "closed");
    assert_eq!(h.state().profile.current.source, source, "nothing opened");

    // Said once: the next Open… goes straight to the picker without a new notice.
    h.state_mut().set_status(false, "something else".into());
    h.get_by_label("Open…").click();
    settle(&mut h, "the picker again", |h| {
        h.query_by_label("Open profile").is_some()
    });
    assert_eq!(
        h.state().status().cloned(),
        Some((false, "something else".into()))
    );
}

#[test]
fn typing_a_path_with_tab_completion_opens_the_file() {
    let dir = folder();
    let mut h = workbench(ScriptedDialogs::unavailable(NO_PORTAL), dir.path());
    h.get_by_label("Open…").click();
    settle(&mut h, "the picker", |h| {
        h.query_by_label("alpha-profile.json").is_some()
    });

    let base = slash(dir.path());
    type_path(&mut h, &format!("{base}ne"));
    assert_eq!(path_text(&h), format!("{base}ne"), "typed key by key");
    h.key_press(Key::Tab);
    settle(&mut h, "completion of the folder", |h| {
        path_text(h) == format!("{base}nested/")
    });
    // Focus stayed in the field: typing goes on where it was.
    h.get_by_label("File path").type_text("in");
    h.run();
    h.key_press(Key::Tab);
    settle(&mut h, "completion in the sub-folder", |h| {
        path_text(h) == format!("{base}nested/inner.json")
    });
    h.key_press(Key::Enter);
    settle(&mut h, "the profile to load", |h| {
        h.state().profile.current.profile.name == "Inner"
    });
    assert_eq!(
        h.state().profile.current.path(),
        Some(dir.path().join("nested").join("inner.json").as_path())
    );
    assert!(h.query_by_label("Open profile").is_none(), "picker closed");
}

#[test]
fn tab_completes_a_common_start_and_a_missing_file_is_refused() {
    let dir = folder();
    let mut h = workbench(ScriptedDialogs::unavailable(NO_PORTAL), dir.path());
    h.get_by_label("Open…").click();
    settle(&mut h, "the picker", |h| {
        h.query_by_label("alpha-profile.json").is_some()
    });
    let base = slash(dir.path());
    type_path(&mut h, &format!("{base}a"));
    // A fast typist: the last letter and Tab in one frame complete what includes the letter.
    h.input_mut().events.push(egui::Event::Text("l".into()));
    for pressed in [true, false] {
        h.input_mut().events.push(egui::Event::Key {
            key: Key::Tab,
            physical_key: None,
            pressed,
            repeat: false,
            modifiers: Modifiers::NONE,
        });
    }
    h.step();
    h.run();
    assert_eq!(path_text(&h), format!("{base}alpha-profile.json"));
    // Only matching entries are listed while typing.
    assert!(h.query_by_label("beta.json").is_none());

    type_path(&mut h, &format!("{base}gamma.json"));
    h.get_by_label("Open file").click();
    h.run();
    h.get_by_label(&format!("no such file: {base}gamma.json"));
    assert!(h.query_by_label("Open profile").is_some(), "still open");
}

#[test]
fn choosing_a_file_in_the_list_opens_it_and_it_becomes_recent() {
    let dir = folder();
    let mut h = workbench(ScriptedDialogs::unavailable(NO_PORTAL), dir.path());
    h.get_by_label("Open…").click();
    settle(&mut h, "the picker", |h| {
        h.query_by_label("beta.json").is_some()
    });
    h.get_by_label("beta.json").click();
    h.run();
    assert_eq!(path_text(&h), format!("{}beta.json", slash(dir.path())));
    h.get_by_label("Open file").click();
    // The chosen file is read on a `picked-file` thread, not in the frame.
    settle(&mut h, "the profile to load", |h| {
        !h.state().is_reading_a_file()
    });
    assert_eq!(h.state().profile.current.profile, profile_named("Beta"));

    // Up from the library folder, then the recent list brings it back.
    h.get_by_label("Open…").click();
    settle(&mut h, "the picker", |h| {
        h.query_by_label("beta.json").is_some()
    });
    h.get_by_label("Up").click();
    let parent = dir
        .path()
        .parent()
        .expect("temp dir has a parent")
        .to_path_buf();
    settle(&mut h, "the parent folder", |h| {
        path_text(h) == slash(&parent)
    });
    let recent = dir.path().join("beta.json").display().to_string();
    h.get_by_label(&recent).click();
    h.run();
    assert_eq!(path_text(&h), recent);
}

#[test]
fn save_as_through_the_picker_writes_the_typed_file() {
    let dir = folder();
    let mut h = workbench(ScriptedDialogs::unavailable(NO_PORTAL), dir.path());
    h.get_by_label("Duplicate to edit").click();
    h.run();
    h.get_by_label("Save As…").click();
    settle(&mut h, "the save picker", |h| {
        h.query_by_label("Save profile as").is_some()
    });
    let base = slash(dir.path());
    assert_eq!(
        path_text(&h),
        format!("{base}servicenow-example-exponential-copy.json"),
        "starts with the suggested name in the library folder"
    );
    type_path(&mut h, &format!("{base}nested/mine"));
    h.get_by_label("Save file").click();
    settle(&mut h, "the file to be written", |h| {
        !h.state().window_title().contains('•')
    });
    let saved = dir.path().join("nested").join("mine.json");
    let loaded = retryscope::profile::load_file(&saved).expect("saved file loads");
    assert_eq!(loaded, h.state().profile.current.profile);
}

/// A workbench with `a.json` open and edited (its description), and Open… answering `b.json`.
fn edited_with_prompt_open() -> (tempfile::TempDir, Harness<'static, WorkbenchState>, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write_profile(dir.path(), "a.json", &profile_named("File A"));
    let b = write_profile(dir.path(), "b.json", &profile_named("File B"));
    let mut h = workbench(ScriptedDialogs::new([Some(a.clone()), Some(b)]), dir.path());
    h.get_by_label("Open…").click();
    settle(&mut h, "a.json", files_done);
    assert_eq!(h.state().profile.current.profile.name, "File A");
    h.state_mut().profile.current.profile.description = "edited".into();
    h.run();
    h.get_by_label("Open…").click();
    settle(&mut h, "b.json", files_done);
    assert!(h.state().is_confirm_open());
    h.get_by_label("Save changes");
    h.get_by_label("Discard changes");
    (dir, h, a)
}

#[test]
fn save_in_the_unsaved_prompt_writes_the_file_and_switches() {
    let (_dir, mut h, a) = edited_with_prompt_open();
    h.get_by_label("Save changes").click();
    settle(&mut h, "the save", files_done);
    assert!(!h.state().is_confirm_open());
    let written = retryscope::profile::load_file(&a).expect("a.json loads");
    assert_eq!(written.description, "edited", "the edits were saved");
    assert_eq!(
        h.state().profile.current.profile.name,
        "File B",
        "then switched"
    );
}

#[test]
fn cancel_in_the_unsaved_prompt_keeps_the_edits() {
    let (_dir, mut h, a) = edited_with_prompt_open();
    h.get_by_label("Cancel").click();
    h.run();
    assert!(!h.state().is_confirm_open());
    assert_eq!(h.state().profile.current.profile.name, "File A");
    assert_eq!(h.state().profile.current.profile.description, "edited");
    assert!(h.state().window_title().ends_with(" •"), "still unsaved");
    let on_disk = retryscope::profile::load_file(&a).expect("a.json loads");
    assert_ne!(on_disk.description, "edited", "nothing written");
}

#[test]
fn a_profile_with_problems_is_not_saved_from_the_prompt() {
    let (_dir, mut h, a) = edited_with_prompt_open();
    h.state_mut().profile.current.profile.backoff.max_delay_ms = Some(1);
    h.run();
    h.get_by_label("Save changes").click();
    h.run();
    assert!(h.state().is_confirm_open(), "the prompt stays");
    assert!(
        h.query_by_label_contains("cannot save: the profile has a problem")
            .is_some(),
        "and says why"
    );
    let on_disk = retryscope::profile::load_file(&a).expect("a.json loads");
    assert_ne!(on_disk.description, "edited", "nothing written");
    // Discard still works from there.
    h.get_by_label("Discard changes").click();
    h.run();
    assert_eq!(h.state().profile.current.profile.name, "File B");
}

#[test]
fn save_in_the_prompt_of_an_unsaved_profile_asks_where_then_switches() {
    let dir = folder();
    let mut h = workbench(ScriptedDialogs::unavailable(NO_PORTAL), dir.path());
    h.get_by_label("Duplicate to edit").click();
    h.run();
    h.get_by_label("Profile").click();
    h.run();
    h.get_by_label("library: beta.json").scroll_to_me();
    h.run();
    h.get_by_label("library: beta.json").click();
    settle(&mut h, "beta.json", files_done);
    assert!(h.state().is_confirm_open());
    h.get_by_label("Save changes").click();
    settle(&mut h, "the save picker", |h| {
        h.query_by_label("Save profile as").is_some()
    });
    assert!(
        !h.state().is_confirm_open(),
        "the picker replaces the prompt"
    );
    let base = slash(dir.path());
    type_path(&mut h, &format!("{base}kept"));
    h.get_by_label("Save file").click();
    settle(&mut h, "the switch", |h| {
        h.state().profile.current.profile.name == "Beta"
    });
    let kept = retryscope::profile::load_file(&dir.path().join("kept.json")).expect("saved");
    assert!(kept.name.ends_with("(copy)"), "{}", kept.name);
}

#[test]
fn a_save_lands_through_the_frame_and_an_edit_made_meanwhile_stays_unsaved() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write_profile(dir.path(), "a.json", &profile_named("File A"));
    let mut h = workbench(ScriptedDialogs::new([Some(a.clone())]), dir.path());
    h.get_by_label("Open…").click();
    settle(&mut h, "a.json", files_done);
    h.get_by_label("Description").focus();
    h.run();
    h.get_by_label("Description").type_text("1");
    h.run();
    let first = h.state().profile.current.profile.clone();
    assert!(h.state().window_title().ends_with(" •"), "edited");
    // Save (Ctrl+S's action) starts the write; only a later frame takes its reply.
    h.state_mut().save();
    assert!(h.state().is_saving_a_file());
    let saving = h.state().status().cloned();
    assert_eq!(saving, Some((false, format!("saving {} …", a.display()))));
    assert!(h.state().window_title().ends_with(" •"), "not saved yet");
    h.get_by_label("Description").type_text("2");
    h.run();
    settle(&mut h, "the save", files_done);
    let on_disk = retryscope::profile::load_file(&a).expect("a.json loads");
    assert_eq!(on_disk, first, "what was there at Ctrl+S is written");
    assert_eq!(h.state().profile.current.saved.as_ref(), Some(&first));
    assert!(
        h.state()
            .profile
            .current
            .profile
            .description
            .ends_with("12"),
        "{}",
        h.state().profile.current.profile.description
    );
    assert!(
        h.state().window_title().ends_with(" •"),
        "the edit made meanwhile stays unsaved"
    );
    assert!(
        h.query_by_label_contains(&format!("saved {}", a.display()))
            .is_some()
    );
}

#[test]
fn a_failed_save_keeps_the_profile_unsaved_and_the_prompt_switches_only_after_a_save() {
    let (dir, mut h, a) = edited_with_prompt_open();
    // The file's folder becomes a file: the atomic write cannot create its temp file there.
    let blocked = dir.path().join("blocked");
    std::fs::write(&blocked, "").expect("write");
    h.state_mut().profile.current.source =
        retryscope::ui::profile_library::ProfileSource::File(blocked.join("a.json"));
    h.get_by_label("Save changes").click();
    settle(&mut h, "the save", files_done);
    assert!(h.state().is_confirm_open(), "the prompt comes back");
    assert!(
        h.query_all_by_label_contains("cannot save the profile")
            .next()
            .is_some(),
        "and says why"
    );
    assert_eq!(
        h.state().profile.current.profile.name,
        "File A",
        "not switched"
    );
    assert_eq!(h.state().profile.current.profile.description, "edited");
    assert!(h.state().window_title().ends_with(" •"), "still unsaved");
    let on_disk = retryscope::profile::load_file(&a).expect("a.json loads");
    assert_ne!(on_disk.description, "edited", "nothing written");
}
