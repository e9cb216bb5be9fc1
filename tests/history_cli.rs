//! `retryscope run` records into the history; `history list/show/export/delete/prune` read and
//! change it. Against the demo server on 127.0.0.1, with a temp data folder.

mod demo_support;

use assert_cmd::Command;
use demo_support::Demo;

fn retryscope(dir: &std::path::Path) -> Command {
    let mut cmd = Command::cargo_bin("retryscope").expect("binary built");
    cmd.env("RETRYSCOPE_KEYRING", "memory")
        .env("RETRYSCOPE_DATA_DIR", dir)
        .timeout(std::time::Duration::from_secs(30));
    cmd
}

fn stdout(cmd: &mut Command, code: i32) -> String {
    let out = cmd.assert().code(code).get_output().clone();
    String::from_utf8(out.stdout).expect("utf-8")
}

fn listed(dir: &std::path::Path, extra: &[&str]) -> Vec<serde_json::Value> {
    stdout(
        retryscope(dir)
            .args(["history", "list", "--json"])
            .args(extra),
        0,
    )
    .lines()
    .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
    .collect()
}

#[test]
fn runs_are_listed_shown_exported_deleted_and_pruned() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    // `--no-body`: `show` replays the timeline; the final body is in `history export`.
    let ok_run = stdout(
        retryscope(dir.path()).args([
            "run",
            "--seed",
            "7",
            "--no-body",
            &demo.server.url("/status/200"),
        ]),
        0,
    );
    stdout(
        retryscope(dir.path()).args(["run", "--seed", "7", &demo.server.url("/status/404?x=stop")]),
        1,
    );
    stdout(
        retryscope(dir.path()).args(["run", "--no-history", &demo.server.url("/status/200")]),
        0,
    );

    let all = listed(dir.path(), &[]);
    assert_eq!(all.len(), 2, "--no-history is not recorded: {all:?}");
    assert_eq!(all[0]["outcome"], "stopped", "newest first");
    assert_eq!(all[1]["outcome"], "succeeded");
    assert_eq!(all[1]["attempts"], 1);
    assert_eq!(all[1]["method"], "GET");
    let ok_id = all[1]["id"].as_str().expect("id").to_owned();
    let stop_id = all[0]["id"].as_str().expect("id").to_owned();
    assert_eq!(listed(dir.path(), &["--outcome", "succeeded"]).len(), 1);
    assert_eq!(listed(dir.path(), &["--url", "X=STOP"]).len(), 1);
    assert_eq!(listed(dir.path(), &["--limit", "1"]).len(), 1);
    let long = "u".repeat(50_000);
    for (url, said) in [
        (" ", "--url is blank"),
        (long.as_str(), "--url is 50000 bytes long"),
    ] {
        let out = retryscope(dir.path())
            .args(["history", "list", "--url", url])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.starts_with(&format!("error: {said}")), "{stderr}");
    }

    let text = stdout(retryscope(dir.path()).args(["history", "list"]), 0);
    let line = text.lines().nth(1).expect("two lines");
    assert!(line.starts_with(&ok_id), "{line}");
    assert!(line.contains("GET http://127.0.0.1:"), "{line}");
    assert!(line.contains("succeeded  1 attempt"), "{line}");

    // `show` prints the same timeline as `run` did.
    let shown = stdout(
        retryscope(dir.path()).args(["history", "show", &ok_id[..13]]),
        0,
    );
    assert_eq!(shown, ok_run);
    let events = stdout(
        retryscope(dir.path()).args(["history", "show", "--json", &ok_id]),
        0,
    );
    let kinds: Vec<String> = events
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON Lines");
            v["event"].as_str().unwrap_or_default().to_owned()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "run_started",
            "attempt_started",
            "attempt_finished",
            "run_finished"
        ]
    );

    let file = dir.path().join("out").join("run.json");
    // An export goes into an existing folder only: a typo in it is reported, not created.
    let refused = retryscope(dir.path())
        .args(["history", "export", &ok_id, "--format", "json", "-o"])
        .arg(&file)
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(&format!(
            "-o: the folder {} does not exist (create it first): ",
            dir.path().join("out").display()
        )),
        "{refused:?}"
    );
    std::fs::create_dir(dir.path().join("out")).expect("folder");
    stdout(
        retryscope(dir.path())
            .args(["history", "export", &ok_id, "--format", "json", "-o"])
            .arg(&file),
        0,
    );
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("written")).expect("JSON");
    assert_eq!(doc["run"]["id"], ok_id.as_str());
    assert_eq!(doc["attempts"].as_array().map(Vec::len), Some(1));
    let csv = stdout(
        retryscope(dir.path()).args(["history", "export", &stop_id, "--format", "csv"]),
        0,
    );
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 2, "{csv}");
    assert!(rows[0].starts_with("run_id,attempt,started_at,method,url,status"));
    assert!(rows[1].contains(",404,"), "{csv}");
    let har: serde_json::Value = serde_json::from_str(&stdout(
        retryscope(dir.path()).args(["history", "export", &stop_id, "--format", "har"]),
        0,
    ))
    .expect("HAR is JSON");
    let entries = har["log"]["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 1, "one entry per attempt");
    assert_eq!(entries[0]["response"]["status"], 404);
    assert!(
        entries[0]["request"]["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/status/404?x=stop")),
        "{har}"
    );
    assert_eq!(har["log"]["_retryscope"]["outcome"], "stopped");

    // Unknown ids are usage errors; known ones are deleted.
    retryscope(dir.path())
        .args(["history", "show", "ffffffff-0000"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no run `ffffffff-0000`"));
    retryscope(dir.path())
        .args(["history", "show", &ok_id[..7]])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "give at least 8 characters of the run id",
        ));
    let deleted = stdout(
        retryscope(dir.path()).args(["history", "delete", &stop_id]),
        0,
    );
    assert_eq!(deleted.trim(), format!("deleted {stop_id}"));
    retryscope(dir.path())
        .args(["history", "delete", &stop_id])
        .assert()
        .code(2);
    assert_eq!(listed(dir.path(), &[]).len(), 1);

    let pruned = stdout(
        retryscope(dir.path()).args(["history", "prune", "--older-than", "1"]),
        0,
    );
    assert!(pruned.starts_with("deleted 0 runs"), "{pruned}");
    // Everything at once asks first; without a terminal it needs --yes.
    retryscope(dir.path())
        .args(["history", "prune", "--older-than", "0"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("add --yes to confirm"));
    assert_eq!(listed(dir.path(), &[]).len(), 1, "nothing deleted");
    let pruned = stdout(
        retryscope(dir.path()).args(["history", "prune", "--older-than", "0", "--yes"]),
        0,
    );
    assert!(pruned.starts_with("deleted 1 run "), "{pruned}");
    assert!(listed(dir.path(), &[]).is_empty());
}

#[test]
fn the_data_dir_flag_points_history_elsewhere() {
    let demo = Demo::start();
    let env_dir = tempfile::tempdir().expect("tempdir");
    let flag_dir = tempfile::tempdir().expect("tempdir");
    stdout(
        retryscope(env_dir.path())
            .args(["run", "--data-dir"])
            .arg(flag_dir.path())
            .arg(demo.server.url("/status/200")),
        0,
    );
    assert!(listed(env_dir.path(), &[]).is_empty());
    assert_eq!(
        listed(
            env_dir.path(),
            &["--data-dir", &flag_dir.path().display().to_string()]
        )
        .len(),
        1
    );
}

#[test]
fn an_empty_data_folder_is_read_without_creating_the_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("never-used");
    let text = stdout(retryscope(&data).args(["history", "list"]), 0);
    assert!(text.starts_with("no runs recorded yet"), "{text}");
    assert!(stdout(retryscope(&data).args(["history", "list", "--json"]), 0).is_empty());
    retryscope(&data)
        .args(["history", "show", "019a3c5e-0000"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no runs recorded yet"));
    assert!(
        !data.exists(),
        "neither the folder nor the database was created"
    );
}

#[test]
fn deleting_a_run_still_being_recorded_asks_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A run left open by this (live) process: it counts as still being recorded.
    let (id, _writer) = open_run_of_this_process(dir.path(), "http://127.0.0.1:9/x");
    retryscope(dir.path())
        .args(["history", "delete", &id])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("still being recorded"))
        .stderr(predicates::str::contains("add --yes to confirm"));
    let deleted = stdout(
        retryscope(dir.path()).args(["history", "delete", "--yes", &id]),
        0,
    );
    assert_eq!(deleted.trim(), format!("deleted {id}"));
}

#[test]
fn prune_refuses_an_age_beyond_a_hundred_years_instead_of_crashing() {
    // Found by a fresh-user pass: `--older-than 4294967295` overflowed the date and panicked.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_retryscope"))
        .env("RETRYSCOPE_DATA_DIR", dir.path())
        .args(["history", "prune", "--older-than", "4294967295", "--yes"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--older-than"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn an_ambiguous_id_is_a_usage_error_like_an_unknown_one() {
    use retryscope::store::{HistoryStore, HistoryWrite, RunRecord};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = HistoryStore::open_in(dir.path()).expect("opens");
    for id in [
        "0193aaaa-0000-7000-8000-000000000001",
        "0193aaaa-0000-7000-8000-000000000002",
    ] {
        let url = "http://127.0.0.1:9/x".to_owned();
        store
            .apply(&HistoryWrite::RunStarted(Box::new(RunRecord {
                id: id.into(),
                started_at: chrono::Local::now().fixed_offset(),
                ended_at: None,
                app_version: "test".into(),
                method: "GET".into(),
                url: url.clone(),
                request: retryscope::model::RequestSpec::get(url),
                profile_name: "p".into(),
                profile: serde_json::Value::Null.into(),
                seed: 1,
                outcome: None,
                outcome_message: None,
                last_status: None,
                attempts: 0,
                elapsed_ms: None,
                batch_item_id: None,
                watch_id: None,
                attempt_started: None,
            })))
            .expect("written");
    }
    drop(store);
    for extra in [&[][..], &["--format", "json"][..]] {
        let command = if extra.is_empty() { "show" } else { "export" };
        retryscope(dir.path())
            .args(["history", command, "0193aaaa"])
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(
                "`0193aaaa` names more than one run; give more of the id",
            ));
        retryscope(dir.path())
            .args(["history", command, "0193bbbb"])
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(
                "no run `0193bbbb` in the history",
            ));
    }
}

#[test]
fn a_database_that_is_not_one_is_named_in_one_sentence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join(retryscope::store::HISTORY_FILE);
    std::fs::write(
        &db,
        "not a database at all, but long enough to be read as one ".repeat(40),
    )
    .expect("written");
    let out = retryscope(dir.path())
        .args(["history", "list"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        format!(
            "error: cannot open the history database (the file is not a usable SQLite database; \
             move it away to start a new history): {}\n",
            db.display()
        )
    );
}

#[test]
fn a_limit_of_zero_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    drop(retryscope::store::HistoryStore::open_in(dir.path()).expect("opens"));
    retryscope(dir.path())
        .args(["history", "list", "--limit", "0"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "invalid value '0' for '--limit <N>': expected a whole number from 1 to 4294967295",
        ));
    retryscope(dir.path())
        .args(["history", "list", "--limit", "1"])
        .assert()
        .code(0);
}

#[test]
fn export_to_a_folder_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    drop(retryscope::store::HistoryStore::open_in(dir.path()).unwrap());
    retryscope(dir.path())
        .args(["history", "export", "019a3c5e", "--format", "csv", "-o"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "-o needs a file name, not a folder",
        ));
}

#[test]
fn the_outcome_filter_takes_running_as_the_list_shows_it() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    stdout(
        retryscope(dir.path()).args(["run", "--no-body", &demo.server.url("/status/200")]),
        0,
    );
    // A run left open by this (live) process: the list shows it as `running`.
    let (id, _writer) = open_run_of_this_process(dir.path(), "http://127.0.0.1:9/still-going");

    let all = stdout(retryscope(dir.path()).args(["history", "list"]), 0);
    assert!(all.contains("  running  "), "{all}");
    let running = stdout(
        retryscope(dir.path()).args(["history", "list", "--outcome", "running"]),
        0,
    );
    assert_eq!(running.lines().count(), 1, "{running}");
    assert!(
        running.starts_with(&id) && running.contains("  running  "),
        "{running}"
    );
    let json = listed(dir.path(), &["--outcome", "running"]);
    assert_eq!(json.len(), 1, "{json:?}");
    assert_eq!(json[0]["id"], id.as_str());
    assert!(json[0]["outcome"].is_null(), "{json:?}");
    // With a URL filter, and the other outcomes still exclude it.
    assert_eq!(
        listed(
            dir.path(),
            &["--outcome", "running", "--url", "STILL-going"]
        )
        .len(),
        1
    );
    assert!(listed(dir.path(), &["--outcome", "running", "--url", "status"]).is_empty());
    let ended = listed(dir.path(), &["--outcome", "succeeded"]);
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_ne!(ended[0]["id"], id.as_str());
    retryscope(dir.path())
        .args(["history", "list", "--outcome", "runing"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "use one of succeeded, gave_up, stopped, deadline, cancelled, error, interrupted, running",
        ));
}

#[test]
fn a_url_filter_finds_non_ascii_text_as_typed_or_percent_encoded() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    for city in ["ünï", "x"] {
        let url = demo.server.url(&format!("/status/200?city={city}"));
        stdout(retryscope(dir.path()).args(["run", "--no-body", &url]), 0);
    }
    let all = listed(dir.path(), &[]);
    assert_eq!(all.len(), 2, "{all:?}");
    // As the URL parser stores it: the text as typed is not in it.
    let stored = all[1]["url"].as_str().expect("url").to_owned();
    assert!(stored.ends_with("?city=%C3%BCn%C3%AF"), "{stored}");
    for text in ["ünï", "city=ünï", "%C3%BCn%C3%AF", "%c3%bc", "ün"] {
        let found = listed(dir.path(), &["--url", text]);
        assert_eq!(found.len(), 1, "--url {text}: {found:?}");
        assert_eq!(found[0]["url"], stored.as_str(), "--url {text}");
    }
    // With an outcome too, and text that is in neither form finds nothing.
    assert_eq!(
        listed(dir.path(), &["--url", "ünï", "--outcome", "succeeded"]).len(),
        1
    );
    assert!(listed(dir.path(), &["--url", "ünïx"]).is_empty());
    assert_eq!(
        stdout(
            retryscope(dir.path()).args(["history", "list", "--url", "ö"]),
            0
        ),
        "no recorded run matches\n"
    );
}

/// Records in `data_dir` the start of a run of `url` that this (live) process leaves open, as a
/// run still being recorded; returns its id and the connection that wrote it (keep it: while
/// it is open it holds this process's writer lock, so other processes see the run as live).
fn open_run_of_this_process(
    data_dir: &std::path::Path,
    url: &str,
) -> (String, retryscope::store::HistoryStore) {
    use retryscope::store::{HistoryRecorder, HistoryStore};
    let mut store = HistoryStore::open_in(data_dir).expect("opens");
    let spec = retryscope::model::RequestSpec::get(url);
    let profile = retryscope::profile::builtin("servicenow-exponential").expect("builtin");
    let mut recorder = HistoryRecorder::new(&spec, &profile, Vec::new(), 1024);
    let started = retryscope::model::RunEvent::RunStarted {
        run_id: 1,
        seed: 1,
        profile: "p".into(),
        method: "GET".into(),
        url: spec.url.clone(),
        started_at: chrono::Local::now().fixed_offset(),
        tls_unverified: false,
    };
    store
        .apply(&recorder.fold(&started).expect("a row"))
        .expect("written");
    (recorder.id().to_owned(), store)
}

/// A database another program keeps locked holds a finished `run` back for one lock wait
/// (5 s), not one per statement, and the warning says what happened.
#[test]
fn a_run_whose_history_is_locked_ends_after_one_lock_wait_and_says_why() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    stdout(
        retryscope(dir.path()).args(["run", &demo.server.url("/status/200")]),
        0,
    );
    let holder = rusqlite::Connection::open(dir.path().join("history.sqlite3")).expect("open");
    holder.execute_batch("BEGIN IMMEDIATE").expect("lock");
    let started = std::time::Instant::now();
    let out = retryscope(dir.path())
        .args(["run", "--no-body", &demo.server.url("/status/200?x=locked")])
        .output()
        .expect("run");
    let took = started.elapsed();
    holder.execute_batch("ROLLBACK").expect("unlock");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("another program held the history database locked for more than 5 s"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("locked for more than").count(),
        1,
        "said once: {stderr}"
    );
    assert!(took < std::time::Duration::from_secs(12), "{took:?}");
}
