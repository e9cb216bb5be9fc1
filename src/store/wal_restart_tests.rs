//! The store actor's checkpoints keep the WAL small: with no other writer in the process a
//! passive checkpoint copies every frame, and the next commit starts the WAL over instead of
//! appending to it.

use super::history::HistoryStore;
use super::history_recorder::HistoryRecorder;
use super::history_records::HistoryWrite;
use crate::model::{OutcomeKind, RequestSpec, RetryProfile, Verdict};
use crate::testkit::{EventScript, response};

/// The writes of `count` single-attempt runs numbered from `first`.
fn runs(first: u64, count: u64) -> Vec<HistoryWrite> {
    let profile: RetryProfile = crate::profile::builtin("servicenow-exponential").unwrap();
    let start = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00+00:00").unwrap();
    let mut writes = Vec::new();
    for i in first..first + count {
        let url = format!("http://127.0.0.1:9/status/200?run={i}");
        let mut recorder =
            HistoryRecorder::new(&RequestSpec::get(url.clone()), &profile, Vec::new(), 1024);
        let script = EventScript::new(i, "GET", &url, start)
            .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 1.0)
            .finish(OutcomeKind::Succeeded, "succeeded on attempt 1", Some(200));
        writes.extend(script.events().iter().filter_map(|(e, _)| recorder.fold(e)));
    }
    writes
}

#[test]
fn after_a_checkpoint_the_next_commit_starts_the_wal_over() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open_in(dir.path()).unwrap();
    store.take_over_checkpoints().unwrap();
    store.apply_all(&runs(0, 40)).unwrap();
    let frames = store.checkpoint().unwrap();
    assert!(frames > 10, "the WAL held {frames} frames");
    store.apply_all(&runs(100, 1)).unwrap();
    let after = store.checkpoint().unwrap();
    assert!(
        after < 10,
        "one run's commit should be alone in a restarted WAL: {after} frames (was {frames})"
    );
}

#[test]
fn without_a_checkpoint_commits_append_to_the_wal() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open_in(dir.path()).unwrap();
    store.take_over_checkpoints().unwrap();
    store.apply_all(&runs(0, 40)).unwrap();
    let wal = dir.path().join("history.sqlite3-wal");
    let before = std::fs::metadata(&wal).unwrap().len();
    store.apply_all(&runs(100, 1)).unwrap();
    let after = std::fs::metadata(&wal).unwrap().len();
    assert!(after > before, "{after} bytes after, {before} before");
}
