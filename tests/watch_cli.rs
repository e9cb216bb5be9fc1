//! `retryscope watch` against the demo server on 127.0.0.1: every slot a run recorded under the
//! watch, `watch list` / `watch show` and `report --watch` agree with the history, a signal
//! pauses the watch and `--resume` carries it on, recording the slots it missed.

mod demo_support;

use demo_support::{Demo, retryscope};
use retryscope::store::HistoryStore;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The watch id in `watch ID of GET …`, the first line a watch prints.
fn watch_id(stdout: &str) -> String {
    let first = stdout.lines().next().expect("a first line");
    let id = first
        .strip_prefix("watch ")
        .and_then(|rest| rest.split_whitespace().next())
        .expect("`watch ID of …`");
    assert_eq!(id.len(), 36, "a UUID: {first}");
    id.to_owned()
}

fn stdout_of(dir: &Path, args: &[&str], code: i32) -> String {
    let out = retryscope(dir)
        .args(args)
        .assert()
        .code(code)
        .get_output()
        .clone();
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn show_json(dir: &Path, id: &str) -> serde_json::Value {
    serde_json::from_str(&stdout_of(dir, &["watch", "show", id, "--json"], 0)).expect("JSON")
}

#[test]
fn every_slot_is_a_run_recorded_under_the_watch_and_watch_show_agrees() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = demo.url("/status/200");
    // A slot more than half an interval late is missed, never sent late: on a loaded machine
    // one may be, so the test counts runs and missed slots, and checks that all agree.
    let out = stdout_of(
        dir.path(),
        &["watch", "--every", "250ms", "--count", "5", &url],
        0,
    );
    let id = watch_id(&out);
    let lock = dir.path().join("locks").join(format!("watch-{id}.lock"));
    assert!(!lock.exists(), "a finished watch leaves no lock file");
    let shown = show_json(dir.path(), &id);
    let runs = shown["watch"]["runs"].as_u64().expect("runs");
    let missed = shown["watch"]["missed"].as_u64().expect("missed");
    assert_eq!(runs + missed, 5, "every slot is a run or missed: {shown}");
    assert!(runs >= 1, "{out}");
    let run_lines = out.lines().filter(|l| l.contains("  succeeded  ")).count();
    assert_eq!(run_lines as u64, runs, "one line per run:\n{out}");
    assert!(out.contains(&format!("watch {id}: finished")), "{out}");
    assert!(
        out.contains(&format!("{runs} runs · success 100.0 %")),
        "the summary:\n{out}"
    );

    // The history holds the watch's runs, each naming the watch, each one request sent.
    let store = HistoryStore::open_in(dir.path()).expect("history");
    let ids = watch_run_ids(&store, &id);
    assert_eq!(ids.len() as u64, runs);
    for run_id in &ids {
        let run = store.run(run_id).expect("read").expect("stored");
        assert_eq!(run.run.watch_id.as_deref(), Some(id.as_str()));
    }
    assert_eq!(demo.server.log().len() as u64, runs, "one request per run");

    // `watch show` agrees with the history; `watch list` names the watch.
    assert_eq!(shown["watch"]["state"], "finished");
    assert_eq!(shown["figures"]["runs"]["total"], runs);
    let slot_runs: Vec<&str> = shown["slots"]
        .as_array()
        .expect("slots")
        .iter()
        .filter_map(|s| s["run_id"].as_str())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    let mut slots_sorted = slot_runs.clone();
    slots_sorted.sort_unstable();
    assert_eq!(slots_sorted, sorted);
    let listed = stdout_of(dir.path(), &["watch", "list"], 0);
    assert!(
        listed.contains(&id) && listed.contains(&format!("{runs} runs, {missed} missed")),
        "{listed}"
    );
    let listed: serde_json::Value =
        serde_json::from_str(&stdout_of(dir.path(), &["watch", "list", "--json"], 0))
            .expect("JSON list");
    assert_eq!(listed["format"], "retryscope-watches/1");
    assert_eq!(listed["watches"][0]["id"], id.as_str());
    assert_eq!(
        listed["watches"][0], shown["watch"],
        "the record as `watch show` gives it"
    );

    // `report --watch` and `whatif --watch` select the watch's runs only.
    retryscope(dir.path())
        .args(["run", "--no-body", &demo.url("/status/200?key=other")])
        .assert()
        .success();
    let report: serde_json::Value = serde_json::from_str(&stdout_of(
        dir.path(),
        &["report", "--watch", &id, "--format", "json"],
        0,
    ))
    .expect("JSON report");
    assert_eq!(report["runs"]["total"], runs);
    let whatif = stdout_of(
        dir.path(),
        &["whatif", "--watch", &id, "--profiles", "azure-sdk"],
        0,
    );
    assert!(
        whatif.contains(&format!("what-if over {runs} recorded run")),
        "{whatif}"
    );
}

#[test]
fn a_watch_of_the_scheduled_outage_fails_in_its_window() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    // Down for the whole of every 10 s period: every run falls in the window.
    let url = demo.url("/outage?down_s=10&period_s=10&retry_after=0");
    let out = stdout_of(
        dir.path(),
        &[
            "watch",
            "--every",
            "250ms",
            "--count",
            "2",
            "--max-retries",
            "1",
            &url,
        ],
        1,
    );
    let id = watch_id(&out);
    let shown = show_json(dir.path(), &id);
    let runs = shown["watch"]["runs"].as_u64().expect("runs");
    assert!(runs >= 1, "{out}");
    assert_eq!(shown["figures"]["runs"]["failed"], runs, "{shown}");
    assert!(
        out.contains(&format!("{runs} runs · success 0.0 %")),
        "{out}"
    );
    assert!(out.contains("errors 503 ×"), "{out}");
    // Outside the window (no downtime): every run succeeds.
    let url = demo.url("/outage?down_s=0&period_s=10");
    let out = stdout_of(
        dir.path(),
        &["watch", "--every", "250ms", "--count", "1", &url],
        0,
    );
    assert!(out.contains("1 run · success 100.0 %"), "{out}");
}

/// A watch process, its stdout lines still to read and the watch id.
type Spawned = (
    std::process::Child,
    std::io::Lines<BufReader<std::process::ChildStdout>>,
    String,
);

/// `retryscope watch ARGS` in the background: the process, its stdout lines after the first
/// and the watch id.
#[cfg(unix)]
fn spawn(dir: &Path, args: &[&str]) -> Spawned {
    spawn_with(dir, args, std::process::Stdio::inherit())
}

/// [`spawn`] with its stderr going to `stderr`.
fn spawn_with(dir: &Path, args: &[&str], stderr: std::process::Stdio) -> Spawned {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("retryscope"))
        .env("RETRYSCOPE_DATA_DIR", dir)
        .env("RETRYSCOPE_KEYRING", "memory")
        .arg("watch")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("spawn");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let id = watch_id(&lines.next().expect("a line").expect("UTF-8"));
    (child, lines, id)
}

/// `retryscope watch --every 200ms --count 10 URL` in the background, once its first run is
/// printed: the process, its remaining stdout lines and the watch id.
#[cfg(unix)]
fn spawn_watch(dir: &Path, url: &str) -> Spawned {
    let (child, mut lines, id) = spawn(dir, &["--every", "200ms", "--count", "10", url]);
    let run = lines.next().expect("a run line").expect("UTF-8");
    assert!(run.contains("#1  succeeded"), "{run}");
    (child, lines, id)
}

/// The history id of watch `id`'s first run once its first attempt has started (within 10 s).
#[cfg(unix)]
fn first_attempt_started(dir: &Path, id: &str) -> String {
    let began = std::time::Instant::now();
    loop {
        let store = HistoryStore::open_in(dir).expect("history");
        let started = watch_run_ids(&store, id).into_iter().find(|r| {
            store
                .run(r)
                .expect("read")
                .is_some_and(|s| s.run.attempt_started.is_some())
        });
        if let Some(run) = started {
            return run;
        }
        assert!(began.elapsed().as_secs() < 10, "attempt 1 never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(unix)]
fn signal(child: &std::process::Child, which: &str) {
    let sent = std::process::Command::new("kill")
        .args([which, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
}

#[cfg(unix)]
#[test]
fn a_watch_killed_mid_way_keeps_its_finished_runs_and_reads_interrupted_until_resumed() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, _lines, id) = spawn_watch(dir.path(), &demo.url("/status/200"));
    signal(&child, "-KILL");
    let _ = child.wait().expect("wait");
    let killed = show_json(dir.path(), &id);
    assert_eq!(
        killed["watch"]["state"], "interrupted",
        "its lock went with it"
    );
    assert!(
        killed["watch"]["runs"].as_u64().expect("runs") >= 1,
        "{killed}"
    );
    let out = stdout_of(dir.path(), &["watch", "--resume", &id], 0);
    assert!(out.contains(&format!("watch {id}: finished")), "{out}");
    let done = show_json(dir.path(), &id);
    let slots = done["slots"].as_array().expect("slots").len();
    assert_eq!(slots, 10, "every slot recorded: {done}");
}

#[cfg(unix)]
#[test]
fn sigterm_pauses_the_watch_and_resume_carries_it_on_recording_missed_slots() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, lines, id) = spawn_watch(dir.path(), &demo.url("/status/200"));
    signal(&child, "-TERM");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(143), "SIGTERM's exit code");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(
        rest.iter().any(|l| l == &format!("watch {id}: paused")),
        "{rest:?}"
    );
    let paused = show_json(dir.path(), &id);
    assert_eq!(paused["watch"]["state"], "paused");
    let ran_before = paused["watch"]["runs"].as_u64().expect("runs");
    assert!(ran_before >= 1);

    // A pause longer than a slot: the slots it spans are missed (down), the rest are sent.
    std::thread::sleep(std::time::Duration::from_millis(600));
    let out = stdout_of(dir.path(), &["watch", "--resume", &id], 0);
    assert!(out.contains("(resumed at slot"), "{out}");
    assert!(out.contains("missed (the watch was not running)"), "{out}");
    let done = show_json(dir.path(), &id);
    assert_eq!(done["watch"]["state"], "finished");
    let (runs, missed) = (
        done["watch"]["runs"].as_u64().expect("runs"),
        done["watch"]["missed"].as_u64().expect("missed"),
    );
    assert_eq!(runs + missed, 10, "every slot is a run or missed: {done}");
    assert!(missed >= 1 && runs > ran_before, "{done}");
    let store = HistoryStore::open_in(dir.path()).expect("history");
    assert_eq!(watch_run_ids(&store, &id).len() as u64, runs);
    // A finished watch is not resumed, nor an unknown one: usage errors (exit 2).
    let err = retryscope(dir.path())
        .args(["watch", "--resume", &id])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains("cannot be resumed"));
    let err = retryscope(dir.path())
        .args(["watch", "--resume", "nope"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&err).contains("no watch `nope`"));
}

#[test]
fn resume_refuses_flags_that_would_change_the_watch() {
    let dir = tempfile::tempdir().expect("tempdir");
    for flags in [
        &["--for", "1h"][..],
        &["--jitter", "10%"],
        &["--builtin", "aws-standard"],
        // Request flags beyond -H/-d/-X: each would change what is sent, so each is refused
        // rather than dropped.
        &["-u", "alice:pw123456"],
        &["-b", "a=b"],
        &["-F", "a=b"],
        &["--var", "p=status/500"],
        &["--env", "staging"],
        &["-k"],
        &["--cacert", "ca.pem"],
        &["--no-follow"],
        &["-L"],
        &["--location-trusted"],
        &["--max-redirs", "1"],
    ] {
        let out = retryscope(dir.path())
            .args(["watch", "--resume", "0193a7c2"])
            .args(flags)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("cannot be used with"),
            "{flags:?}: {stderr}"
        );
    }
}

/// The ids of watch `id`'s runs, oldest first, as the history's run query selects them.
fn watch_run_ids(store: &HistoryStore, id: &str) -> Vec<String> {
    let query = retryscope::store::RunQuery {
        watch_id: Some(id.to_owned()),
        ..Default::default()
    };
    let runs = store.page_runs(&query, 0, 100_000).expect("runs");
    runs.into_iter().map(|r| r.id).collect()
}

#[test]
fn each_run_of_a_watch_gets_its_own_uuid_and_idempotency_key() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = demo.url("/echo?id={{uuid}}");
    let out = stdout_of(
        dir.path(),
        &[
            "watch",
            "-X",
            "POST",
            "-d",
            "x",
            "--idempotency-key",
            "--every",
            "250ms",
            "--count",
            "3",
            &url,
        ],
        0,
    );
    let id = watch_id(&out);
    let store = HistoryStore::open_in(dir.path()).expect("history");
    let mut urls = Vec::new();
    let mut keys = Vec::new();
    for run_id in watch_run_ids(&store, &id) {
        let run = store.run(&run_id).expect("read").expect("stored").run;
        assert!(!run.request.url.contains("{{uuid}}"), "{}", run.request.url);
        urls.push(run.request.url);
        keys.push(run.request.idempotency_key.expect("a key"));
    }
    assert!(urls.len() >= 2, "{out}");
    for list in [&urls, &keys] {
        let mut distinct = list.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), list.len(), "one per run: {list:?}");
    }
    // The resume refuses output flags as a new watch does.
    let out = retryscope(dir.path())
        .args(["watch", "--resume", &id, "--json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn a_watch_whose_reader_goes_is_paused_not_killed() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, lines, id) = spawn_watch(dir.path(), &demo.url("/status/200"));
    // The reader goes (`| head -2`): the next line the watch writes finds the pipe closed.
    drop(lines);
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(141), "a closed stdout's exit code");
    let shown = show_json(dir.path(), &id);
    assert_eq!(shown["watch"]["state"], "paused", "{shown}");
    assert!(shown["watch"]["runs"].as_u64().expect("runs") >= 1);
}

#[test]
fn watch_show_reads_each_run_back_as_its_line_and_names_a_deleted_run() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = demo.url("/status/503");
    let args = [
        "watch",
        "--max-retries",
        "0",
        "--every",
        "250ms",
        "--count",
        "3",
        &url,
    ];
    let out = stdout_of(dir.path(), &args, 1);
    let id = watch_id(&out);
    let run_lines: Vec<&str> = out.lines().filter(|l| l.contains("  stopped  ")).collect();
    assert!(!run_lines.is_empty(), "{out}");
    // Each run as the live line printed it, its outcome's sentence included.
    let shown = stdout_of(dir.path(), &["watch", "show", &id], 0);
    for line in &run_lines {
        assert!(line.ends_with("  503  503 is not retryable"), "{line}");
        assert!(
            shown.lines().any(|l| l == *line),
            "{line}\nnot in:\n{shown}"
        );
    }

    // A run deleted from the history is named so, and no longer counted.
    let store = HistoryStore::open_in(dir.path()).expect("history");
    let ids = watch_run_ids(&store, &id);
    drop(store);
    stdout_of(dir.path(), &["history", "delete", &ids[0], "--yes"], 0);
    let shown = stdout_of(dir.path(), &["watch", "show", &id], 0);
    assert!(
        shown.contains(&format!("run {} (deleted from the history)", ids[0])),
        "{shown}"
    );
    assert!(!shown.contains("not recorded"), "{shown}");
    let json = show_json(dir.path(), &id);
    let runs = json["watch"]["runs"].as_u64().expect("runs");
    assert_eq!(runs, ids.len() as u64 - 1, "{json}");
    let missed = json["watch"]["missed"].as_u64().expect("missed");
    let listed = stdout_of(dir.path(), &["watch", "list"], 0);
    let counted = if runs == 1 {
        "1 run".to_owned()
    } else {
        format!("{runs} runs")
    };
    assert!(
        listed.contains(&format!("{counted}, {missed} missed")),
        "{listed}"
    );
}

/// Watch `--every 1s --count 3 URL` killed in its first run, then resumed just after slot 2 is
/// due (well within its 500 ms grace: sent as the watch is claimed): the resume's last line and
/// the summary line of `watch show`.
#[cfg(unix)]
fn killed_then_resumed_as_slot_2_is_due(dir: &Path, url: &str) -> (String, String) {
    let (mut child, _lines, id) = spawn(dir, &["--every", "1s", "--count", "3", url]);
    first_attempt_started(dir, &id);
    signal(&child, "-KILL");
    let _ = child.wait().expect("wait");
    let start = show_json(dir, &id)["watch"]["schedule"]["start_unix_ms"]
        .as_i64()
        .expect("start");
    let due = std::time::UNIX_EPOCH
        + std::time::Duration::from_millis(u64::try_from(start + 1_020).expect("after 1970"));
    if let Ok(wait) = due.duration_since(std::time::SystemTime::now()) {
        std::thread::sleep(wait);
    }
    let out = stdout_of(dir, &["watch", "--resume", &id], 0);
    assert!(out.contains("(resumed at slot 2, 1 run before)"), "{out}");
    let shown = stdout_of(dir, &["watch", "show", &id], 0);
    let summary = shown.lines().nth(2).expect("the summary line");
    assert!(summary.contains(" runs · success 100.0 %"), "{shown}");
    (
        out.lines().last().expect("a last line").to_owned(),
        summary.to_owned(),
    )
}

/// A resumed watch ends with the summary `watch show` prints: each run counted once, the one
/// killed in flight included, also when the resume's first run began before its earlier runs
/// were read (a race: four watches at once make it likely).
#[cfg(unix)]
#[test]
fn a_resumed_watch_ends_with_the_summary_watch_show_prints() {
    let demo = Demo::start();
    let url = demo.url("/slow?ms=300");
    std::thread::scope(|scope| {
        let trials: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let dir = tempfile::tempdir().expect("tempdir");
                    killed_then_resumed_as_slot_2_is_due(dir.path(), &url)
                })
            })
            .collect();
        for trial in trials {
            let (last, summary) = trial.join().expect("a trial");
            assert_eq!(last, summary, "the resume's summary");
        }
    });
}

/// An attempt cut off by the process's end counts as made, in the history's list, in `watch
/// show` and in the report's attempts per run alike.
#[cfg(unix)]
#[test]
fn an_interrupted_run_counts_its_attempt_in_flight_in_every_view() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, _lines, id) = spawn(
        dir.path(),
        &["--every", "1s", "--count", "1", &demo.url("/hang")],
    );
    let run_id = first_attempt_started(dir.path(), &id);
    signal(&child, "-KILL");
    let _ = child.wait().expect("wait");

    let listed = stdout_of(dir.path(), &["history", "list"], 0);
    let line = listed
        .lines()
        .find(|l| l.starts_with(&run_id))
        .expect("listed");
    assert!(line.contains("  interrupted  1 attempt  "), "{line}");
    let shown = stdout_of(dir.path(), &["watch", "show", &id], 0);
    assert!(shown.contains("  #1  unfinished  1 attempt  "), "{shown}");
    let report: serde_json::Value = serde_json::from_str(&stdout_of(
        dir.path(),
        &["report", "--watch", &id, "--format", "json"],
        0,
    ))
    .expect("JSON report");
    assert_eq!(
        report["attempts_per_run"]["histogram"],
        serde_json::json!({"1": 1}),
        "{report}"
    );
}

#[test]
fn a_watch_holding_secrets_with_no_os_keyring_is_warned_about_at_start() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = demo.url("/status/200");
    let out = retryscope(dir.path())
        .args(["watch", "-H", "Authorization: Bearer s3cr3t-token"])
        .args(["--every", "200ms", "--count", "1", &url])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "warning: the watch's runs carry secrets, and secrets are kept in memory only"
        ) && stderr.contains("after this process ends the watch cannot be resumed"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cr3t-token"), "{stderr}");
    // A watch without secrets says nothing of them.
    let out = retryscope(dir.path())
        .args(["watch", "--every", "200ms", "--count", "1", &url])
        .assert()
        .code(0)
        .get_output()
        .clone();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
}

/// Stopped, a watch whose secrets live in its process only says it cannot be resumed instead
/// of printing a `--resume` line that would fail.
#[cfg(unix)]
#[test]
fn a_watch_whose_secrets_live_in_memory_only_says_so_when_stopped() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = demo.url("/hang");
    let args = [
        "-H",
        "Authorization: Bearer s3cr3t-token",
        "--every",
        "200ms",
        "--count",
        "3",
        &url,
    ];
    let (child, lines, id) = spawn_with(dir.path(), &args, std::process::Stdio::piped());
    first_attempt_started(dir.path(), &id);
    signal(&child, "-TERM");
    let out: Vec<String> = lines.map_while(Result::ok).collect();
    let ended = child.wait_with_output().expect("wait");
    assert_eq!(ended.status.code(), Some(143));
    // On stderr, where a redirected stdout does not take it.
    let stderr = String::from_utf8_lossy(&ended.stderr);
    assert!(
        stderr.contains("this watch cannot be resumed: its secrets were kept in this process only"),
        "{stderr}"
    );
    assert!(
        !out.iter().any(|l| l.contains("cannot be resumed")),
        "{out:?}"
    );
    assert!(!stderr.contains("carry on with"), "{stderr}");
    // `watch list` says so, and a resume is refused before anything starts: exit 2.
    let listed = stdout_of(dir.path(), &["watch", "list"], 0);
    assert!(
        listed.contains("  paused (cannot resume: secrets were in memory only)  "),
        "{listed}"
    );
    let refused = retryscope(dir.path())
        .args(["watch", "--resume", &id])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(&format!(
            "watch {id} cannot be resumed: its request holds secrets that were kept in memory only"
        )),
        "{stderr}"
    );
    assert!(refused.stdout.is_empty(), "nothing started");
}

/// `retryscope watch --every 200ms --count 3 URL/hang`, stopped by SIGTERM once slot 1's
/// attempt has hung for over a second: the process's stdout lines and the watch id.
#[cfg(unix)]
fn hung_then_stopped(dir: &Path, url: &str) -> (Vec<String>, String) {
    let (mut child, lines, id) = spawn(dir, &["--every", "200ms", "--count", "3", url]);
    first_attempt_started(dir, &id);
    // Slots 2 and 3 pass while slot 1's run hangs.
    std::thread::sleep(std::time::Duration::from_secs(1));
    signal(&child, "-TERM");
    assert_eq!(child.wait().expect("wait").code(), Some(143));
    (lines.map_while(Result::ok).collect(), id)
}

/// A watch that ends with no finished run (its one run cancelled, every other slot missed)
/// shows nothing works: exit 1, not 0.
#[cfg(unix)]
#[test]
fn a_watch_with_no_finished_run_exits_1() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, id) = hung_then_stopped(dir.path(), &demo.url("/hang"));
    let out = stdout_of(dir.path(), &["watch", "--resume", &id], 1);
    assert!(out.contains(&format!("watch {id}: finished")), "{out}");
    assert!(out.contains("success n/a (no run finished)"), "{out}");
}

/// `watch --help` shows only what a watch takes, and each example reads as one command.
#[test]
fn watch_help_lists_only_the_flags_a_watch_takes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let help = stdout_of(dir.path(), &["watch", "--help"], 0);
    for refused in [
        "--json",
        "--seed",
        "--include",
        "--output",
        "--no-body",
        "--no-history",
        "--har",
        "--png",
        "[default: \"\"]",
    ] {
        assert!(!help.contains(refused), "{refused} in:\n{help}");
    }
    assert!(help.contains("--silent"), "{help}");
    let examples = help
        .split("Examples")
        .nth(1)
        .expect("examples")
        .split("\n\n")
        .next()
        .expect("their block");
    for line in examples.lines().skip(1) {
        assert!(
            line.starts_with("  retryscope ") || line.starts_with("      '"),
            "a wrapped example line: {line:?}\n{help}"
        );
    }
}

/// `watch -s` prints no line per run: the start, the end and the summary only.
#[test]
fn a_silent_watch_prints_the_summary_only() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = stdout_of(
        dir.path(),
        &[
            "watch",
            "-s",
            "--every",
            "200ms",
            "--count",
            "2",
            &demo.url("/status/200"),
        ],
        0,
    );
    assert!(!out.contains("  #1  "), "{out}");
    assert!(out.contains(": finished"), "{out}");
    assert!(out.contains("· success 100.0 %"), "{out}");
}

/// A stop while a run hangs: the slots that passed during it are missed as busy (not `down`
/// at the resume), and the cancelled run counts the attempt it had started.
#[cfg(unix)]
#[test]
fn a_stop_during_a_hanging_run_records_the_slots_it_spanned_as_busy() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (lines, id) = hung_then_stopped(dir.path(), &demo.url("/hang"));
    assert!(
        lines
            .iter()
            .any(|l| l == "#2–#3  missed (the previous run was still going)"),
        "{lines:?}"
    );
    let run = lines.iter().find(|l| l.contains("  #1  ")).expect("run #1");
    assert!(run.contains("  1 attempt  "), "{run}");
    let shown = show_json(dir.path(), &id);
    assert_eq!(shown["watch"]["missed"], 2, "{shown}");
    // The two are one entry of the JSON, as they are one line of the text.
    let ranges: Vec<&serde_json::Value> = (shown["slots"].as_array().expect("slots").iter())
        .filter(|s| s.get("missed").is_some())
        .collect();
    assert_eq!(ranges.len(), 1, "{shown}");
    let r = ranges[0];
    assert_eq!(
        (&r["slot"], &r["last_slot"], &r["count"]),
        (&1.into(), &2.into(), &2.into())
    );
    assert_eq!(r["missed"], "busy");
    assert!(
        r["last_due_unix_ms"].as_i64() > r["due_unix_ms"].as_i64(),
        "{r}"
    );
}

/// `watch show` prints a range of slots missed for one reason as one line, as the live output
/// does.
#[cfg(unix)]
#[test]
fn watch_show_prints_a_missed_range_as_one_line_as_the_live_output_does() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (lines, id) = hung_then_stopped(dir.path(), &demo.url("/hang"));
    let live: Vec<&String> = lines.iter().filter(|l| l.contains("missed (")).collect();
    assert!(!live.is_empty(), "{lines:?}");
    let shown = stdout_of(dir.path(), &["watch", "show", &id], 0);
    let missed: Vec<&str> = shown.lines().filter(|l| l.contains("missed (")).collect();
    assert_eq!(missed, live, "{shown}");
}

/// The run log names the watch: its start, its end, and on each of its runs' lines.
#[test]
fn the_run_log_names_the_watch_its_start_end_and_runs() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("watch.log");
    let out = stdout_of(
        dir.path(),
        &[
            "watch",
            "--log-file",
            log.to_str().expect("UTF-8 path"),
            "--every",
            "200ms",
            "--count",
            "2",
            &demo.url("/status/200"),
        ],
        0,
    );
    let id = watch_id(&out);
    let text = std::fs::read_to_string(&log).expect("the log");
    assert!(
        text.contains(&format!("watch {id} started: GET ")),
        "{text}"
    );
    assert!(text.contains(&format!("watch {id} finished")), "{text}");
    let run_lines = text.lines().filter(|l| l.contains(" succeeded")).count();
    let of_watch = text
        .lines()
        .filter(|l| l.contains(" succeeded") && l.contains(&format!("(watch {id})")))
        .count();
    assert!(run_lines >= 1 && of_watch == run_lines, "{text}");
}

/// A negative duration, share, time or seed is refused in the flag's own words, not with
/// clap's `use '-- -1'` tip (which would make the value a URL).
#[test]
fn negative_values_are_refused_in_the_flags_own_words() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (args, expected) in [
        (
            &["watch", "--every", "-1s", "http://127.0.0.1:1/"][..],
            "'--every <DURATION>': expected a duration",
        ),
        (
            &[
                "watch",
                "--every",
                "1s",
                "--jitter",
                "-1%",
                "http://127.0.0.1:1/",
            ][..],
            "'--jitter <SHARE>': expected a share",
        ),
        (
            &["report", "--since", "-1h"][..],
            "'--since <WHEN>': expected",
        ),
        (
            &["whatif", "--profiles", "azure-sdk", "--seed", "-1"][..],
            "expected a whole number from 0 to 18446744073709551615",
        ),
    ] {
        let out = retryscope(dir.path()).args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("tip:"), "{args:?}: {stderr}");
    }
}

/// A data folder that is a file is an error, not an empty history.
#[test]
fn a_data_folder_that_is_a_file_is_not_read_as_an_empty_history() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").expect("written");
    for args in [&["watch", "list"][..], &["history", "list"][..]] {
        let out = retryscope(&file).args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("the data folder is a file, not a folder: "),
            "{args:?}: {stderr}"
        );
    }
}

/// `retryscope watch --every 200ms URL` with stdout and stderr piped, once its first run is
/// printed: the process, its remaining stdout lines and the watch id.
fn watch_with_stderr(dir: &Path, url: &str) -> Spawned {
    let (child, mut lines, id) = spawn_with(
        dir,
        &["--every", "200ms", url],
        std::process::Stdio::piped(),
    );
    let run = lines.next().expect("a run line").expect("UTF-8");
    assert!(run.contains("#1  succeeded"), "{run}");
    (child, lines, id)
}

#[test]
fn a_watch_whose_history_fails_says_how_to_carry_it_on() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (child, _lines, id) = watch_with_stderr(dir.path(), &demo.url("/status/200"));
    // Another program holds the database locked longer than the store waits for it.
    let db = rusqlite::Connection::open(dir.path().join("history.sqlite3")).expect("open");
    db.busy_timeout(std::time::Duration::from_secs(5))
        .expect("busy timeout");
    db.execute_batch("BEGIN EXCLUSIVE").expect("lock");
    let out = child.wait_with_output().expect("wait");
    db.execute_batch("ROLLBACK").expect("unlock");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "once that is fixed, carry on with: retryscope watch --resume {id}"
        )),
        "{stderr}"
    );
}

#[test]
fn slots_are_sent_on_time_while_another_program_holds_the_database_briefly() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, mut lines, _id) = spawn(
        dir.path(),
        &[
            "--every",
            "200ms",
            "--count",
            "25",
            &demo.url("/status/200"),
        ],
    );
    let run = lines.next().expect("a run line").expect("UTF-8");
    assert!(run.contains("#1  succeeded"), "{run}");
    let db = rusqlite::Connection::open(dir.path().join("history.sqlite3")).expect("open");
    db.busy_timeout(std::time::Duration::from_secs(5))
        .expect("busy timeout");
    db.execute_batch("BEGIN EXCLUSIVE").expect("lock");
    let before = demo.server.log().len();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let during = demo.server.log().len() - before;
    db.execute_batch("ROLLBACK").expect("unlock");
    // The schedule never waits for the store: slots go on being sent while it is locked.
    assert!(during >= 3, "{during} requests in 2 s of a locked database");
    assert!(child.wait().expect("wait").success());
    let rest: Vec<String> = lines.map(|l| l.expect("UTF-8")).collect();
    assert!(
        rest.iter().any(|l| l.contains("finished")),
        "{}",
        rest.join("\n")
    );
}

#[cfg(unix)]
#[test]
fn the_resume_hint_of_a_paused_watch_is_on_stderr() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (child, lines, id) = watch_with_stderr(dir.path(), &demo.url("/status/200"));
    signal(&child, "-TERM");
    let rest: Vec<String> = lines.map(|l| l.expect("UTF-8")).collect();
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(143));
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        stderr.contains(&format!("carry on with: retryscope watch --resume {id}")),
        "{stderr}"
    );
    assert!(rest.iter().any(|l| l.contains(": paused")), "{rest:?}");
    assert!(
        !rest.iter().any(|l| l.contains("carry on with")),
        "{rest:?}"
    );
}
