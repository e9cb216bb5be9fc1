//! The history database in a temp folder: a recorded run round-trips, attempts are committed
//! as they finish, unfinished runs of a dead process become `interrupted`, bodies are capped,
//! secrets never reach the file, delete and prune remove runs.

use chrono::{DateTime, FixedOffset};
use retryscope::model::{
    AttemptOutcome, BodyPreview, ConnectionUse, KeyValue, OutcomeKind, RequestSpec,
    ResponseSummary, RetryProfile, RunEvent, RunOutcome, Strategy, Timings, Verdict,
    WaitExplanation,
};
use retryscope::store::{
    HISTORY_FILE, HistoryRecorder, HistoryStore, HistoryWriter, RunFilter, StoredRun,
};

fn at(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).expect("valid time")
}

fn profile() -> RetryProfile {
    serde_json::from_str(include_str!("fixtures/good.json")).expect("fixture profile")
}

fn request() -> RequestSpec {
    let mut spec = RequestSpec::get("http://user9:pw9secret@127.0.0.1:9/x?token=tok9secret&a=1");
    spec.headers
        .push(KeyValue::new("Authorization", "Bearer bearer9secret"));
    spec
}

fn response(status: u16, body: &str) -> AttemptOutcome {
    AttemptOutcome::Response(ResponseSummary {
        status,
        reason: String::new(),
        version: "HTTP/1.1".into(),
        headers: vec![
            ("set-cookie".into(), "cookie9secret".into()),
            ("content-type".into(), "text/plain".into()),
        ],
        body: BodyPreview {
            bytes: body.as_bytes().to_vec(),
            total_bytes: body.len() as u64,
            truncated: false,
        },
    })
}

/// A run of two attempts (503, wait 100 ms, 200), as the engine reports it.
fn events(finished: bool) -> Vec<RunEvent> {
    let url = "http://***:***@127.0.0.1:9/x?token=***&a=1".to_owned();
    let mut out = vec![
        RunEvent::RunStarted {
            run_id: 1,
            seed: 42,
            profile: "Good fixture".into(),
            method: "GET".into(),
            url: url.clone(),
            started_at: at("2026-12-01T10:00:00.000+01:00"),
            tls_unverified: false,
        },
        RunEvent::AttemptStarted {
            run_id: 1,
            attempt: 1,
            method: "GET".into(),
            url: url.clone(),
            started_at: at("2026-12-01T10:00:00.001+01:00"),
            offset_ms: 1.0,
        },
        RunEvent::AttemptFinished {
            run_id: 1,
            attempt: 1,
            outcome: response(503, &"x".repeat(100)),
            hops: Vec::new(),
            timings: Timings {
                resolve_ms: Some(0.25),
                connection: ConnectionUse::New,
                connect_start_ms: Some(0.5),
                connect_ms: Some(1.0),
                sent_ms: Some(1.75),
                headers_ms: Some(3.0),
                total_ms: 4.0,
                ..Timings::default()
            },
            verdict: Verdict::retry("503 is retryable"),
        },
        RunEvent::WaitScheduled {
            run_id: 1,
            retry: 1,
            planned_ms: 100,
            explanation: WaitExplanation {
                retry: 1,
                strategy: Strategy::Exponential,
                unjittered_ms: 100.0,
                draws: Vec::new(),
                capped: false,
                wait_ms: 100,
                text: "retry 1: exponential 100 ms".into(),
            },
            offset_ms: 5.0,
        },
        RunEvent::WaitFinished {
            run_id: 1,
            retry: 1,
            planned_ms: 100,
            actual_ms: 101.5,
            skipped: false,
        },
        RunEvent::AttemptStarted {
            run_id: 1,
            attempt: 2,
            method: "GET".into(),
            url,
            started_at: at("2026-12-01T10:00:00.107+01:00"),
            offset_ms: 107.0,
        },
        RunEvent::AttemptFinished {
            run_id: 1,
            attempt: 2,
            outcome: response(200, "ok bearer9secret"),
            hops: Vec::new(),
            timings: Timings {
                resolve_ms: None,
                connection: ConnectionUse::Reused,
                headers_ms: Some(2.0),
                total_ms: 3.0,
                ..Timings::default()
            },
            verdict: Verdict::SUCCESS,
        },
    ];
    if finished {
        out.push(RunEvent::RunFinished {
            run_id: 1,
            outcome: RunOutcome {
                kind: OutcomeKind::Succeeded,
                message: "succeeded on attempt 2".into(),
                last_status: Some(200),
            },
            attempts: 2,
            elapsed_ms: 110.0,
        });
    }
    out
}

/// The events `stored`'s fold gives back, as run 1's.
/// An attempt's phase columns: dns, connect and sent ends, first byte, reused.
type Phases = (
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<bool>,
);

fn replayed(stored: &StoredRun) -> Vec<RunEvent> {
    stored
        .fold
        .clone()
        .renumbered(1)
        .events()
        .into_iter()
        .map(retryscope::model::secrets::Masked::into_inner)
        .collect()
}

fn record(dir: &std::path::Path, finished: bool, body_cap: usize) -> String {
    let writer = HistoryWriter::spawn(HistoryStore::open_in(dir).expect("opens")).expect("spawns");
    let mut recorder = HistoryRecorder::new(&request(), &profile(), Vec::new(), body_cap);
    for e in events(finished) {
        if let Some(w) = recorder.fold(&e) {
            writer.send(w).expect("queued");
        }
    }
    writer.close().expect("all written");
    recorder.id().to_owned()
}

#[test]
fn a_recorded_run_round_trips_and_replays_as_its_events() {
    let dir = tempfile::tempdir().expect("tempdir");
    let id = record(dir.path(), true, 64 * 1024);
    assert_eq!(id.len(), 36);
    assert_eq!(&id[14..15], "7", "a UUID v7: {id}");
    let store = HistoryStore::open_in(dir.path()).expect("reopens");
    let stored = store.run(&id).expect("reads").expect("found");
    assert_eq!(stored.run.outcome, Some(OutcomeKind::Succeeded));
    assert_eq!(stored.run.attempts, 2);
    assert_eq!(stored.run.seed, 42);
    assert_eq!(stored.run.started_at, at("2026-12-01T10:00:00.000+01:00"));
    assert!(stored.run.ended_at.is_some());
    assert_eq!(stored.run.profile["name"], "Good fixture");
    assert_eq!(stored.fold.attempts.len(), 2);
    let wait = stored.fold.attempts[0]
        .wait
        .as_ref()
        .expect("wait after attempt 1");
    assert_eq!((wait.planned_ms, wait.actual_ms), (100, Some(101.5)));
    assert_eq!(wait.explanation.text, "retry 1: exponential 100 ms");
    // The phase columns (for SQL readers) hold each phase's end.
    let db = rusqlite::Connection::open(dir.path().join(HISTORY_FILE)).expect("opens");
    let phases: Vec<Phases> = db
        .prepare("SELECT dns_ms, connect_ms, sent_ms, first_byte_ms, reused FROM attempts ORDER BY number")
        .expect("prepares")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .expect("reads")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(
        phases[0],
        (Some(0.25), Some(1.5), Some(1.75), Some(3.0), Some(false)),
        "connect and sent columns hold the phase ends"
    );
    assert_eq!(
        (phases[1].1, phases[1].3, phases[1].4),
        (None, Some(2.0), Some(true))
    );
    assert_eq!(
        stored.fold.attempts[1]
            .result
            .as_ref()
            .map(|r| r.timings.connection),
        Some(ConnectionUse::Reused)
    );
    // The run's fold gives back the events it was recorded from (secrets masked).
    let replayed = replayed(&stored);
    let mut want = events(true);
    for e in &mut want {
        if let RunEvent::AttemptFinished {
            outcome: AttemptOutcome::Response(r),
            ..
        } = e
        {
            r.headers[0].1 = "***".into();
            if r.status == 200 {
                r.body.bytes = b"ok ***".to_vec();
            }
        }
    }
    assert_eq!(replayed, want);
    // A prefix of 8 characters finds it too, and so does the suffix the window shows.
    assert!(store.run(&id[..8]).expect("reads").is_some());
    assert!(store.run(&id[id.len() - 12..]).expect("reads").is_some());
}

#[test]
fn secrets_never_reach_the_database_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    record(dir.path(), true, 64 * 1024);
    // Files only: the `locks` folder holds the writer's lock file.
    for entry in std::fs::read_dir(dir.path()).expect("dir").flatten() {
        if !entry.path().is_file() {
            continue;
        }
        let bytes = std::fs::read(entry.path()).expect("readable");
        for secret in [
            "user9",
            "pw9secret",
            "tok9secret",
            "bearer9secret",
            "cookie9secret",
        ] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{secret} in {}",
                entry.path().display()
            );
        }
    }
}

#[test]
fn bodies_are_capped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let id = record(dir.path(), true, 10);
    let store = HistoryStore::open_in(dir.path()).expect("reopens");
    let stored = store.run(&id).expect("reads").expect("found");
    let AttemptOutcome::Response(r) = &stored.fold.attempts[0]
        .result
        .as_ref()
        .expect("answered")
        .outcome
    else {
        panic!("a response");
    };
    assert_eq!(r.body.bytes.len(), 10);
    assert!(r.body.truncated);
    assert_eq!(r.body.total_bytes, 100);
}

#[test]
fn an_unfinished_run_of_a_live_process_stays_running_with_its_attempts() {
    // (A process that is gone: tests/history_kill.rs kills one with SIGKILL.)
    let dir = tempfile::tempdir().expect("tempdir");
    let id = record(dir.path(), false, 64 * 1024);
    let store = HistoryStore::open_in(dir.path()).expect("reopens");
    let stored = store.run(&id).expect("reads").expect("found");
    assert_eq!(stored.run.outcome, None, "this process still runs");
    assert_eq!(stored.run.attempts, 2);
    assert_eq!(stored.fold.attempts.len(), 2);
    assert!(
        !replayed(&stored)
            .iter()
            .any(|e| matches!(e, RunEvent::RunFinished { .. }))
    );
}

#[test]
fn list_filters_delete_and_prune() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = record(dir.path(), true, 1024);
    let b = record(dir.path(), false, 1024);
    let mut store = HistoryStore::open_in(dir.path()).expect("reopens");
    assert!(dir.path().join(HISTORY_FILE).exists());
    let all = store.list(&RunFilter::default()).expect("lists");
    assert_eq!(all.len(), 2);
    let only = |outcome: OutcomeKind| RunFilter {
        outcome: Some(outcome.into()),
        ..RunFilter::default()
    };
    let ok = store.list(&only(OutcomeKind::Succeeded)).expect("lists");
    assert_eq!(
        ok.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        [a.as_str()]
    );
    let by_url = |text: &str| RunFilter {
        url_contains: Some(text.into()),
        ..RunFilter::default()
    };
    assert_eq!(store.list(&by_url("TOKEN=***")).expect("lists").len(), 2);
    assert_eq!(store.list(&by_url("nowhere")).expect("lists").len(), 0);
    let limited = RunFilter {
        limit: Some(1),
        ..RunFilter::default()
    };
    assert_eq!(store.list(&limited).expect("lists").len(), 1);

    let deleted = store.delete(std::slice::from_ref(&b)).expect("deletes");
    assert_eq!(deleted, std::slice::from_ref(&b));
    assert!(store.run(&b).expect("reads").is_none());
    assert_eq!(
        store
            .prune_before(at("2026-12-01T08:00:00+00:00"))
            .expect("prunes"),
        0
    );
    assert_eq!(
        store
            .prune_before(at("2026-12-01T09:00:01+00:00"))
            .expect("prunes"),
        1
    );
    assert!(store.list(&RunFilter::default()).expect("lists").is_empty());
}

#[test]
fn several_openers_of_a_new_database_all_succeed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().to_path_buf();
    let openers: Vec<_> = (0..4)
        .map(|_| {
            let p = path.clone();
            std::thread::spawn(move || HistoryStore::open_in(&p).map(|_| ()))
        })
        .collect();
    for o in openers {
        assert_eq!(o.join().expect("no panic"), Ok(()));
    }
}

#[test]
fn a_body_is_stored_once_and_commits_are_timed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let writer =
        HistoryWriter::spawn(HistoryStore::open_in(dir.path()).expect("opens")).expect("spawns");
    assert_eq!(
        writer.attempt_commit_latency(),
        None,
        "nothing committed yet"
    );
    let mut recorder = HistoryRecorder::new(&request(), &profile(), Vec::new(), 64 * 1024);
    for e in events(true) {
        if let Some(w) = recorder.fold(&e) {
            writer.send(w).expect("queued");
        }
    }
    writer.flush().expect("written");
    let latency = writer.attempt_commit_latency().expect("two attempts timed");
    assert_eq!(latency.count, 2);
    assert!(latency.p50_ms <= latency.p99_ms && latency.p99_ms <= latency.max_ms);
    writer.close().expect("closed");
    // Attempt 1's body is 100 × "x": in the body column, not again inside the outcome JSON.
    let marker = "x".repeat(100);
    let mut found = 0;
    // Files only: the `locks` folder holds the writer's lock file.
    for entry in std::fs::read_dir(dir.path()).expect("dir").flatten() {
        if !entry.path().is_file() {
            continue;
        }
        let bytes = std::fs::read(entry.path()).expect("readable");
        found += bytes
            .windows(marker.len())
            .filter(|w| *w == marker.as_bytes())
            .count();
    }
    assert_eq!(found, 1, "the body is stored once");
    let stored = HistoryStore::open_in(dir.path())
        .expect("reopens")
        .run(recorder.id())
        .expect("reads")
        .expect("found");
    let AttemptOutcome::Response(r) = &stored.fold.attempts[0]
        .result
        .as_ref()
        .expect("answered")
        .outcome
    else {
        panic!("a response");
    };
    assert_eq!(r.body.bytes, marker.as_bytes(), "read back from its column");
}

/// The stored run with its volatile parts (id, end time) blanked, for comparing two recordings.
fn stored_without_ids(dir: &std::path::Path, id: &str) -> retryscope::store::StoredRun {
    let mut stored = HistoryStore::open_in(dir)
        .expect("reopens")
        .run(id)
        .expect("reads")
        .expect("found");
    stored.run.id.clear();
    stored.run.ended_at = None;
    stored
}

#[test]
fn a_run_committed_in_one_group_is_stored_as_one_committed_write_by_write() {
    // Write by write: a flush after each, so every write is its own commit.
    let apart = tempfile::tempdir().expect("tempdir");
    let writer =
        HistoryWriter::spawn(HistoryStore::open_in(apart.path()).expect("opens")).expect("spawns");
    let mut recorder = HistoryRecorder::new(&request(), &profile(), Vec::new(), 64 * 1024);
    let mut writes = 0;
    for e in events(true) {
        if let Some(w) = recorder.fold(&e) {
            writer.send(w).expect("queued");
            writer.flush().expect("committed");
            writes += 1;
        }
    }
    writer.close().expect("all written");
    assert_eq!(
        writes, 8,
        "run, 2 attempt starts, 2 attempts, wait planned and finished, end"
    );
    // Together: the writer folds the events on its thread and merges the run's start, attempts
    // and end into one row insert in one transaction.
    let together = tempfile::tempdir().expect("tempdir");
    let writer = HistoryWriter::spawn(HistoryStore::open_in(together.path()).expect("opens"))
        .expect("spawns");
    let seed = retryscope::store::RecorderSeed::new(&request(), &profile(), Vec::new(), 64 * 1024);
    let id = seed.id().to_owned();
    let key = writer.record_run(seed).expect("queued");
    for e in events(true) {
        let masked = retryscope::model::secrets::mask_event(
            e,
            &retryscope::model::secrets::secret_values(&request()),
        );
        writer.record_event(key, masked).expect("queued");
    }
    writer.close().expect("all written");

    let one = stored_without_ids(apart.path(), recorder.id());
    let other = stored_without_ids(together.path(), &id);
    assert_eq!(one.run.outcome, Some(OutcomeKind::Succeeded));
    assert_eq!(one.fold.attempts.len(), 2);
    assert!(one.fold.attempts[0].wait.is_some());
    assert_eq!(one, other);
}

/// A budget change as the engine sends it.
fn budget_event(
    attempt: u32,
    kind: retryscope::model::BudgetChangeKind,
    before: f64,
    after: f64,
) -> RunEvent {
    RunEvent::BudgetChanged {
        run_id: 1,
        attempt,
        change: retryscope::model::BudgetChange {
            kind,
            class: Some(retryscope::model::OutcomeClass::Transient),
            amount: (before - after).abs(),
            before,
            after,
            capacity: 500.0,
            scope: "host http://127.0.0.1:9".into(),
            text: format!("retry budget {before} → {after} of 500"),
        },
    }
}

#[test]
fn budget_changes_are_stored_per_attempt_and_replayed_in_place() {
    use retryscope::model::BudgetChangeKind::{Charge, Refund};
    // The engine's order: a charge after attempt 1 (before its wait), a refund after attempt 2.
    let mut sent = events(true);
    let after_first = sent
        .iter()
        .position(|e| matches!(e, RunEvent::AttemptFinished { attempt: 1, .. }))
        .expect("attempt 1")
        + 1;
    sent.insert(after_first, budget_event(1, Charge, 500.0, 495.0));
    let after_second = sent
        .iter()
        .position(|e| matches!(e, RunEvent::AttemptFinished { attempt: 2, .. }))
        .expect("attempt 2")
        + 1;
    sent.insert(after_second, budget_event(2, Refund, 495.0, 500.0));

    let dir = tempfile::tempdir().expect("tempdir");
    let writer =
        HistoryWriter::spawn(HistoryStore::open_in(dir.path()).expect("opens")).expect("spawns");
    let mut recorder = HistoryRecorder::new(&request(), &profile(), Vec::new(), 64 * 1024);
    for e in &sent {
        if let Some(w) = recorder.fold(e) {
            writer.send(w).expect("queued");
        }
    }
    writer.close().expect("all written");
    let id = recorder.id().to_owned();

    let store = HistoryStore::open_in(dir.path()).expect("reopens");
    let stored = store.run(&id).expect("reads").expect("found");
    let tokens: Vec<Vec<(f64, f64)>> = stored
        .fold
        .attempts
        .iter()
        .map(|a| a.budget.iter().map(|c| (c.before, c.after)).collect())
        .collect();
    assert_eq!(tokens, [vec![(500.0, 495.0)], vec![(495.0, 500.0)]]);
    // The columns for queries hold the first before and the last after.
    let conn = rusqlite::Connection::open(dir.path().join(retryscope::store::HISTORY_FILE))
        .expect("opens the file");
    let columns: Vec<(Option<f64>, Option<f64>)> = conn
        .prepare("SELECT budget_before, budget_after FROM attempts ORDER BY number")
        .expect("prepares")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("reads")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(
        columns,
        [(Some(500.0), Some(495.0)), (Some(495.0), Some(500.0))]
    );
    // Opening the past run shows the same events in the same places.
    let replayed = replayed(&stored);
    let budget_of = |events: &[RunEvent]| -> Vec<(usize, u32)> {
        events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                RunEvent::BudgetChanged { attempt, .. } => Some((i, *attempt)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(budget_of(&replayed), budget_of(&sent));
    assert_eq!(budget_of(&replayed), [(3, 1), (8, 2)]);
}

#[test]
fn a_database_of_the_previous_schema_gains_the_budget_column_and_keeps_its_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let id = record(dir.path(), true, 64 * 1024);
    // As an older version left it: schema step 2, no budget column, each run's profile and
    // each attempt's outcome in its own row (steps 5 and 6 undone).
    let path = dir.path().join(retryscope::store::HISTORY_FILE);
    {
        let conn = rusqlite::Connection::open(&path).expect("opens");
        conn.execute_batch(
            "UPDATE runs SET profile_json = (SELECT json FROM profiles p WHERE p.id = profile_id);
             ALTER TABLE runs DROP COLUMN profile_id; DROP TABLE profiles;
             UPDATE attempts SET outcome_json = json_object('type', 'response', 'status', status,
                 'reason', response_reason, 'version', response_version,
                 'headers', json(headers_json), 'body', json_object('bytes', json('{\"utf8\":\"\"}'),
                 'total_bytes', body_total_bytes, 'truncated', json(iif(body_truncated, 'true', 'false'))))
                 WHERE outcome_json = '';
             ALTER TABLE attempts DROP COLUMN response_reason;
             ALTER TABLE attempts DROP COLUMN response_version;
             DROP TABLE batch_items; DROP TABLE batches;
             DROP TRIGGER watch_run_deleted;
             DROP TABLE watch_slots; DROP TABLE watches; DROP INDEX runs_by_watch;
             ALTER TABLE runs DROP COLUMN watch_id;
             ALTER TABLE runs DROP COLUMN started_attempt;
             ALTER TABLE runs DROP COLUMN started_attempt_at;
             ALTER TABLE runs DROP COLUMN started_attempt_offset_ms;
             ALTER TABLE runs DROP COLUMN started_attempt_method;
             ALTER TABLE runs DROP COLUMN started_attempt_url;
             ALTER TABLE attempts DROP COLUMN budget_json; PRAGMA user_version = 2;",
        )
        .expect("downgrades");
    }
    let before = {
        let conn = rusqlite::Connection::open(&path).expect("opens");
        conn.query_row(
            "SELECT profile_json, (SELECT outcome_json FROM attempts LIMIT 1) FROM runs",
            [],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )
        .expect("reads")
    };
    assert!(before.0.contains("\"name\""), "{before:?}");
    assert!(before.1.contains("\"status\""), "{before:?}");
    let store = HistoryStore::open_in(dir.path()).expect("migrates");
    let stored = store.run(&id).expect("reads").expect("found");
    assert_eq!(stored.fold.attempts.len(), 2);
    assert!(stored.fold.attempts.iter().all(|a| a.budget.is_empty()));
    // The profile moved to `profiles` (step 5) and reads back the same.
    assert!(
        stored.run.profile.get("name").is_some(),
        "{:?}",
        stored.run.profile
    );
    assert!(matches!(
        stored.fold.attempts[0]
            .result
            .as_ref()
            .expect("answered")
            .outcome,
        retryscope::model::AttemptOutcome::Response(_)
    ));
}

#[test]
fn a_run_waiting_for_its_first_answer_counts_that_attempt_in_both_lists() {
    // As `history list` shows a run killed there ("interrupted  1 attempt"), a live one
    // waiting for its first answer shows "running  1 attempt", not 0.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = HistoryStore::open_in(dir.path()).expect("opens");
    let mut recorder = HistoryRecorder::new(&request(), &profile(), Vec::new(), 1024);
    for event in events(false).iter().take(2) {
        assert!(matches!(
            event,
            RunEvent::RunStarted { .. } | RunEvent::AttemptStarted { .. }
        ));
        if let Some(write) = recorder.fold(event) {
            store.apply(&write).expect("applies");
        }
    }
    let listed = store.list(&RunFilter::default()).expect("lists");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].outcome, None, "still running");
    assert_eq!(listed[0].attempts, 1);
    let page = store
        .page_runs(&retryscope::store::RunQuery::default(), 0, 10)
        .expect("pages");
    assert_eq!(page[0].attempts, 1);
}

#[test]
fn an_attempt_of_a_run_deleted_while_it_ran_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = HistoryStore::open_in(dir.path()).expect("opens");
    let mut recorder = HistoryRecorder::new(&request(), &profile(), Vec::new(), 1024);
    let mut errors = Vec::new();
    for (i, event) in events(true).iter().enumerate() {
        if let Some(write) = recorder.fold(event)
            && let Err(e) = store.apply(&write)
        {
            errors.push(e.to_string());
        }
        if i == 0 {
            // `history prune --older-than 0 --yes` while the run records.
            let id = recorder.id().to_owned();
            assert_eq!(
                store.delete(std::slice::from_ref(&id)).expect("deletes"),
                [id]
            );
        }
    }
    assert!(!errors.is_empty());
    let id = recorder.id();
    for e in &errors {
        assert_eq!(
            e,
            &format!(
                "cannot insert an attempt in the history database: run {id} was deleted from the history while it ran"
            )
        );
    }
}
