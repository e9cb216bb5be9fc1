//! The batch service the window's Batch tab talks to: import through an injected importer, work
//! the batch, page its items by state, re-run the failed ones — commands in, replies out.

#![allow(clippy::unwrap_used)]

mod core_support;
mod engine_support;

use engine_support::fixed;
use retryscope::demo::DemoServer;
use retryscope::model::{BatchItemState, BatchOptions};
use retryscope::service::{BatchCommand, BatchReply, BatchService};
use retryscope::store::MemorySecretStore;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn wait_for(service: &mut BatchService, want: impl Fn(&BatchReply) -> bool) -> BatchReply {
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs(20) {
        match service.try_recv() {
            Some(BatchReply::Problem(p)) => panic!("problem: {p}"),
            Some(r) if want(&r) => return r,
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    panic!("no such reply within 20 s");
}

#[test]
fn import_work_page_and_rerun_failed_through_commands() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let base = server.base_url();
    // The window's importer: a `.txt` list is one curl command a line.
    let importer = retryscope::ui::batch::list_importer();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("paths.txt");
    // The 503 item fails its first hit, so with 0 retries it errors; re-run, it succeeds.
    std::fs::write(&list, format!("curl '{base}/status/200?key=a'\ncurl '{base}/status/503?times=1&key=b'\ncurl '{base}/status/200?key=c'\n")).unwrap();
    let mut service = BatchService::start(
        core_support::shared_core(),
        dir.path(),
        Arc::new(MemorySecretStore::new()),
        importer,
        Arc::new(|| {}),
        retryscope::service::library_lookup(None),
    );
    assert!(service.send(BatchCommand::Import {
        path: list,
        profile: Box::new(fixed(1, 0)),
        options: BatchOptions::default(),
        skip_bad_lines: false,
    }));
    let BatchReply::Queued { id, items, .. } =
        wait_for(&mut service, |r| matches!(r, BatchReply::Queued { .. }))
    else {
        unreachable!()
    };
    assert_eq!(items, 3);
    assert!(service.send(BatchCommand::Start(id.clone())));
    let BatchReply::Ended(summary) = wait_for(&mut service, |r| matches!(r, BatchReply::Ended(_)))
    else {
        unreachable!()
    };
    assert_eq!((summary.counts.done, summary.counts.error), (2, 1));

    assert!(service.send(BatchCommand::Page {
        id: id.clone(),
        state: Some(BatchItemState::Error),
        offset: 0,
        limit: 50,
    }));
    let BatchReply::Page { rows, counts, .. } =
        wait_for(&mut service, |r| matches!(r, BatchReply::Page { .. }))
    else {
        unreachable!()
    };
    assert_eq!(counts.total(), 3);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].position, 1);
    assert_eq!(rows[0].last_status, Some(503));

    assert!(service.send(BatchCommand::RerunFailed(id.clone())));
    let BatchReply::Ended(summary) = wait_for(&mut service, |r| matches!(r, BatchReply::Ended(_)))
    else {
        unreachable!()
    };
    assert_eq!((summary.counts.done, summary.counts.error), (3, 0));
    // Only the failed item was sent again: 3 + 1 requests.
    assert_eq!(server.log().len(), 4);
}

/// DESIGN §7: a `host` budget is shared by every run and batch item of the process. The
/// composer's run (the engine service) spends the bucket; a batch item to the same host, on the
/// same core, then finds it empty and is not retried.
#[test]
fn a_composer_run_and_a_batch_item_to_one_host_draw_from_one_budget() {
    use retryscope::model::RunEvent;
    use retryscope::service::{Command, EngineService};
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let base = server.base_url();
    let core = core_support::shared_core();
    let mut profile = fixed(1, 5);
    profile.retry_budget = Some(
        serde_json::from_value(serde_json::json!({
            "capacity": 10, "cost": {"transient": 5},
            "refund_on_retry_success": false, "success_increment": 0, "scope": "host"
        }))
        .unwrap(),
    );

    let mut engine = EngineService::start(core, Arc::new(|| {}), None);
    let run_id = engine.next_run_id();
    assert!(engine.send(Command::Start {
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
        match engine.try_recv() {
            Some(RunEvent::RunFinished { attempts, .. }) => break attempts,
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    assert_eq!(attempts, 3, "two retries of cost 5 empty a bucket of 10");

    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("one.txt");
    std::fs::write(&list, format!("curl '{base}/status/503?key=batch'\n")).unwrap();
    let mut service = BatchService::start(
        core,
        dir.path(),
        Arc::new(MemorySecretStore::new()),
        retryscope::ui::batch::list_importer(),
        Arc::new(|| {}),
        retryscope::service::library_lookup(None),
    );
    assert!(service.send(BatchCommand::Import {
        path: list,
        profile: Box::new(profile),
        options: BatchOptions::default(),
        skip_bad_lines: false,
    }));
    let BatchReply::Queued { id, .. } =
        wait_for(&mut service, |r| matches!(r, BatchReply::Queued { .. }))
    else {
        unreachable!()
    };
    assert!(service.send(BatchCommand::Start(id)));
    wait_for(&mut service, |r| matches!(r, BatchReply::Ended(_)));
    let batch_hits = server.log().iter().filter(|e| e.key == "batch").count();
    assert_eq!(
        batch_hits, 1,
        "the batch item found the composer's bucket empty: no retry"
    );
}
