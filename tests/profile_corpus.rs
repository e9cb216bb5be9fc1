//! A corpus of invalid profiles (tests/fixtures/invalid/*.json): wrong types, unknown and
//! missing fields, negative and huge numbers, deep nesting, non-UTF-8, byte-order marks, a script
//! that never ends. Each gives the messages pinned in its `.expected` file (one
//! `line:column: path: message` per problem), and loading leaves the file untouched.
//!
//! After a deliberate wording change: `RETRYSCOPE_BLESS=1 cargo test --test profile_corpus`
//! rewrites the `.expected` files; review the diff.

use retryscope::model::PROFILE_FORMAT;
use retryscope::profile::{MAX_LISTED_PROBLEMS, load_file, load_str};
use std::path::{Path, PathBuf};

fn corpus() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/fixtures/invalid")
        .expect("corpus folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_invalid_profile_gives_its_pinned_messages_with_positions() {
    let bless = std::env::var_os("RETRYSCOPE_BLESS").is_some();
    let files = corpus();
    assert!(files.len() >= 15, "corpus: {files:?}");
    let mut mismatches = Vec::new();
    for file in &files {
        let before = std::fs::read(file).expect("read");
        let modified = std::fs::metadata(file).and_then(|m| m.modified()).ok();
        let errors = load_file(file).expect_err("every corpus file is invalid");
        assert_eq!(
            std::fs::read(file).expect("read"),
            before,
            "{} changed",
            file.display()
        );
        assert_eq!(
            std::fs::metadata(file).and_then(|m| m.modified()).ok(),
            modified
        );
        for issue in &errors.issues {
            assert!(
                issue.line.is_some() && issue.column.is_some(),
                "{}: no position: {issue}",
                file.display()
            );
        }
        let got = format!("{errors}\n");
        let expected_file = file.with_extension("expected");
        if bless {
            std::fs::write(&expected_file, &got).expect("write");
            continue;
        }
        let want = std::fs::read_to_string(&expected_file).unwrap_or_default();
        if got != want {
            mismatches.push(format!(
                "{}:\n--- got\n{got}--- pinned\n{want}",
                file.display()
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// A 10 MB document: loaded whole when valid; when every entry is wrong, the first
/// [`MAX_LISTED_PROBLEMS`] are listed with positions and the rest counted. (Its speed is a
/// benchmark: `cargo bench --bench profile_load`, figures in BENCHMARKS.md.)
#[test]
fn ten_megabyte_profiles_load_or_list_their_first_problems() {
    let valid = big_profile(10 * 1024 * 1024, "503");
    assert!(valid.len() >= 10 * 1024 * 1024);
    let p = load_str(&valid).expect("a big valid profile loads");
    assert!(p.retry_on.status.contains(503));

    let invalid = big_profile(10 * 1024 * 1024, "\"5xx\"");
    let e = load_str(&invalid).expect_err("every entry is wrong");
    assert_eq!(
        e.issues.len(),
        MAX_LISTED_PROBLEMS + 1,
        "listed + the count"
    );
    assert_eq!(e.issues[0].path, "retry_on.status[0]");
    assert_eq!((e.issues[0].line, e.issues[0].column), (Some(4), Some(28)));
    let last = e.issues.last().expect("count");
    assert!(
        last.message.ends_with(&format!(
            "more problems are not listed; fix the {MAX_LISTED_PROBLEMS} above first"
        )),
        "{last}"
    );
}

/// A profile of at least `bytes` bytes: `retry_on.status` repeats `entry`.
pub fn big_profile(bytes: usize, entry: &str) -> String {
    let count = bytes / (entry.len() + 2) + 1;
    let entries = vec![entry; count].join(", ");
    format!(
        "{{\n  \"format\": \"{PROFILE_FORMAT}\",\n  \"name\": \"big\",\n  \"retry_on\": {{ \"status\": [{entries}] }},\n  \"backoff\": {{ \"strategy\": \"fixed\" }}\n}}\n"
    )
}

#[test]
fn the_corpus_covers_what_issue_13_lists() {
    let names: Vec<String> = corpus()
        .iter()
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_owned()))
        .collect();
    for needed in [
        "wrong_types",
        "unknown_and_missing",
        "negative_numbers",
        "huge_numbers",
        "deep_nesting",
        "not_utf8",
        "bom",
        "endless_script",
    ] {
        assert!(
            names.iter().any(|n| n == needed),
            "no {needed} in {names:?}"
        );
    }
    assert!(Path::new("tests/fixtures/invalid/bom.json").exists());
}
