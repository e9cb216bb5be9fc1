//! Saving profiles atomically: round-trip, and a failed save leaves what was there intact.

use retryscope::profile::{load_file, save_atomic, to_json_pretty};
use std::path::Path;

fn good() -> retryscope::model::RetryProfile {
    load_file(Path::new("tests/fixtures/good.json")).expect("valid fixture")
}

#[test]
fn saves_pretty_json_that_loads_back_equal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("p.json");
    save_atomic(&path, &good()).expect("saves");
    let text = std::fs::read_to_string(&path).expect("written");
    assert_eq!(text, to_json_pretty(&good()));
    assert!(
        text.ends_with("}\n") && text.contains("\n  \"name\": "),
        "pretty: {text}"
    );
    assert_eq!(load_file(&path).expect("loads back"), good());
    // Overwrite with a change; only the target file remains in the folder.
    let mut changed = good();
    changed.max_retries = Some(9);
    save_atomic(&path, &changed).expect("overwrites");
    assert_eq!(load_file(&path).expect("loads").max_retries, Some(9));
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("list").count(),
        1,
        "no temp files"
    );
}

#[test]
fn saving_onto_a_directory_fails_and_keeps_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("taken");
    std::fs::create_dir(&target).expect("mkdir");
    std::fs::write(target.join("inside.txt"), "keep me").expect("write");
    let err = save_atomic(&target, &good()).expect_err("cannot replace a directory");
    assert!(err.to_string().contains("taken"), "{err}");
    assert_eq!(
        std::fs::read_to_string(target.join("inside.txt")).expect("still there"),
        "keep me"
    );
    // Only the directory itself: the temp file was cleaned up.
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 1);
}

#[test]
fn failed_save_keeps_the_old_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = dir.path().join("old.json");
    std::fs::write(&old, "old contents").expect("write");
    // The parent of the target is a file, so no temp file can be created next to it.
    let err = save_atomic(&old.join("child.json"), &good()).expect_err("parent is a file");
    assert!(err.to_string().contains("cannot save profile"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&old).expect("intact"),
        "old contents"
    );
}
