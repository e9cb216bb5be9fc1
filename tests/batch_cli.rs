//! `retryscope batch` end to end: a batch killed with SIGKILL mid-way and resumed loses no
//! item and sends none that was done again; Ctrl-C pauses with exit 130 and prints the resume
//! command; `batch list` / `batch show` read the queue; a malformed list queues nothing.

#![allow(clippy::unwrap_used)]

mod demo_support;

use assert_cmd::cargo::CommandCargoExt;
use demo_support::{Demo, retryscope};
use retryscope::model::{BatchItemState, OutcomeKind};
use retryscope::store::{
    BatchItemRecord, BatchQueue, HistoryStore, MemorySecretStore, SecretStore,
};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const FAST_PROFILE: &str = r#"{
  "format": "retryscope-profile/2",
  "name": "Fast",
  "max_retries": 2,
  "backoff": { "strategy": "fixed", "base_delay_ms": 1 }
}"#;

fn queue(dir: &Path) -> BatchQueue {
    let store: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    BatchQueue::open_in(dir, store).unwrap()
}

fn items(dir: &Path, id: &str) -> Vec<BatchItemRecord> {
    queue(dir).items(id, None, 0, 1_000_000).unwrap()
}

/// Writes `n` slow items (`/slow?ms=MS&n=i`) as a JSON Lines list; returns its path.
fn slow_list(demo: &Demo, dir: &Path, n: usize, ms: u64) -> std::path::PathBuf {
    let lines: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"url": "{}", "name": "item {i}"}}"#,
                demo.url(&format!("/slow?ms={ms}&n={i}"))
            )
        })
        .collect();
    let path = dir.join("list.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// Writes `lines` (JSON Lines) to `list.jsonl` in `dir` and runs `retryscope batch` on it
/// with `args` after the list; returns what the process gave.
fn batch_of_lines(dir: &Path, lines: &str, args: &[&str]) -> std::process::Output {
    let path = dir.join("list.jsonl");
    std::fs::write(&path, lines).unwrap();
    retryscope(dir)
        .arg("batch")
        .arg(&path)
        .args(args)
        .output()
        .unwrap()
}

fn spawn_batch(dir: &Path, args: &[&str]) -> std::process::Child {
    std::process::Command::cargo_bin("retryscope")
        .unwrap()
        .env("RETRYSCOPE_KEYRING", "memory")
        .env("RETRYSCOPE_DATA_DIR", dir)
        .arg("batch")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the newest batch in `dir` has at least `done` items done; returns its id.
fn wait_for_done(dir: &Path, done: u64) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if dir.join("history.sqlite3").exists()
            && let Ok(list) = queue(dir).list(1)
            && let Some(b) = list.first()
            && b.counts.done >= done
        {
            return b.id.clone();
        }
        assert!(Instant::now() < deadline, "{done} items were never done");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_batch_killed_mid_way_resumes_with_no_item_lost_or_sent_twice_after_done() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let list = slow_list(&demo, dir.path(), 40, 100);
    let profile = dir.path().join("fast.json");
    std::fs::write(&profile, FAST_PROFILE).unwrap();
    let mut child = spawn_batch(
        dir.path(),
        &[
            list.to_str().unwrap(),
            "--profile",
            profile.to_str().unwrap(),
            "--concurrency",
            "4",
        ],
    );
    let id = wait_for_done(dir.path(), 16);
    child.kill().unwrap();
    let killed = child.wait_with_output().unwrap();
    // The id was printed before anything was sent: a killed batch leaves the way to resume it.
    let stderr = String::from_utf8_lossy(&killed.stderr);
    assert!(
        stderr.contains(&format!(
            "batch {id}: working it (Ctrl-C pauses; after a crash: retryscope batch --resume {id} --data-dir "
        )),
        "{stderr}"
    );

    let at_kill = items(dir.path(), &id);
    let done_at_kill: Vec<u64> = at_kill
        .iter()
        .filter(|i| i.state == BatchItemState::Done)
        .map(|i| i.position)
        .collect();
    let running_at_kill: Vec<(u64, String)> = at_kill
        .iter()
        .filter(|i| i.state == BatchItemState::Running)
        .map(|i| (i.position, i.run_id.clone().unwrap()))
        .collect();
    assert!(
        done_at_kill.len() >= 16 && done_at_kill.len() < 40,
        "{at_kill:?}"
    );

    let out = retryscope(dir.path())
        .args(["batch", "--resume", &id[..13]])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("batch {id}: 40 items: 40 done, 0 error")),
        "{stdout}"
    );

    let after = items(dir.path(), &id);
    assert!(
        after.iter().all(|i| i.state == BatchItemState::Done),
        "{after:?}"
    );
    let log = demo.server.log();
    let hits = |p: u64| {
        log.iter()
            .filter(|e| e.path.ends_with(&format!("&n={p}")))
            .count()
    };
    for p in 0..40 {
        assert!(hits(p) >= 1, "item {p} was sent");
    }
    for p in &done_at_kill {
        assert_eq!(
            hits(*p),
            1,
            "item {p} was done before the kill and never sent again"
        );
    }
    // The partial runs of items in flight at the kill are kept, marked interrupted; the item
    // now names its new run.
    let history = HistoryStore::open_in(dir.path()).unwrap();
    for (p, old_run) in &running_at_kill {
        // A run whose start the writer had not committed yet (its first millisecond) is not
        // in the history at all; every other one is kept, marked interrupted.
        if let Some(run) = history.run(old_run).unwrap() {
            assert_eq!(run.run.outcome, Some(OutcomeKind::Interrupted), "item {p}");
        }
        assert_ne!(
            after[usize::try_from(*p).unwrap()].run_id.as_deref(),
            Some(old_run.as_str())
        );
    }
}

#[test]
fn ctrl_c_pauses_with_exit_130_and_prints_the_resume_command() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let list = slow_list(&demo, dir.path(), 30, 200);
    let child = spawn_batch(dir.path(), &[list.to_str().unwrap(), "--concurrency", "2"]);
    let id = wait_for_done(dir.path(), 2);
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(&format!("resume with: retryscope batch --resume {id}")),
        "{stderr}"
    );
    let now = items(dir.path(), &id);
    assert!(
        now.iter().all(|i| i.state != BatchItemState::Running),
        "{now:?}"
    );
    assert!(now.iter().any(|i| i.state == BatchItemState::Pending));
}

#[test]
fn errors_exit_1_and_list_and_show_read_the_queue() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let out = batch_of_lines(
        dir.path(),
        &format!(
            "{{\"url\": \"{}\"}}\n{{\"url\": \"{}\", \"name\": \"missing\"}}\n",
            demo.url("/status/200?key=a"),
            demo.url("/status/404?key=b")
        ),
        &["--expect-status", "200-299"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("2 items: 1 done, 1 error"), "{stdout}");
    assert!(
        stdout.contains("#2     error"),
        "the failed item is listed: {stdout}"
    );
    assert!(stdout.contains("missing"), "{stdout}");

    let out = retryscope(dir.path())
        .args(["batch", "list"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(listed.contains("2 items: 1 done, 1 error"), "{listed}");
    assert_eq!(
        listed.split_whitespace().nth(3),
        Some("finished"),
        "a state word per batch: {listed}"
    );
    let id = listed.split_whitespace().next().unwrap().to_owned();

    let out = retryscope(dir.path())
        .args(["batch", "show", &id, "--json", "--state", "done"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "the batch and its one done item: {text}");
    assert_eq!(
        lines[0]["options"]["assertions"].as_array().unwrap().len(),
        1,
        "{text}"
    );
    assert_eq!(lines[1]["state"], "done");
    let run = lines[1]["run_id"].as_str().unwrap();
    let shown = retryscope(dir.path())
        .args(["history", "show", run])
        .output()
        .unwrap();
    assert!(
        shown.status.success(),
        "the item's run opens in the history"
    );
}

/// `--idempotency-key` gives each item one key of its own, the same on every attempt (so its
/// POST is retried on 503 as with any Idempotency-Key), and stores the choice with the batch.
#[test]
fn idempotency_keys_are_stable_per_item_and_stored_with_the_batch() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let line = |key: &str| {
        format!(
            "{{\"method\": \"POST\", \"url\": \"{}\", \"body\": \"x\"}}\n",
            demo.url(&format!("/status/503?times=1&key={key}"))
        )
    };
    let out = batch_of_lines(
        dir.path(),
        &format!("{}{}", line("first"), line("second")),
        &["--idempotency-key", "--builtin", "aws-standard"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let id = queue(dir.path()).list(10).unwrap()[0].id.clone();
    let keys = |which: &str| -> Vec<String> {
        demo.server
            .log()
            .iter()
            .filter(|e| e.key == which)
            .map(|e| e.header("idempotency-key").unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(
        keys("first"),
        vec![format!("retryscope-{id}-0"); 2],
        "retried, same key"
    );
    assert_eq!(keys("second"), vec![format!("retryscope-{id}-1"); 2]);
    assert!(
        queue(dir.path())
            .batch(&id)
            .unwrap()
            .options
            .idempotency_keys
    );
}

/// A batch whose item 1 (a POST) was in flight at a crash, and items 2 (a GET, also in flight)
/// and 3 (a POST, not started) pending; the POSTs are keyed by `tag`.
fn crashed_batch(dir: &Path, demo: &Demo, tag: &str) -> String {
    let mut q = queue(dir);
    let item = |method: &str, key: &str| {
        let mut request =
            retryscope::model::RequestSpec::get(demo.url(&format!("/status/200?n={tag}-{key}")));
        request.method = method.into();
        retryscope::model::BatchRequest {
            name: None,
            request,
            profile: None,
            source_line: None,
        }
    };
    let id = q
        .create(
            None,
            &retryscope::profile::builtin("aws-standard").unwrap(),
            &retryscope::model::BatchOptions::default(),
            &[item("POST", "a"), item("GET", "b"), item("POST", "c")],
        )
        .unwrap();
    q.mark_running(&id, 0, None).unwrap();
    q.mark_running(&id, 1, None).unwrap();
    id
}

/// A resume lists the non-idempotent items that were in flight before sending them again, and
/// `--skip-interrupted` ends them cancelled instead.
#[test]
fn a_resume_names_interrupted_posts_and_can_skip_them() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let sent = |n: &str| {
        let query = format!("n={n}");
        demo.server
            .log()
            .iter()
            .filter(|e| e.path.ends_with(&query))
            .count()
    };

    let id = crashed_batch(dir.path(), &demo, "said");
    let out = retryscope(dir.path())
        .args(["batch", "--resume", &id])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stderr}{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        stderr.contains("1 item in flight when the batch stopped was not idempotent and may have reached the server already"),
        "{stderr}"
    );
    assert!(stderr.contains("  #1 POST "), "{stderr}");
    assert!(
        !stderr.contains("#2 GET") && !stderr.contains("#3 POST"),
        "{stderr}"
    );
    assert_eq!((sent("said-a"), sent("said-b"), sent("said-c")), (1, 1, 1));

    let id = crashed_batch(dir.path(), &demo, "skip");
    let out = retryscope(dir.path())
        .args(["batch", "--resume", &id, "--skip-interrupted"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ending it cancelled"), "{stderr}");
    assert_eq!((sent("skip-a"), sent("skip-b"), sent("skip-c")), (0, 1, 1));
    let first = &items(dir.path(), &id)[0];
    assert_eq!(first.state, BatchItemState::Cancelled);
    assert!(
        first
            .reason
            .as_deref()
            .unwrap_or("")
            .contains("--skip-interrupted"),
        "{first:?}"
    );
    // It ran to its end: `finished` (with a cancelled item), not cancelled by the user.
    let listed = retryscope(dir.path())
        .args(["batch", "list"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    let line = listed.lines().find(|l| l.starts_with(&id)).unwrap();
    assert!(line.contains("  finished  "), "{line}");
    let again = retryscope(dir.path())
        .args(["batch", "--resume", &id])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("batch {id} is finished")),
        "{stderr}"
    );
}

/// An item ended by `--skip-interrupted` keeps the attempt that was in flight when its batch
/// was killed: the count its run recorded, as `history` counts it.
#[test]
fn a_skipped_item_keeps_the_attempt_it_had_in_flight() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let line = format!(
        "{{\"url\": \"{}\", \"method\": \"POST\"}}\n",
        demo.url("/slow?ms=60000")
    );
    let list = dir.path().join("list.jsonl");
    std::fs::write(&list, line).unwrap();
    let mut child = spawn_batch(dir.path(), &[list.to_str().unwrap()]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let id = loop {
        // The attempt in flight is committed to the history before the kill.
        if dir.path().join("history.sqlite3").exists()
            && let Ok(list) = queue(dir.path()).list(1)
            && let Some(b) = list.first()
            && let Some(run_id) = items(dir.path(), &b.id)[0].run_id.clone()
            && let Ok(history) = HistoryStore::open_in(dir.path())
            && let Ok(Some(run)) = history.run(&run_id)
            && run.run.attempts == 1
        {
            break b.id.clone();
        }
        assert!(Instant::now() < deadline, "the attempt never started");
        std::thread::sleep(Duration::from_millis(10));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let out = retryscope(dir.path())
        .args(["batch", "--resume", &id, "--skip-interrupted"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let item = &items(dir.path(), &id)[0];
    assert_eq!(
        (item.state, item.attempts),
        (BatchItemState::Cancelled, 1),
        "{item:?}"
    );
    let out = retryscope(dir.path())
        .args(["batch", "show", &id])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("#1     cancelled  1 attempt "), "{stdout}");
}

#[test]
fn a_malformed_list_queues_nothing_and_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = batch_of_lines(
        dir.path(),
        "{\"url\": \"http://127.0.0.1:9/a\"}\n{\"url\": 3}\n",
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("list.jsonl:2:9: "), "{stderr}");
    assert_eq!(
        stderr.matches("2:9").count() + stderr.matches("line 2, column 9").count(),
        1,
        "the bad line is reported once: {stderr}"
    );
    assert!(
        queue(dir.path()).list(10).unwrap().is_empty(),
        "nothing was queued"
    );
}

/// A line with more headers than a request may send is a bad line (it used to panic the runner
/// at send, and every resume again); with `--skip-bad-lines` the other lines are worked.
#[test]
fn a_line_past_the_header_limit_is_a_bad_line_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let demo = Demo::start();
    let headers: serde_json::Map<String, serde_json::Value> = (0..33_000)
        .map(|i| (format!("X-H{i}"), "v".into()))
        .collect();
    let big = serde_json::json!({"url": demo.url("/status/200"), "headers": headers});
    let lines = format!("{big}\n{{\"url\": \"{}\"}}\n", demo.url("/status/200"));
    let out = batch_of_lines(dir.path(), &lines, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("list.jsonl:1:12: 33000 headers is too many"),
        "{stderr}"
    );
    assert!(queue(dir.path()).list(10).unwrap().is_empty());
    let out = batch_of_lines(dir.path(), &lines, &["--skip-bad-lines"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A folder given as the list says so, and what `batch` takes instead.
#[test]
fn a_folder_given_as_the_list_is_named_as_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = retryscope(dir.path())
        .arg("batch")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: cannot read the list: it is a folder; batch takes a file of requests (JSON Lines, CSV, curl commands or HAR)",
            dir.path().display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("list format"), "{stderr}");
}

#[test]
fn a_csv_list_with_a_bad_line_is_queued_when_asked_and_reported_as_csv_and_junit() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.csv");
    std::fs::write(
        &list,
        format!(
            "name,method,url\nok,GET,{}\nbad,GET,not a url\nmissing,GET,{}\n",
            demo.url("/status/200?key=csv-a"),
            demo.url("/status/404?key=csv-b")
        ),
    )
    .unwrap();
    // Refused whole by default, naming the line and the flag that would queue the rest.
    let out = retryscope(dir.path())
        .args(["batch", list.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("list.csv:3"), "{stderr}");
    assert!(stderr.contains("--skip-bad-lines"), "{stderr}");
    assert!(queue(dir.path()).list(10).unwrap().is_empty());

    let csv_report = dir.path().join("results.csv");
    let out = retryscope(dir.path())
        .args([
            "batch",
            list.to_str().unwrap(),
            "--skip-bad-lines",
            "--report",
        ])
        .arg(&csv_report)
        .args(["--expect-status", "200"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "one item fails its assertion: {stderr}"
    );
    assert!(
        stderr.contains("(skipped)"),
        "the skipped line is named: {stderr}"
    );
    let mut reader = csv::Reader::from_path(&csv_report).unwrap();
    let header = reader.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2, "the two good lines");
    let state = header.iter().position(|h| h == "state").unwrap();
    assert_eq!((&rows[0][state], &rows[1][state]), ("done", "error"));

    let id = queue(dir.path()).list(10).unwrap()[0].id.clone();
    let junit = dir.path().join("results.xml");
    // A finished batch is not resumed (exit 2), but the report asked for is written.
    let out = retryscope(dir.path())
        .args(["batch", "--resume", &id, "--report"])
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase").count(), 2, "{xml}");
    assert_eq!(xml.matches("<failure").count(), 1, "{xml}");
    assert!(xml.contains("missing"), "{xml}");

    let out = retryscope(dir.path())
        .args(["batch", list.to_str().unwrap(), "--report"])
        .arg(dir.path().join("results.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--report: name a .csv, .jsonl or .xml"));
}

/// `--resume ID` with `--concurrency` / `--rate-per-host` works the batch with them and stores
/// them (a later resume and `batch show` see them); without them the stored values stay.
#[test]
fn resume_honours_concurrency_and_rate_flags_and_stores_them() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let list = slow_list(&demo, dir.path(), 2, 1);
    let out = retryscope(dir.path())
        .args(["batch", list.to_str().unwrap(), "--concurrency", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let id = queue(dir.path()).list(1).unwrap()[0].id.clone();
    assert_eq!(queue(dir.path()).batch(&id).unwrap().options.concurrency, 1);
    // Item 2 back in the queue, as a pause leaves it, so there is something to resume.
    let put_back = || {
        let pending = retryscope::store::ItemEnd {
            state: BatchItemState::Pending,
            attempts: 0,
            last_status: None,
            error_kind: None,
            reason: String::new(),
        };
        queue(dir.path()).finish(&id, 1, &pending).unwrap();
    };
    put_back();

    let out = retryscope(dir.path())
        .args([
            "batch",
            "--resume",
            &id,
            "--concurrency",
            "3",
            "--rate-per-host",
            "50",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let options = queue(dir.path()).batch(&id).unwrap().options;
    assert_eq!(
        (options.concurrency, options.rate_per_host),
        (3, Some(50.0))
    );

    put_back();
    let out = retryscope(dir.path())
        .args(["batch", "--resume", &id])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let options = queue(dir.path()).batch(&id).unwrap().options;
    assert_eq!(
        (options.concurrency, options.rate_per_host),
        (3, Some(50.0))
    );

    let out = retryscope(dir.path())
        .args(["batch", "--resume", &id, "--concurrency", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// `--resume ID --report FILE` refuses a FILE that is the list the batch was queued from
/// (exit 2, the list unchanged), as a new batch refuses its own list.
#[test]
fn a_resumed_batch_never_writes_its_report_over_its_own_list() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("own.jsonl");
    let list = format!("{{\"url\": \"{}\"}}\n", demo.url("/status/200?case=own"));
    std::fs::write(&path, &list).unwrap();
    let out = retryscope(dir.path())
        .args(["batch", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = retryscope(dir.path())
        .args(["batch", "list"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    let id = listed.split_whitespace().next().unwrap().to_owned();
    let out = retryscope(dir.path())
        .args(["batch", "--resume", &id, "--report", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--report names the list this batch was queued from"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        list,
        "the list is unchanged"
    );
}

/// `batch list` and `batch show` read; on a data folder with nothing queued they create
/// nothing (neither the folder nor the database).
#[test]
fn reading_an_empty_data_folder_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("not-yet");
    let out = retryscope(&missing)
        .args(["batch", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no batches yet"));
    let out = retryscope(&missing)
        .args(["batch", "show", "019a"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing was queued"));
    assert!(!missing.exists(), "no folder was created");
}

/// `--expect-body ''` would pass every body: refused before anything is read or queued.
#[test]
fn an_empty_expect_body_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("l.jsonl");
    std::fs::write(&list, "{\"url\": \"http://127.0.0.1:9/a\"}\n").unwrap();
    let out = retryscope(dir.path())
        .args(["batch", list.to_str().unwrap(), "--expect-body", ""])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--expect-body")
            && stderr.contains("an empty or blank text matches (nearly) every body"),
        "{stderr}"
    );
    assert!(
        !dir.path().join(retryscope::store::HISTORY_FILE).exists(),
        "nothing queued"
    );
}

/// Queues and works a batch of two items that succeed; returns its id.
fn finished_batch(demo: &Demo, dir: &Path) -> String {
    let line = format!("{{\"url\": \"{}\"}}\n", demo.url("/status/200"));
    let out = batch_of_lines(dir, &line.repeat(2), &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    queue(dir).list(10).unwrap()[0].id.clone()
}

#[test]
fn batch_delete_removes_a_finished_batch_and_names_an_unknown_one() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let id = finished_batch(&demo, dir.path());
    let out = retryscope(dir.path())
        .args(["batch", "delete", &id])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout.contains(&format!("deleted batch {id} (2 items)")),
        "{stdout}"
    );
    assert!(queue(dir.path()).list(10).unwrap().is_empty());
    let out = retryscope(dir.path())
        .args(["batch", "delete", &id])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // The runs stay in the history.
    let history = HistoryStore::open_in(dir.path()).unwrap();
    let runs = history
        .list(&retryscope::store::RunFilter::default())
        .unwrap();
    assert_eq!(runs.len(), 2);
}

/// A resume of a batch with no item left says it is finished, with its counts, sends nothing
/// and exits 2 (as a resume of a finished watch does).
#[test]
fn resuming_a_finished_batch_says_there_is_nothing_to_resume() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let id = finished_batch(&demo, dir.path());
    let sent = demo.server.log().len();
    let out = retryscope(dir.path())
        .args(["batch", "--resume", &id[..13]])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: batch {id} is finished (2 items: 2 done, 0 error, 0 cancelled, 0 pending): nothing to resume"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("working it"), "{stderr}");
    assert!(stdout.is_empty(), "no results printed again: {stdout}");
    assert_eq!(demo.server.log().len(), sent, "nothing sent");
}

#[test]
fn an_item_naming_a_built_in_that_hides_a_library_profile_is_warned_about() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let library = config.path().join("retryscope").join("profiles");
    std::fs::create_dir_all(&library).unwrap();
    std::fs::write(library.join("azure-sdk.json"), FAST_PROFILE).unwrap();
    let path = dir.path().join("list.jsonl");
    let line = format!(
        "{{\"url\": \"{}\", \"profile\": \"azure-sdk\"}}\n",
        demo.url("/status/200")
    );
    std::fs::write(&path, line).unwrap();
    let out = retryscope(dir.path())
        .env("XDG_CONFIG_HOME", config.path())
        .args(["batch", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "warning: the built-in profile `azure-sdk` hides the library profile of that name (pick it by `Fast`, or rename it): "
        ) && stderr.contains("azure-sdk.json"),
        "{stderr}"
    );
}

#[test]
fn an_item_naming_a_library_profile_that_does_not_load_gets_its_load_error() {
    let dir = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let library = config.path().join("retryscope").join("profiles");
    std::fs::create_dir_all(&library).unwrap();
    std::fs::write(
        library.join("broken.json"),
        "{\"name\": \"broken\",\n  \"max_retries\": }",
    )
    .unwrap();
    let path = dir.path().join("list.jsonl");
    std::fs::write(
        &path,
        "{\"url\": \"http://127.0.0.1:9/a\", \"profile\": \"broken\"}\n{\"url\": \"http://127.0.0.1:9/b\", \"profile\": \"nope\"}\n",
    )
    .unwrap();
    let out = retryscope(dir.path())
        .env("XDG_CONFIG_HOME", config.path())
        .args(["batch", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("list.jsonl:1:44: library profile `broken` does not load: ")
            && stderr.contains("broken.json:2:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("list.jsonl:2:44: unknown profile `nope`"),
        "{stderr}"
    );
}

#[test]
fn assertion_messages_names_and_reports_of_a_batch_keep_its_secrets_masked() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.jsonl");
    // /echo answers with the request's headers, so a failed JSON assertion quotes them.
    std::fs::write(
        &list,
        format!(
            "{{\"name\": \"echo SECRETTOK8\", \"url\": \"{}\", \"headers\": {{\"Authorization\": \"Bearer SECRETTOK8\", \"Cookie\": \"c=SECRETCK8\"}}}}\n",
            demo.url("/echo?case=masked-assert")
        ),
    )
    .unwrap();
    let report = dir.path().join("out.xml");
    let out = retryscope(dir.path())
        .args([
            "batch",
            list.to_str().unwrap(),
            "--expect-json",
            "/headers=1",
        ])
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "the assertion fails: {stderr}");
    let id = queue(dir.path()).list(1).unwrap()[0].id.clone();
    let shown = retryscope(dir.path())
        .args(["batch", "show", &id])
        .output()
        .unwrap();
    let printed = format!(
        "{}{}{}{}",
        String::from_utf8_lossy(&out.stdout),
        stderr,
        String::from_utf8_lossy(&shown.stdout),
        std::fs::read_to_string(&report).unwrap()
    );
    assert!(printed.contains("--expect-json"), "{printed}");
    for secret in ["SECRETTOK8", "SECRETCK8"] {
        assert!(!printed.contains(secret), "{secret} in {printed}");
    }
    let db = std::fs::read(dir.path().join("history.sqlite3")).unwrap();
    let wal = std::fs::read(dir.path().join("history.sqlite3-wal")).unwrap_or_default();
    for secret in ["SECRETTOK8", "SECRETCK8"] {
        for bytes in [&db, &wal] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{secret} in the database"
            );
        }
    }
}

#[test]
fn an_assertion_holding_a_secret_an_item_sends_is_refused_before_anything_is_stored() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let out = batch_of_lines(
        dir.path(),
        &format!(
            "{{\"url\": \"{}\"}}\n{{\"url\": \"{}\", \"headers\": {{\"Authorization\": \"Bearer SECRETTOK9\"}}}}\n",
            demo.url("/echo?case=plain"),
            demo.url("/echo?case=secret-assert")
        ),
        &["--expect-body", "Bearer SECRETTOK9"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "error: the assertion --expect-body \"***\" holds a secret value that item 2 sends"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("SECRETTOK9"), "{stderr}");
    assert!(
        queue(dir.path()).list(10).unwrap().is_empty(),
        "nothing queued"
    );
    assert!(demo.server.log().is_empty(), "nothing sent");
    let db = std::fs::read(dir.path().join("history.sqlite3")).unwrap_or_default();
    let wal = std::fs::read(dir.path().join("history.sqlite3-wal")).unwrap_or_default();
    for bytes in [&db, &wal] {
        assert!(
            !bytes.windows(10).any(|w| w == b"SECRETTOK9"),
            "the secret is in the database"
        );
    }
    // Text that is not the secret is an assertion like any other: queued and worked.
    let list = dir.path().join("list.jsonl");
    let out = retryscope(dir.path())
        .args(["batch", list.to_str().unwrap(), "--expect-body", "Bearer"])
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let batches = queue(dir.path()).list(10).unwrap();
    assert_eq!(batches.len(), 1);
    assert_eq!(
        batches[0].options.assertions[0].body_contains.as_deref(),
        Some("Bearer")
    );
    assert_eq!(demo.server.log().len(), 2, "both items sent");
}

#[test]
fn an_item_that_gave_up_and_fails_an_assertion_says_both_in_show_and_every_report() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("fast.json");
    std::fs::write(&profile, FAST_PROFILE).unwrap();
    let list = dir.path().join("list.jsonl");
    std::fs::write(
        &list,
        format!(
            "{{\"url\": \"{}\"}}\n",
            demo.url("/status/503?case=gave-up")
        ),
    )
    .unwrap();
    let csv_report = dir.path().join("out.csv");
    let out = retryscope(dir.path())
        .args(["batch", list.to_str().unwrap(), "--expect-status", "200"])
        .arg("--profile")
        .arg(&profile)
        .arg("--report")
        .arg(&csv_report)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let assertion = "assertion --expect-status 200 failed: status 503, expected one of 200";
    let id = queue(dir.path()).list(1).unwrap()[0].id.clone();
    let item = &items(dir.path(), &id)[0];
    assert_eq!(item.attempts, 3, "{item:?}");
    let reason = item.reason.clone().unwrap();
    assert!(reason.starts_with("gave up after 3 attempts"), "{reason}");
    assert!(reason.ends_with(&format!("; {assertion}")), "{reason}");

    let shown = retryscope(dir.path())
        .args(["batch", "show", &id])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains(&reason), "{shown}");

    let mut reader = csv::Reader::from_path(&csv_report).unwrap();
    let header = reader.headers().unwrap().clone();
    let row = reader.records().next().unwrap().unwrap();
    let cell = |name: &str| row[header.iter().position(|h| h == name).unwrap()].to_owned();
    assert_eq!(
        (cell("reason"), cell("assertion")),
        (reason.clone(), assertion.to_owned())
    );

    // The same batch's other reports (a resume of a finished batch sends nothing, exit 2).
    let jsonl = dir.path().join("out.jsonl");
    let xml = dir.path().join("out.xml");
    for report in [&jsonl, &xml] {
        retryscope(dir.path())
            .args(["batch", "--resume", &id, "--report"])
            .arg(report)
            .assert()
            .code(2);
    }
    let line: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&jsonl).unwrap().trim()).unwrap();
    assert_eq!(line["reason"], reason.as_str());
    assert_eq!(line["assertion"], assertion);
    let junit = std::fs::read_to_string(&xml).unwrap();
    assert!(
        junit.contains(&format!("message=\"{assertion}\"")),
        "{junit}"
    );
    let run_words = reason.strip_suffix(&format!("; {assertion}")).unwrap();
    assert!(
        junit.contains(&format!("reason: {run_words}\n")),
        "the run's words too: {junit}"
    );
    assert_eq!(junit.matches(assertion).count(), 1, "said once: {junit}");
    assert_eq!(demo.server.log().len(), 3, "the resumes sent nothing");
}

#[test]
fn timeout_ms_ends_an_item_that_never_answers_and_is_kept_for_a_resume() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("once.json");
    std::fs::write(
        &profile,
        br#"{
  "format": "retryscope-profile/1",
  "name": "once",
  "max_retries": 1,
  "retry_on": { "status": [503], "errors": ["timeout"] },
  "backoff": { "strategy": "fixed", "base_delay_ms": 1 }
}"#,
    )
    .unwrap();
    let list = dir.path().join("list.jsonl");
    std::fs::write(
        &list,
        format!(
            "{{\"url\": \"{}\"}}\n{{\"url\": \"{}\"}}\n",
            demo.url("/hang?case=batch-timeout"),
            demo.url("/status/200?case=batch-timeout-ok")
        ),
    )
    .unwrap();
    let started = Instant::now();
    let out = retryscope(dir.path())
        .args(["batch", list.to_str().unwrap(), "--timeout-ms", "200"])
        .arg("--profile")
        .arg(&profile)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the hanging item is an error: {stderr}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "it did not hang"
    );
    let id = queue(dir.path()).list(1).unwrap()[0].id.clone();
    let all = items(dir.path(), &id);
    assert_eq!(all[0].state, BatchItemState::Error);
    assert_eq!(all[0].attempts, 2, "timed out twice: {:?}", all[0].reason);
    assert_eq!(all[1].state, BatchItemState::Done);
    let stored = queue(dir.path()).batch(&id).unwrap();
    assert_eq!(
        stored.profile.timeouts.total_ms,
        Some(200),
        "kept for --resume"
    );
    retryscope(dir.path())
        .args(["batch", list.to_str().unwrap(), "--timeout-ms", "0"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--timeout-ms must be greater than 0",
        ));
}

/// A rate so low an item would wait years for its host's turn is refused, naming the flag.
#[test]
fn a_rate_per_host_below_one_an_hour_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("list.jsonl");
    std::fs::write(&path, "{\"url\": \"http://127.0.0.1:9/a\"}\n").unwrap();
    let out = retryscope(dir.path())
        .args([
            "batch",
            path.to_str().unwrap(),
            "--rate-per-host",
            "0.0000001",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--rate-per-host"), "{stderr}");
    assert!(stderr.contains("at least 1 per hour"), "{stderr}");
    assert!(stderr.contains("one item start every 116 days"), "{stderr}");
}

/// `retryscope batch … --report FILE | head -0`: the batch is worked and its report written
/// although stdout is gone; the exit code says the pipe closed.
#[test]
fn a_closed_stdout_still_writes_the_report() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let list = slow_list(&demo, dir.path(), 3, 1);
    let report = dir.path().join("results.csv");
    let mut child = spawn_batch(
        dir.path(),
        &[list.to_str().unwrap(), "--report", report.to_str().unwrap()],
    );
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    assert!(stderr.contains("report written: "), "{stderr}");
    let rows = std::fs::read_to_string(&report).unwrap();
    assert_eq!(rows.lines().count(), 4, "a header and 3 items: {rows}");
}

/// Another program holding the database's write lock past the 5 s wait stops the batch with a
/// sentence saying so, not SQLite's bare words, and the command that resumes it; the batch
/// then resumes to its end once the lock is gone.
#[test]
fn a_batch_stopped_by_a_held_lock_says_so_and_how_to_resume() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let list = slow_list(&demo, dir.path(), 20, 100);
    let profile = dir.path().join("fast.json");
    std::fs::write(&profile, FAST_PROFILE).unwrap();
    let child = spawn_batch(
        dir.path(),
        &[
            list.to_str().unwrap(),
            "--profile",
            profile.to_str().unwrap(),
            "--concurrency",
            "1",
        ],
    );
    let id = wait_for_done(dir.path(), 1);
    let holder = rusqlite::Connection::open(dir.path().join("history.sqlite3")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let out = child.wait_with_output().unwrap();
    holder.execute_batch("ROLLBACK").unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("error: batch {id} stopped: another program held the history database locked for more than 5 s")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("resume with: retryscope batch --resume {id}")),
        "{stderr}"
    );
    assert!(!stderr.contains("database is locked"), "{stderr}");
    let resumed = retryscope(dir.path())
        .args(["batch", "--resume", &id])
        .output()
        .unwrap();
    assert_eq!(
        resumed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(
        items(dir.path(), &id)
            .iter()
            .all(|i| i.state == BatchItemState::Done)
    );
}
