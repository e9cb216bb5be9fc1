//! The WAL starts over once the writer's catch-up checkpoint has copied the frames the
//! checkpoint thread left ([`HistoryStore::catch_up_checkpoint`]); without it, a WAL whose
//! checkpoints always leave a few frames only grows.

use super::history::{Checkpointer, HistoryStore};
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

/// A store whose WAL holds frames a checkpoint could not copy (a reader held an older
/// snapshot while it ran, as the writer's own commits do during the checkpoint thread's
/// fsyncs), the reader gone; returns the store, the checkpoint connection and the WAL's frames.
fn store_with_frames_left(dir: &std::path::Path) -> (HistoryStore, Checkpointer, i64) {
    let mut store = HistoryStore::open_in(dir).unwrap();
    store.take_over_checkpoints().unwrap();
    let checkpointer = Checkpointer::open(store.path()).unwrap();
    store.apply_all(&runs(0, 20)).unwrap();
    let reader = rusqlite::Connection::open(store.path()).unwrap();
    reader.execute_batch("BEGIN").unwrap();
    let _: i64 = reader
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    store.apply_all(&runs(100, 20)).unwrap();
    let frames = checkpointer.checkpoint().unwrap();
    reader.execute_batch("COMMIT").unwrap();
    (store, checkpointer, frames)
}

#[test]
fn after_the_catch_up_checkpoint_the_next_commit_starts_the_wal_over() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, checkpointer, frames) = store_with_frames_left(dir.path());
    assert!(frames > 10, "the WAL held {frames} frames");
    store.catch_up_checkpoint().unwrap();
    store.apply_all(&runs(200, 1)).unwrap();
    let after = checkpointer.checkpoint().unwrap();
    assert!(
        after < 10,
        "one run's commit should be alone in a restarted WAL: {after} frames (was {frames})"
    );
}

#[test]
fn without_it_the_next_commit_appends_to_the_frames_left() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, checkpointer, frames) = store_with_frames_left(dir.path());
    store.apply_all(&runs(200, 1)).unwrap();
    let after = checkpointer.checkpoint().unwrap();
    assert!(after > frames, "{after} frames after, {frames} before");
}
