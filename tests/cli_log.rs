//! The run log: `retryscope run` writes one timestamped line per attempt, wait and outcome, to
//! the data folder's daily files or to `--log-file`, with secrets masked.

mod demo_support;

use assert_cmd::Command;
use demo_support::Demo;

fn retryscope() -> Command {
    demo_support::sandboxed()
}

/// `2026-12-01T10:15:02.123+00:00`: a local timestamp with milliseconds and its UTC offset.
fn has_offset_timestamp(line: &str) -> bool {
    let stamp = line.split_whitespace().next().unwrap_or_default();
    let offset = stamp.get(23..).unwrap_or_default();
    stamp.len() == 29
        && stamp.as_bytes().get(10) == Some(&b'T')
        && (offset.starts_with('+') || offset.starts_with('-'))
        && offset.get(3..4) == Some(":")
}

#[test]
fn log_file_gets_a_line_per_attempt_wait_and_outcome_with_secrets_masked() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("nested")).expect("mkdir");
    let log = dir.path().join("nested").join("run.log");
    let url = format!(
        "{}/status/503?times=1&key=logtest&token=QUERYSECRET",
        demo.base_url()
    );
    retryscope()
        .args([
            "run",
            "--builtin",
            "vbscript-module",
            "--seed",
            "7",
            "--log-file",
        ])
        .arg(&log)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["-H", "Authorization: Bearer HEADERSECRET", &url])
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&log).expect("log written");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().all(|l| has_offset_timestamp(l)), "{text}");
    // Each line names the run by its history id (`retryscope history show ID`).
    let runs = retryscope::store::HistoryStore::open_in(dir.path())
        .expect("history opens")
        .list(&retryscope::store::RunFilter::default())
        .expect("runs listed");
    assert_eq!(runs.len(), 1);
    let id = &runs[0].id;
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("run {id} attempt 1: 503"))),
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l.contains("wait planned: retry 1:")),
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l.contains("wait 1 measured")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("run {id} attempt 2: 200"))),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("run {id} succeeded:"))),
        "{text}"
    );
    assert!(!text.contains("HEADERSECRET"), "{text}");
    assert!(!text.contains("QUERYSECRET"), "{text}");
    assert!(text.contains("token=***"), "{text}");
}

#[test]
fn runs_are_logged_in_daily_files_of_the_data_folder_unless_the_level_is_off() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("{}/status/200", demo.base_url());
    retryscope()
        .env("RETRYSCOPE_DATA_DIR", dir.path())
        .args(["run", &url])
        .assert()
        .code(0);
    let logs: Vec<_> = std::fs::read_dir(dir.path().join("logs"))
        .expect("logs folder")
        .filter_map(Result::ok)
        .collect();
    assert_eq!(logs.len(), 1, "one daily file");
    let name = logs[0].file_name().to_string_lossy().into_owned();
    assert!(name.starts_with("retryscope.log."), "{name}");
    let text = std::fs::read_to_string(logs[0].path()).expect("readable");
    assert!(text.contains("attempt 1: 200"), "{text}");

    let quiet = tempfile::tempdir().expect("tempdir");
    retryscope()
        .env("RETRYSCOPE_DATA_DIR", quiet.path())
        .args(["run", "--log-level", "off", &url])
        .assert()
        .code(0);
    let quiet_text: String = std::fs::read_dir(quiet.path().join("logs"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert!(
        quiet_text.is_empty(),
        "level off writes nothing: {quiet_text}"
    );
}

#[test]
fn an_unusable_log_file_is_a_usage_error_and_a_bad_level_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    retryscope()
        .args(["run", "--log-file"])
        .arg(dir.path())
        .arg("http://127.0.0.1:9/")
        .assert()
        .code(2)
        .stderr(format!(
            "error: --log-file needs a file name, not a folder: {}\n",
            dir.path().display()
        ));
    retryscope()
        .args(["run", "--log-level", "loud", "http://127.0.0.1:9/"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown log level `loud`"));
}

#[test]
fn an_output_file_in_a_missing_folder_or_a_folder_is_refused_before_sending() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("{}/status/200", demo.base_url());
    retryscope()
        .args(["run", "--no-history", "-o"])
        .arg(dir.path())
        .arg(&url)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "-o needs a file name, not a folder",
        ));
    retryscope()
        .args(["run", "--no-history", "-o"])
        .arg(dir.path().join("missing").join("body.bin"))
        .arg(&url)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("does not exist"));
    for flag in ["--har", "--png", "--log-file"] {
        let missing = dir.path().join("missing").join("out.file");
        // The same words for every file a command writes (`cli::output_path`).
        retryscope()
            .args(["run", "--no-history", flag])
            .arg(&missing)
            .arg(&url)
            .assert()
            .code(2)
            .stderr(format!(
                "error: {flag}: the folder {} does not exist (create it first): {}\n",
                dir.path().join("missing").display(),
                missing.display()
            ));
        assert!(
            !dir.path().join("missing").exists(),
            "{flag}: no folder made"
        );
    }
    // `batch --log-file` too, before anything is queued.
    let data = tempfile::tempdir().expect("tempdir");
    let list = dir.path().join("one.jsonl");
    std::fs::write(&list, format!("{{\"url\": \"{url}\"}}\n")).expect("list written");
    let missing = dir.path().join("missing").join("batch.log");
    retryscope()
        .env("RETRYSCOPE_DATA_DIR", data.path())
        .args(["batch", "--log-file"])
        .arg(&missing)
        .arg(&list)
        .assert()
        .code(2)
        .stderr(format!(
            "error: --log-file: the folder {} does not exist (create it first): {}\n",
            dir.path().join("missing").display(),
            missing.display()
        ));
    retryscope()
        .env("RETRYSCOPE_LOG_LEVEL", "garbage")
        .args(["run", "--no-history", &url])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "RETRYSCOPE_LOG_LEVEL=\"garbage\" is not a log level; use error, warn, info",
        ));
    assert!(demo.server.log().is_empty(), "nothing was sent");
}

/// `path`'s permission bits.
#[cfg(unix)]
fn mode_of(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("exists")
        .permissions()
        .mode()
        & 0o777
}

#[cfg(unix)]
#[test]
fn the_data_folder_history_and_logs_are_the_users_alone() {
    let demo = Demo::start();
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("fresh").join("data");
    let url = format!("{}/status/200", demo.base_url());
    retryscope()
        .env("RETRYSCOPE_DATA_DIR", &data)
        .args(["run", &url])
        .assert()
        .code(0);
    assert_eq!(mode_of(&data), 0o700, "the data folder");
    assert_eq!(mode_of(&data.join("logs")), 0o700, "the log folder");
    let db = data.join(retryscope::store::HISTORY_FILE);
    assert_eq!(mode_of(&db), 0o600, "history.sqlite3");
    let logs: Vec<_> = std::fs::read_dir(data.join("logs"))
        .expect("logs folder")
        .filter_map(Result::ok)
        .collect();
    assert_eq!(logs.len(), 1, "one daily file");
    assert_eq!(mode_of(&logs[0].path()), 0o600, "the log file");

    // While a connection is open its -wal and -shm exist, with the database's mode.
    let store = retryscope::store::HistoryStore::open_in(&data).expect("opens");
    for suffix in ["-wal", "-shm"] {
        let side = data.join(format!("{}{suffix}", retryscope::store::HISTORY_FILE));
        assert_eq!(mode_of(&side), 0o600, "{}", side.display());
    }
    drop(store);

    // A database an older version left 0644 is tightened when opened.
    std::fs::set_permissions(
        &db,
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o644),
    )
    .expect("chmod");
    drop(retryscope::store::HistoryStore::open_in(&data).expect("opens"));
    assert_eq!(mode_of(&db), 0o600);

    // A --log-file the run creates is 0600 too.
    let file = root.path().join("run.log");
    retryscope()
        .env("RETRYSCOPE_DATA_DIR", &data)
        .args(["run", "--log-file"])
        .arg(&file)
        .arg(&url)
        .assert()
        .code(0);
    assert_eq!(mode_of(&file), 0o600, "--log-file");
}

/// Everything written under `dir/logs`.
fn daily_log_text(dir: &std::path::Path) -> String {
    std::fs::read_dir(dir.join("logs"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect()
}

#[test]
fn curl_and_batch_runs_are_logged_as_run_logs_its_run() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = "CURLLOGSECRET";
    retryscope()
        .env("RETRYSCOPE_DATA_DIR", dir.path())
        .args([
            "curl",
            &format!("{}/status/200?case=curl-log", demo.base_url()),
            "-H",
            &format!("Authorization: Bearer {secret}"),
        ])
        .assert()
        .code(0);
    let text = daily_log_text(dir.path());
    assert!(text.contains("/status/200?case=curl-log"), "{text}");
    assert!(text.contains("attempt 1: 200"), "{text}");
    assert!(!text.contains(secret), "{text}");

    let list = dir.path().join("items.jsonl");
    std::fs::write(
        &list,
        format!(
            "{{\"url\":\"{0}/status/200?case=batch-log-a\",\"headers\":{{\"Authorization\":\"Bearer BATCHLOGSECRET\"}}}}\n{{\"url\":\"{0}/status/404?case=batch-log-b\"}}\n",
            demo.base_url()
        ),
    )
    .expect("list written");
    let log = dir.path().join("batch.log");
    retryscope()
        .env("RETRYSCOPE_DATA_DIR", dir.path())
        .args(["batch", "--builtin", "vbscript-module", "--log-file"])
        .arg(&log)
        .arg(&list)
        .assert()
        .code(1);
    let text = std::fs::read_to_string(&log).expect("batch log written");
    assert!(
        text.contains("batch-log-a") && text.contains("batch-log-b"),
        "{text}"
    );
    assert!(text.contains("attempt 1: 404"), "{text}");
    assert!(text.lines().all(has_offset_timestamp), "{text}");
    assert!(!text.contains("BATCHLOGSECRET"), "{text}");
}
