//! Two processes never work one batch (DESIGN.md §11): the `retryscope batch` working a batch
//! holds its lock file; a `batch --resume ID` meanwhile refuses, naming the process, sends
//! nothing and leaves the worker's runs alone; once the worker is killed (`kill -9`: the OS
//! lets go of its lock), the resume works the batch to its end.

#![allow(clippy::unwrap_used)]

mod demo_support;

use demo_support::{Demo, retryscope};
use retryscope::model::BatchItemState;
use retryscope::store::{BatchQueue, HistoryStore, MemorySecretStore, SecretStore};
use std::path::Path;
use std::time::{Duration, Instant};

const ITEMS: usize = 30;

fn queue(dir: &Path) -> BatchQueue {
    let store: std::sync::Arc<dyn SecretStore> = std::sync::Arc::new(MemorySecretStore::new());
    BatchQueue::open_in(dir, store).unwrap()
}

/// Waits until the newest batch in `dir` has `done` items done and one `running`; returns
/// its id.
fn wait_for_progress(dir: &Path, done: u64) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if dir.join("history.sqlite3").exists()
            && let Ok(list) = queue(dir).list(1)
            && let Some(b) = list.first()
            && b.counts.done >= done
            && b.counts.running == 1
        {
            return b.id.clone();
        }
        assert!(Instant::now() < deadline, "the batch never got going");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_batch_being_worked_is_refused_to_a_second_process_until_its_worker_dies() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..ITEMS)
        .map(|i| {
            format!(
                r#"{{"url": "{}"}}"#,
                demo.url(&format!("/slow?ms=150&n={i}"))
            )
        })
        .collect();
    let list = dir.path().join("list.jsonl");
    std::fs::write(&list, lines.join("\n") + "\n").unwrap();
    let mut worker = std::process::Command::new(env!("CARGO_BIN_EXE_retryscope"))
        .env("RETRYSCOPE_KEYRING", "memory")
        .env("RETRYSCOPE_DATA_DIR", dir.path())
        .args(["batch", list.to_str().unwrap(), "--concurrency", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let id = wait_for_progress(dir.path(), 2);
    assert!(queue(dir.path()).batch(&id).unwrap().held_elsewhere);

    let refused = retryscope(dir.path())
        .args(["batch", "--resume", &id])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    let busy = if cfg!(unix) {
        format!("batch {id} is being worked by process {}", worker.id())
    } else {
        format!("batch {id} is being worked by")
    };
    assert!(stderr.contains(&busy), "{stderr}");
    assert!(!stderr.contains("working it"), "refused first: {stderr}");
    // The refused process sent nothing twice, and its open of the history left the worker's
    // run in flight unfinished (not `interrupted`: its writer is alive).
    let at_refusal = queue(dir.path()).items(&id, None, 0, 1000).unwrap();
    let log = demo.server.log();
    let hits = |log: &[retryscope::demo::LogEntry], p: usize| {
        log.iter()
            .filter(|e| e.path.ends_with(&format!("&n={p}")))
            .count()
    };
    assert!((0..ITEMS).all(|p| hits(&log, p) <= 1), "{log:?}");
    let history = HistoryStore::open_in(dir.path()).unwrap();
    for item in at_refusal
        .iter()
        .filter(|i| i.state == BatchItemState::Running)
    {
        if let Some(run) = history.run(item.run_id.as_deref().unwrap()).unwrap() {
            assert_eq!(run.run.outcome, None, "the worker's run is still live");
        }
    }
    drop(history);

    worker.kill().unwrap();
    worker.wait().unwrap();
    assert!(
        !queue(dir.path()).batch(&id).unwrap().held_elsewhere,
        "the OS let go"
    );
    let done_at_kill: Vec<u64> = queue(dir.path())
        .items(&id, Some(BatchItemState::Done), 0, 1000)
        .unwrap()
        .iter()
        .map(|i| i.position)
        .collect();
    assert!(done_at_kill.len() < ITEMS, "killed mid-way");
    let resumed = retryscope(dir.path())
        .args(["batch", "--resume", &id])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert_eq!(
        resumed.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(
        stdout.contains(&format!("batch {id}: {ITEMS} items: {ITEMS} done, 0 error")),
        "{stdout}"
    );
    let log = demo.server.log();
    for p in done_at_kill {
        assert_eq!(
            hits(&log, usize::try_from(p).unwrap()),
            1,
            "item {p} sent once"
        );
    }
}
