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

/// Step 4: the batch queue (issue 9, DESIGN.md §10 "batch item"). A batch keeps its profile
/// and options so a resumed batch runs as it began; an item keeps its request masked by the one
/// secrets rule (`request_json`), with `has_secrets` set when the sendable request lives in the
/// secret store instead (docs/DECISIONS.md "Batch runner"). `run_id` is the item's latest run
/// in `runs` (no foreign key: pruning the history keeps the queue). `runner_pid` is the process
/// working the batch now, so two processes never work one batch at once.
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

/// Every migration, oldest first.
pub(crate) fn migrations() -> Migrations<'static> {
    Migrations::new(vec![M::up(V1), M::up(V2), M::up(V3), M::up(V4)])
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_valid() {
        assert!(super::migrations().validate().is_ok());
    }
}
