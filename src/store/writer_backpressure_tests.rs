//! The history writer never holds the engine back: with its database locked by another
//! connection (a disk that fell behind), thousands of events are taken at once; the detail
//! past [`WRITER_QUEUE`] is dropped and said in the run's record, its start and end are kept.

use super::history::HistoryStore;
use super::history_recorder::RecorderSeed;
use super::history_writer::{HistoryWriter, WRITER_QUEUE};
use crate::model::{OutcomeKind, RequestSpec, Verdict};
use crate::testkit::{EventScript, response};
use std::time::{Duration, Instant};

#[test]
fn a_writer_whose_queue_is_full_does_not_block_the_caller_and_says_what_it_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let store = HistoryStore::open_in(dir.path()).unwrap();
    let path = store.path().to_owned();
    let writer = HistoryWriter::spawn(store).unwrap();
    // Another connection holds the write lock: the writer's first commit waits for it.
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();

    let spec = RequestSpec::get("http://127.0.0.1:1/");
    let profile = crate::profile::builtin("vbscript-module").unwrap();
    let seed = RecorderSeed::new(&spec, &profile, Vec::new(), 1024);
    let id = seed.id().to_owned();
    let start = chrono::DateTime::parse_from_rfc3339("2026-12-01T00:00:00+00:00").unwrap();
    let events = EventScript::new(1, "GET", &spec.url, start)
        .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 1.0)
        .finish(OutcomeKind::Succeeded, "succeeded on attempt 1", Some(200))
        .masked_events();
    let [started, attempt_started, attempt_finished, finished] = events.as_slice() else {
        panic!("{events:?}");
    };
    let began = Instant::now();
    let key = writer.record_run(seed).unwrap();
    writer.record_event(key, started.clone()).unwrap();
    // An attempt's start is an idempotent update: sent again and again, it is the detail a
    // long run of retries makes.
    for _ in 0..4 * WRITER_QUEUE {
        writer.record_event(key, attempt_started.clone()).unwrap();
    }
    writer.record_event(key, attempt_finished.clone()).unwrap();
    writer.record_event(key, finished.clone()).unwrap();
    let took = began.elapsed();
    // Blocking would last until the lock goes (below, after this check): seconds.
    assert!(took < Duration::from_secs(1), "the sends took {took:?}");

    holder.execute_batch("COMMIT").unwrap();
    writer.flush().unwrap();
    let run = HistoryStore::open_in(dir.path())
        .unwrap()
        .run(&id)
        .unwrap()
        .expect("the run's start is kept");
    assert_eq!(run.run.outcome, Some(OutcomeKind::Succeeded), "its end too");
    let message = run.run.outcome_message.unwrap();
    assert!(
        message.starts_with("succeeded on attempt 1 (history: ")
            && message.ends_with(" not recorded, the history writer fell behind)"),
        "{message}"
    );
    writer.close().unwrap();
}
