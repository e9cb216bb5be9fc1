//! The window resumes by itself, at its next start, the batch it was working when it was closed
//! or killed; a batch paused with the Pause button (or left by the CLI) is only offered. Driven
//! through the whole workbench by label, against the demo server on 127.0.0.1.

#![allow(clippy::unwrap_used)]

mod core_support;
mod ui_support;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::demo::DemoServer;
use retryscope::model::{BatchState, BatchWorker};
use retryscope::store::{BatchQueue, MemorySecretStore};
use retryscope::ui::workbench::WorkbenchState;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ITEMS: usize = 40;

/// A window (workbench) on the data folder `dir`, its link to the core as the window starts
/// it (runs not recorded here).
fn window(dir: &Path) -> Harness<'static, WorkbenchState> {
    let state = ui_support::workbench_on(core_support::batch_link(dir, None), None);
    ui_support::harness_sized(state, [1280.0, 800.0])
}

fn until(h: &mut Harness<'static, WorkbenchState>, what: &dyn Fn(&WorkbenchState) -> bool) {
    let began = Instant::now();
    while !what(h.state()) {
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "timed out; problem {:?}, notice {:?}, status {:?}",
            h.state().batch.problem(),
            h.state().batch.notice(),
            h.state().status()
        );
        std::thread::sleep(Duration::from_millis(5));
        h.run_ok();
    }
}

/// Closes the window as eframe does: its link to the core stops (waited for, so the next
/// window of this test process does not race the old one's last commits).
fn close(mut h: Harness<'static, WorkbenchState>) {
    let stopped = h.state_mut().stop_core(Duration::from_secs(20));
    assert!(stopped, "the link's task ended");
}

/// A list of `ITEMS` items answering after `ms` each (`n=iN`: no `key=`, which reads as a
/// secret). Slow enough that a loaded machine's frames stop the batch midway.
fn write_list(dir: &Path, base: &str, ms: u64) -> std::path::PathBuf {
    let list = dir.join("slow.txt");
    let mut text = String::new();
    for i in 0..ITEMS {
        writeln!(text, "curl '{base}/slow?ms={ms}&n=i{i}'").unwrap();
    }
    std::fs::write(&list, text).unwrap();
    list
}

/// Imports `list` in the Batch tab and starts it; returns the batch id once `done` items ended.
fn import_and_start(h: &mut Harness<'static, WorkbenchState>, list: &Path, done: u64) -> String {
    h.run_ok();
    h.get_by_label("Batch").click();
    h.run_ok();
    ui_support::type_into(h, "List file", list.to_str().unwrap());
    h.get_by_label("Import").click();
    h.run_ok();
    until(h, &|s| s.batch.batch_id().is_some());
    h.run_ok();
    h.get_by_label("Start").click();
    h.run_ok();
    until(h, &|s| s.batch.counts().done >= done);
    assert!(h.state().batch.is_working(), "stopped mid-batch");
    h.state().batch.batch_id().unwrap().to_owned()
}

/// Hits per item (`n=iN`) the demo server saw.
fn hits(server: &DemoServer) -> HashMap<String, usize> {
    let mut by_item = HashMap::new();
    for entry in server.log() {
        let item = entry.path.rsplit("n=").next().unwrap().to_owned();
        *by_item.entry(item).or_insert(0) += 1;
    }
    by_item
}

fn queue(dir: &Path) -> BatchQueue {
    BatchQueue::open_in(dir, Arc::new(MemorySecretStore::new())).unwrap()
}

/// The items done so far (`iN` each).
fn done_items(dir: &Path, id: &str) -> Vec<String> {
    queue(dir)
        .items(id, Some(retryscope::model::BatchItemState::Done), 0, 1000)
        .unwrap()
        .into_iter()
        .map(|i| format!("i{}", i.position))
        .collect()
}

fn status_text(s: &WorkbenchState) -> Option<String> {
    s.status().map(|(_, t)| t.clone())
}

#[test]
fn a_batch_the_window_was_working_when_closed_resumes_by_itself_at_the_next_start() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Items of 400 ms: the resumed batch is still working when the next window's first frames
    // look for its start-up line, which goes once the batch is finished.
    let list = write_list(dir.path(), &server.base_url(), 400);

    let mut h = window(dir.path());
    let id = import_and_start(&mut h, &list, 5);
    close(h);
    let left = queue(dir.path()).batch(&id).unwrap();
    assert_eq!(left.worker, Some(BatchWorker::Window));
    assert!(!left.paused_by_user, "closing is not a pause on purpose");
    assert_eq!(left.state(false), BatchState::Interrupted);
    assert!(
        left.counts.pending > 0,
        "closed mid-batch: {:?}",
        left.counts
    );
    let done_before = done_items(dir.path(), &id);

    // The next start: the batch goes on by itself, the Batch tab shows it with Pause.
    let mut h = window(dir.path());
    until(&mut h, &|s| {
        status_text(s).is_some_and(|t| t.starts_with("resumed batch …"))
    });
    let line = status_text(h.state()).unwrap();
    assert!(
        line.contains(&id[id.len() - 8..]),
        "names the batch: {line}"
    );
    assert!(
        line.contains("items left"),
        "says how many are left: {line}"
    );
    assert!(h.state().batch_shown(), "the Batch tab is shown");
    h.run_ok();
    assert!(h.query_by_label("Pause").is_some(), "Pause is reachable");
    until(&mut h, &|s| {
        !s.batch.is_working() && s.batch.counts().done == ITEMS as u64
    });
    h.run_ok();
    assert!(
        status_text(h.state()).is_none_or(|t| !t.contains("resumed batch")),
        "the start-up line goes once the batch is finished: {:?}",
        h.state().status()
    );
    assert_eq!(
        queue(dir.path()).batch(&id).unwrap().state(false),
        BatchState::Finished
    );
    close(h);

    // Every item done exactly once: each was sent, those done before the close never again
    // (the runs in flight at the close were re-sent from attempt 1).
    let hits = hits(&server);
    assert_eq!(hits.len(), ITEMS, "{hits:?}");
    for item in &done_before {
        assert_eq!(hits[item], 1, "{item} was done before the close");
    }
    let again: usize = hits.values().map(|n| n - 1).sum();
    assert!(
        again <= retryscope::model::DEFAULT_CONCURRENCY,
        "only runs in flight are sent again: {hits:?}"
    );
}

#[test]
fn a_batch_paused_with_the_pause_button_is_offered_not_resumed() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let list = write_list(dir.path(), &server.base_url(), 200);

    let mut h = window(dir.path());
    let id = import_and_start(&mut h, &list, 3);
    h.get_by_label("Pause").click();
    h.run_ok();
    until(&mut h, &|s| !s.batch.is_working());
    close(h);
    let left = queue(dir.path()).batch(&id).unwrap();
    assert!(left.paused_by_user);
    assert_eq!(left.state(false), BatchState::Paused);
    let sent = server.log().len();

    let mut h = window(dir.path());
    until(&mut h, &|s| status_text(s).is_some());
    assert_eq!(
        status_text(h.state()).unwrap(),
        format!(
            "1 unfinished batch ({} items left): resume it from the Batch tab's Earlier batches",
            left.counts.pending
        )
    );
    assert!(!h.state().batch.is_working(), "not resumed unasked");
    assert!(h.state().batch.resuming_at_startup().is_none());
    assert!(!h.state().batch_shown());
    // Resumed by hand from Earlier batches: the offer line goes away.
    h.get_by_label("Batch").click();
    h.run_ok();
    h.get_by_label("Resume").click();
    h.run_ok();
    until(&mut h, &|s| s.batch.is_working());
    h.run_ok();
    assert_eq!(status_text(h.state()), None, "handled: the line is gone");
    until(&mut h, &|s| {
        !s.batch.is_working() && s.batch.counts().done == ITEMS as u64
    });
    close(h);
    assert!(server.log().len() > sent);
}

#[test]
fn a_batch_left_running_by_a_killed_window_resumes_and_a_cli_batch_is_only_offered() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let list = write_list(dir.path(), &server.base_url(), 100);
    let items = retryscope::service::read_batch_list(
        &list,
        None,
        retryscope::interop::batch_list::OnBadLines::Refuse,
        None,
    )
    .unwrap()
    .items;
    let profile = retryscope::profile::builtin("aws-standard").unwrap();
    let options = retryscope::model::BatchOptions::default();
    // What a window killed with SIGKILL leaves: claimed as the window's, items `running`, the
    // lock released by the OS. And a batch the CLI was working when Ctrl-C paused it.
    let (killed, cli) = {
        let mut q = queue(dir.path());
        let cli = q
            .create(Some("slow.txt"), &profile, &options, &items)
            .unwrap();
        q.claim(&cli, Some(BatchWorker::Cli)).unwrap();
        q.release(&cli).unwrap();
        std::thread::sleep(Duration::from_millis(3));
        let killed = q
            .create(Some("slow.txt"), &profile, &options, &items)
            .unwrap();
        q.claim(&killed, Some(BatchWorker::Window)).unwrap();
        for position in 0..3 {
            q.mark_running(&killed, position, None).unwrap();
        }
        (killed, cli)
    };
    // The queue that claimed them is gone, so is its lock: the batch's worker is dead.
    assert_eq!(
        queue(dir.path()).batch(&killed).unwrap().state(false),
        BatchState::Interrupted
    );
    assert_eq!(
        queue(dir.path()).batch(&cli).unwrap().state(false),
        BatchState::Paused
    );

    let mut h = window(dir.path());
    until(&mut h, &|s| status_text(s).is_some());
    let line = status_text(h.state()).unwrap();
    assert!(
        line.starts_with(&format!("resumed batch …{}", &killed[killed.len() - 8..]))
            && line.ends_with(&format!(
                "1 unfinished batch ({ITEMS} items left): resume it from the Batch tab's Earlier batches"
            )),
        "{line}"
    );
    until(&mut h, &|s| {
        !s.batch.is_working() && s.batch.counts().done == ITEMS as u64
    });
    assert_eq!(h.state().batch.batch_id(), Some(killed.as_str()));
    h.run_ok();
    assert!(
        status_text(h.state()).is_some_and(|t| t.starts_with("1 unfinished batch")),
        "the CLI batch is still offered: {:?}",
        h.state().status()
    );
    close(h);
    assert_eq!(
        queue(dir.path()).batch(&cli).unwrap().counts.pending,
        ITEMS as u64,
        "the CLI batch was not sent"
    );
    // The items left running were re-run from attempt 1: every item sent once.
    let hits = hits(&server);
    assert_eq!(hits.len(), ITEMS);
    assert!(hits.values().all(|n| *n == 1), "{hits:?}");
}

/// Resume asks first when items that were in flight at a crash are not safe to send twice
/// (a POST without an Idempotency-Key), and *Skip them* ends them cancelled before working
/// the others.
#[test]
fn a_resume_asks_before_sending_interrupted_posts_again_and_can_skip_them() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let item = |method: &str, n: &str| {
        let mut request =
            retryscope::model::RequestSpec::get(format!("{}/status/200?n={n}", server.base_url()));
        request.method = method.into();
        retryscope::model::BatchRequest {
            name: None,
            request,
            profile: None,
            source_line: None,
        }
    };
    let id = {
        let mut q = queue(dir.path());
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
    };

    let mut h = window(dir.path());
    until(&mut h, &|s| s.batch.batches().is_some());
    h.get_by_label("Batch").click();
    h.run_ok();
    h.get_by_label("Resume").click();
    h.run_ok();
    until(&mut h, &|s| s.batch.resend_risk().is_some());
    h.run_ok();
    assert!(
        !h.state().batch.is_working(),
        "nothing sent before the answer"
    );
    let asked: Vec<u64> = h
        .state()
        .batch
        .resend_risk()
        .unwrap()
        .iter()
        .map(|i| i.position)
        .collect();
    assert_eq!(asked, [0], "only the POST that was in flight");
    assert!(server.log().is_empty());
    h.get_by_label("Skip them").click();
    h.run_ok();
    until(&mut h, &|s| {
        !s.batch.is_working() && s.batch.counts().done == 2
    });
    assert_eq!(h.state().batch.counts().cancelled, 1);
    close(h);
    let paths: Vec<String> = server.log().into_iter().map(|e| e.path).collect();
    assert!(!paths.iter().any(|p| p.ends_with("n=a")), "{paths:?}");
    assert_eq!(paths.len(), 2, "{paths:?}");
    let skipped = queue(dir.path())
        .items(
            &id,
            Some(retryscope::model::BatchItemState::Cancelled),
            0,
            10,
        )
        .unwrap();
    assert_eq!(skipped[0].position, 0);
}
