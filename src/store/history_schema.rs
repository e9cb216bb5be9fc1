//! The history database's schema, as ordered migrations (`rusqlite_migration`, tracked in
//! SQLite's `user_version`). Append new steps; never edit a released one.

use rusqlite_migration::{M, Migrations};

/// Step 1: runs and attempts (DESIGN.md §10).
const V1: &str = "
CREATE TABLE runs (
    id              TEXT PRIMARY KEY,
    started_at      TEXT NOT NULL,
    started_unix_ms INTEGER NOT NULL,
    ended_at        TEXT,
    app_version     TEXT NOT NULL,
    method          TEXT NOT NULL,
    url             TEXT NOT NULL,
    request_json    TEXT NOT NULL,
    profile_name    TEXT NOT NULL,
    profile_json    TEXT NOT NULL,
    seed            TEXT NOT NULL,
    outcome         TEXT,
    outcome_message TEXT,
    last_status     INTEGER,
    attempts        INTEGER NOT NULL DEFAULT 0,
    elapsed_ms      REAL,
    batch_item_id   TEXT,
    writer_pid      INTEGER
) STRICT;
CREATE INDEX runs_by_start ON runs (started_unix_ms);
CREATE INDEX runs_by_outcome ON runs (outcome);

CREATE TABLE attempts (
    run_id           TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    number           INTEGER NOT NULL,
    started_at       TEXT NOT NULL,
    offset_ms        REAL NOT NULL,
    method           TEXT NOT NULL,
    url              TEXT NOT NULL,
    dns_ms           REAL,
    connect_ms       REAL,
    tls_ms           REAL,
    sent_ms          REAL,
    first_byte_ms    REAL,
    done_ms          REAL,
    reused           INTEGER,
    status           INTEGER,
    error_kind       TEXT,
    error_message    TEXT,
    verdict          TEXT NOT NULL,
    verdict_reason   TEXT,
    headers_json     TEXT,
    body_preview     BLOB,
    body_total_bytes INTEGER,
    body_truncated   INTEGER,
    outcome_json     TEXT NOT NULL,
    hops_json        TEXT NOT NULL,
    timings_json     TEXT NOT NULL,
    verdict_json     TEXT NOT NULL,
    wait_planned_ms  INTEGER,
    wait_explanation TEXT,
    wait_explanation_json TEXT,
    wait_offset_ms   REAL,
    wait_measured_ms REAL,
    wait_skipped     INTEGER,
    budget_before    REAL,
    budget_after     REAL,
    PRIMARY KEY (run_id, number)
) STRICT;
";

/// Step 2: `history list --outcome X` newest first reads `(outcome, started_unix_ms)` in order
/// instead of every run (BENCHMARKS.md); it supersedes step 1's `runs_by_outcome`. (An index
/// holding the URL would speed up `--url`, but made every recorded run costlier to write.)
const V2: &str = "
CREATE INDEX runs_by_outcome_start ON runs (outcome, started_unix_ms);
DROP INDEX runs_by_outcome;
";

/// Step 3: the retry budget's changes per attempt (DESIGN.md §10 "budget tokens before/after"):
/// every `BudgetChanged` of the attempt as a JSON list (kind, class, amount, before, after,
/// capacity, scope, text), replayed when a past run is opened. Step 1's `budget_before` /
/// `budget_after` columns (never written before this step) hold the first change's `before`
/// and the last change's `after`, for queries. Runs recorded earlier have none.
const V3: &str = "
ALTER TABLE attempts ADD COLUMN budget_json TEXT;
";

/// Step 4: the batch queue (DESIGN.md §10 "batch item"). A batch keeps its profile
/// and options so a resumed batch runs as it began; an item keeps its request masked by the one
/// secrets rule (`request_json`), with `has_secrets` set when the sendable request lives in the
/// secret store instead (docs/DECISIONS.md "Batch runner"). `run_id` is the item's latest run
/// in `runs` (no foreign key: pruning the history keeps the queue). `runner_pid` is no longer
/// written or read: the process working a batch holds its lock file instead
/// (`locks/batch-BATCH_ID.lock`, `store::advisory_lock`).
const V4: &str = "
CREATE TABLE batches (
    id              TEXT PRIMARY KEY,
    created_at      TEXT NOT NULL,
    created_unix_ms INTEGER NOT NULL,
    source          TEXT,
    profile_name    TEXT NOT NULL,
    profile_json    TEXT NOT NULL,
    options_json    TEXT NOT NULL,
    runner_pid      INTEGER
) STRICT;
CREATE INDEX batches_by_created ON batches (created_unix_ms);

CREATE TABLE batch_items (
    batch_id     TEXT NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    name         TEXT,
    method       TEXT NOT NULL,
    url          TEXT NOT NULL,
    request_json TEXT NOT NULL,
    has_secrets  INTEGER NOT NULL,
    item_profile TEXT,
    source_line  INTEGER,
    state        TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_status  INTEGER,
    error_kind   TEXT,
    reason       TEXT,
    run_id       TEXT,
    queued_at    TEXT NOT NULL,
    started_at   TEXT,
    ended_at     TEXT,
    PRIMARY KEY (batch_id, position)
) STRICT;
CREATE INDEX batch_items_by_state ON batch_items (batch_id, state, position);
";

/// Step 5: each distinct profile is stored once (BENCHMARKS.md "History"): a run names its
/// profile by `profile_id` and its `profile_json` is `''`; runs recorded earlier are moved over
/// (their JSON goes to `profiles`). The profile's JSON text is its key (`UNIQUE`), so the same
/// profile, byte for byte, is one row however many runs use it. Profiles are never deleted
/// (pruning runs leaves them: a handful of rows), so `profile_id` needs no foreign key.
const V5: &str = "
CREATE TABLE profiles (
    id   INTEGER PRIMARY KEY,
    json TEXT NOT NULL UNIQUE
) STRICT;
ALTER TABLE runs ADD COLUMN profile_id INTEGER;
INSERT OR IGNORE INTO profiles (json) SELECT profile_json FROM runs WHERE profile_json <> '';
UPDATE runs SET profile_id = (SELECT p.id FROM profiles p WHERE p.json = runs.profile_json),
    profile_json = ''
    WHERE profile_json <> '';
";

/// Step 6: a response's reason phrase and HTTP version get columns, so an attempt whose outcome
/// is a response is whole in its columns (status, reason, version, headers, body) and its
/// `outcome_json` is `''` instead of a second copy of them (BENCHMARKS.md "History"). Errors
/// keep their `outcome_json`; rows written earlier keep theirs and are read as before.
const V6: &str = "
ALTER TABLE attempts ADD COLUMN response_reason TEXT;
ALTER TABLE attempts ADD COLUMN response_version TEXT;
";

/// Step 7: who last started or resumed a batch (`worker`: `window` or `cli`, NULL for batches
/// never started or queued earlier) and whether it was stopped with the Pause button
/// (`paused_by_user`), so the window resumes at its next start the batch it was working when it
/// was closed or killed, and only that one (docs/DECISIONS.md "Window resumes its own
/// batches"). The window sets both before it sends anything; Pause and Cancel set
/// `paused_by_user`, a start or resume clears it.
const V7: &str = "
ALTER TABLE batches ADD COLUMN worker TEXT;
ALTER TABLE batches ADD COLUMN paused_by_user INTEGER NOT NULL DEFAULT 0;
";

/// Step 8: the last attempt a run started, written when it starts, so an attempt cut off
/// mid-flight (Ctrl-C, `kill -9`) leaves its number and start (docs/DECISIONS.md "Attempts cut
/// off mid-flight"). One row update per attempt start, in the group commit of the events
/// around it; attempt 1 rides in the run's own insert.
const V8: &str = "
ALTER TABLE runs ADD COLUMN started_attempt INTEGER;
ALTER TABLE runs ADD COLUMN started_attempt_at TEXT;
ALTER TABLE runs ADD COLUMN started_attempt_offset_ms REAL;
ALTER TABLE runs ADD COLUMN started_attempt_method TEXT;
ALTER TABLE runs ADD COLUMN started_attempt_url TEXT;
";

/// Step 9: watches (DESIGN.md §12, docs/formats.md "Watch records"). A watch keeps its request
/// masked by the one secrets rule (`has_secrets`: the sendable request is in the secret store,
/// as a batch item's is), its profile and its schedule (slot k is due at `start_unix_ms + k ·
/// every_ms`, moved by up to `± jitter · every_ms` drawn from `seed`; it ends after `count`
/// slots or at `until_unix_ms`). `state` is what its process last wrote; a `running` watch whose
/// lock (`locks/watch-ID.lock`) nobody holds reads as `interrupted`. Each slot is a row: the run
/// it started (`run_id`) or why it was missed (`missed`: `late`, `busy`, `down`). A run of a
/// watch names it (`runs.watch_id`).
const V9: &str = "
CREATE TABLE watches (
    id              TEXT PRIMARY KEY,
    created_at      TEXT NOT NULL,
    created_unix_ms INTEGER NOT NULL,
    method          TEXT NOT NULL,
    url             TEXT NOT NULL,
    request_json    TEXT NOT NULL,
    has_secrets     INTEGER NOT NULL,
    profile_name    TEXT NOT NULL,
    profile_json    TEXT NOT NULL,
    start_unix_ms   INTEGER NOT NULL,
    every_ms        INTEGER NOT NULL,
    jitter          REAL NOT NULL,
    seed            TEXT NOT NULL,
    count           INTEGER,
    until_unix_ms   INTEGER,
    state           TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;
CREATE INDEX watches_by_created ON watches (created_unix_ms);

CREATE TABLE watch_slots (
    watch_id    TEXT NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    slot        INTEGER NOT NULL,
    due_unix_ms INTEGER NOT NULL,
    run_id      TEXT,
    missed      TEXT,
    PRIMARY KEY (watch_id, slot)
) STRICT;

ALTER TABLE runs ADD COLUMN watch_id TEXT;
CREATE INDEX runs_by_watch ON runs (watch_id, started_unix_ms) WHERE watch_id IS NOT NULL;
";

/// Step 10: a watch's slot says when its run was deleted from the history (`run_deleted`, set
/// by a trigger on every delete of a run of a watch: `history delete`, retention), so that
/// `watch show` tells a deleted run from one its process never started.
const V10: &str = "
ALTER TABLE watch_slots ADD COLUMN run_deleted INTEGER NOT NULL DEFAULT 0;
CREATE INDEX watch_slots_by_run ON watch_slots (run_id);
CREATE TRIGGER watch_run_deleted AFTER DELETE ON runs WHEN OLD.watch_id IS NOT NULL
BEGIN
    UPDATE watch_slots SET run_deleted = 1 WHERE run_id = OLD.id;
END;
";

/// Every migration, oldest first.
pub(crate) fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(V1),
        M::up(V2),
        M::up(V3),
        M::up(V4),
        M::up(V5),
        M::up(V6),
        M::up(V7),
        M::up(V8),
        M::up(V9),
        M::up(V10),
    ])
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_valid() {
        assert!(super::migrations().validate().is_ok());
    }

    #[test]
    fn a_history_of_step_8_opens_with_its_runs_and_gains_watches() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        super::migrations().to_version(&mut conn, 8).unwrap();
        conn.execute(
            "INSERT INTO runs (id, started_at, started_unix_ms, app_version, method, url,
             request_json, profile_name, profile_json, seed, outcome)
             VALUES ('r1', '', 5, '', 'GET', 'http://a/', '{}', 'p', '', '1', 'succeeded')",
            [],
        )
        .unwrap();
        super::migrations().to_latest(&mut conn).unwrap();
        let (outcome, watch): (String, Option<String>) = conn
            .query_row(
                "SELECT outcome, watch_id FROM runs WHERE id = 'r1'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((outcome.as_str(), watch), ("succeeded", None));
        let watches: i64 = conn
            .query_row("SELECT COUNT(*) FROM watches", [], |r| r.get(0))
            .unwrap();
        assert_eq!(watches, 0);
    }

    #[test]
    fn step_5_moves_each_distinct_profile_of_existing_runs_into_profiles() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        super::migrations().to_version(&mut conn, 4).unwrap();
        for (id, profile) in [
            ("a", "{\"name\":\"p\"}"),
            ("b", "{\"name\":\"p\"}"),
            ("c", "{\"name\":\"q\"}"),
        ] {
            conn.execute(
                "INSERT INTO runs (id, started_at, started_unix_ms, app_version, method, url,
                 request_json, profile_name, profile_json, seed)
                 VALUES (?1, '', 0, '', 'GET', '', '{}', 'p', ?2, '1')",
                [id, profile],
            )
            .unwrap();
        }
        super::migrations().to_latest(&mut conn).unwrap();
        let profiles: i64 = conn
            .query_row("SELECT COUNT(*) FROM profiles", [], |r| r.get(0))
            .unwrap();
        assert_eq!(profiles, 2);
        let mut stmt = conn
            .prepare(
                "SELECT r.id, r.profile_json, p.json FROM runs r JOIN profiles p
                 ON p.id = r.profile_id ORDER BY r.id",
            )
            .unwrap();
        let rows: Vec<(String, String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            [
                ("a".into(), String::new(), "{\"name\":\"p\"}".into()),
                ("b".into(), String::new(), "{\"name\":\"p\"}".into()),
                ("c".into(), String::new(), "{\"name\":\"q\"}".into()),
            ]
        );
    }
}
