//! The batch commands the window's Batch tab sends through its link to the core: import through
//! an injected importer, work the batch, page its items by state, re-run the failed ones —
//! commands in, events out.

#![allow(clippy::unwrap_used)]

mod core_support;
mod engine_support;

use engine_support::fixed;
use retryscope::demo::DemoServer;
use retryscope::model::{BatchItemState, BatchOptions};
use retryscope::service::{BatchCommand, BatchReply, CoreCommand, CoreEvent, CoreLink};
use std::time::{Duration, Instant};

fn wait_for(link: &mut CoreLink, want: impl Fn(&CoreEvent) -> bool) -> CoreEvent {
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs(20) {
        match link.try_recv() {
            Some(CoreEvent::Batch(BatchReply::Problem(p))) => panic!("problem: {p}"),
            Some(r) if want(&r) => return r,
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    panic!("no such event within 20 s");
}

fn batch(command: BatchCommand) -> CoreCommand {
    CoreCommand::Batch(command)
}

#[test]
fn import_work_page_and_rerun_failed_through_commands() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let base = server.base_url();
    // The window's importer: a `.txt` list is one curl command a line.
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("paths.txt");
    // The 503 item fails its first hit, so with 0 retries it errors; re-run, it succeeds.
    std::fs::write(&list, format!("curl '{base}/status/200?key=a'\ncurl '{base}/status/503?times=1&key=b'\ncurl '{base}/status/200?key=c'\n")).unwrap();
    let mut service = core_support::batch_link(dir.path(), None);
    assert!(service.send(batch(BatchCommand::Import {
        path: list,
        profile: Box::new(fixed(1, 0)),
        options: BatchOptions::default(),
        skip_bad_lines: false,
    })));
    let CoreEvent::Batch(BatchReply::Queued { id, items, .. }) = wait_for(&mut service, |r| {
        matches!(r, CoreEvent::Batch(BatchReply::Queued { .. }))
    }) else {
        unreachable!()
    };
    assert_eq!(items, 3);
    assert!(service.send(batch(BatchCommand::Start(id.clone()))));
    let CoreEvent::Batch(BatchReply::Ended(summary)) = wait_for(&mut service, |r| {
        matches!(r, CoreEvent::Batch(BatchReply::Ended(_)))
    }) else {
        unreachable!()
    };
    assert_eq!((summary.counts.done, summary.counts.error), (2, 1));

    assert!(service.send(batch(BatchCommand::Page {
        id: id.clone(),
        state: Some(BatchItemState::Error),
        offset: 0,
        limit: 50,
    })));
    let CoreEvent::Batch(BatchReply::Page { rows, counts, .. }) = wait_for(&mut service, |r| {
        matches!(r, CoreEvent::Batch(BatchReply::Page { .. }))
    }) else {
        unreachable!()
    };
    assert_eq!(counts.total(), 3);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].position, 1);
    assert_eq!(rows[0].last_status, Some(503));

    assert!(service.send(batch(BatchCommand::RerunFailed(id.clone()))));
    let CoreEvent::Batch(BatchReply::Ended(summary)) = wait_for(&mut service, |r| {
        matches!(r, CoreEvent::Batch(BatchReply::Ended(_)))
    }) else {
        unreachable!()
    };
    assert_eq!((summary.counts.done, summary.counts.error), (3, 0));
    // Only the failed item was sent again: 3 + 1 requests.
    assert_eq!(server.log().len(), 4);
}

/// DESIGN §7: a `host` budget is shared by every run and batch item of the process. The
/// composer's run spends the bucket; a batch item to the same host, on the
/// same core, then finds it empty and is not retried.
#[test]
fn a_composer_run_and_a_batch_item_to_one_host_draw_from_one_budget() {
    use retryscope::model::RunEvent;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let base = server.base_url();
    let mut profile = fixed(1, 5);
    profile.retry_budget = Some(
        serde_json::from_value(serde_json::json!({
            "capacity": 10, "cost": {"transient": 5},
            "refund_on_retry_success": false, "success_increment": 0, "scope": "host"
        }))
        .unwrap(),
    );

    let dir = tempfile::tempdir().unwrap();
    // One link, as the window has: the composer's run and the batch on the same core.
    let mut service = core_support::batch_link(dir.path(), None);
    let run_id = service.next_run_id();
    assert!(service.send(CoreCommand::Start {
        run_id,
        spec: retryscope::model::RequestSpec::get(format!("{base}/status/503?key=composer")),
        profile: profile.clone(),
        seed: Some(1),
        secrets: Vec::new(),
    }));
    let began = Instant::now();
    let attempts = loop {
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "the run did not end"
        );
        match service.try_recv() {
            Some(CoreEvent::Run(RunEvent::RunFinished { attempts, .. })) => break attempts,
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    assert_eq!(attempts, 3, "two retries of cost 5 empty a bucket of 10");

    let list = dir.path().join("one.txt");
    std::fs::write(&list, format!("curl '{base}/status/503?key=batch'\n")).unwrap();
    assert!(service.send(batch(BatchCommand::Import {
        path: list,
        profile: Box::new(profile),
        options: BatchOptions::default(),
        skip_bad_lines: false,
    })));
    let CoreEvent::Batch(BatchReply::Queued { id, .. }) = wait_for(&mut service, |r| {
        matches!(r, CoreEvent::Batch(BatchReply::Queued { .. }))
    }) else {
        unreachable!()
    };
    assert!(service.send(batch(BatchCommand::Start(id))));
    wait_for(&mut service, |r| {
        matches!(r, CoreEvent::Batch(BatchReply::Ended(_)))
    });
    let batch_hits = server.log().iter().filter(|e| e.key == "batch").count();
    assert_eq!(
        batch_hits, 1,
        "the batch item found the composer's bucket empty: no retry"
    );
}
