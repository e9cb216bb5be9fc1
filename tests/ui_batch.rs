//! The Batch tab driven as a user would, by label: type the list file, import, start, watch the
//! counts reach the end, select a row and open its run; with no service it says why.

#![allow(clippy::unwrap_used)]

mod core_support;
mod ui_support;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::demo::DemoServer;
use retryscope::model::RetryProfile;
use retryscope::service::{CoreEvent, CoreLink};
use retryscope::store::MemorySecretStore;
use retryscope::ui::batch::{BatchAction, BatchPanel};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Tab {
    panel: BatchPanel,
    /// The link the panel sends through; its batch replies reach the panel each frame.
    link: Option<CoreLink>,
    profile: RetryProfile,
    actions: Vec<BatchAction>,
}

fn harness(tab: Tab) -> Harness<'static, Tab> {
    // Replies arriving from the service (the list of batches) can relayout for a few frames.
    Harness::builder()
        .with_size([900.0, 600.0])
        .with_max_steps(32)
        .build_ui_state(
            |ui, t: &mut Tab| {
                let now = Instant::now();
                while let Some(event) = t.link.as_mut().and_then(CoreLink::try_recv) {
                    if let CoreEvent::Batch(reply) = event {
                        t.panel.accept(reply, now);
                    }
                }
                let actions = t.panel.ui(ui, &t.profile, now);
                t.actions.extend(actions);
            },
            tab,
        )
}

fn profile() -> RetryProfile {
    serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/2", "name": "Fast", "max_retries": 0,
        "backoff": {"strategy": "fixed", "base_delay_ms": 1}
    }))
    .unwrap()
}

#[test]
fn without_a_service_the_tab_says_why() {
    let mut panel = BatchPanel::new();
    panel.set_unavailable("batches are not available: no data folder".into());
    let mut h = harness(Tab {
        panel,
        link: None,
        profile: profile(),
        actions: Vec::new(),
    });
    h.run();
    assert!(
        h.query_by_label("batches are not available: no data folder")
            .is_some()
    );
}

#[test]
fn import_start_and_open_an_items_run_by_label() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let base = server.base_url();
    // The window's importer: a `.txt` list is one curl command a line.
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("paths.txt");
    std::fs::write(&list, format!("curl '{base}/status/200?key=a'\ncurl '{base}/status/404?key=b'\ncurl '{base}/status/200?key=c'\n")).unwrap();
    let link = core_support::batch_link(dir.path(), None);
    let mut panel = BatchPanel::new();
    panel.attach(link.sender());
    let mut h = harness(Tab {
        panel,
        link: Some(link),
        profile: profile(),
        actions: Vec::new(),
    });
    h.run();
    h.get_by_label("List file").focus();
    h.run();
    h.get_by_label("List file")
        .type_text(list.to_str().unwrap());
    h.run();
    h.get_by_label("Import").click();
    let until = |h: &mut Harness<'static, Tab>, what: &dyn Fn(&Tab) -> bool| {
        let began = Instant::now();
        while !what(h.state()) {
            assert!(began.elapsed() < Duration::from_mins(1), "timed out");
            std::thread::sleep(Duration::from_millis(5));
            h.run();
        }
    };
    until(&mut h, &|t| t.panel.batch_id().is_some());
    h.get_by_label("Start").click();
    h.run();
    until(&mut h, &|t| {
        !t.panel.is_working() && t.panel.counts().finished() == 3
    });
    h.run();
    assert!(
        h.query_by_label("2 done · 1 error · 0 cancelled · 0 pending · 0 running")
            .is_some()
    );
    // The rows arrive from the service; the 404 item reads as an error.
    let began = Instant::now();
    while h.query_by_label("error").is_none() {
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "the rows never arrived"
        );
        std::thread::sleep(Duration::from_millis(5));
        h.run();
    }
    h.get_by_label("2").click();
    h.run();
    h.get_by_label("Open run").click();
    h.run();
    let opened = h.state().actions.iter().find_map(|a| match a {
        BatchAction::OpenRun(id) => Some(id.clone()),
        BatchAction::PickList => None,
    });
    assert!(
        opened.is_some(),
        "Open run opens the selected item's run: {:?}",
        h.state().actions
    );
    assert!(h.query_by_label("Re-run failed").is_some());
}

#[test]
fn the_workbench_has_a_batch_tab_beside_timeline_and_history() {
    let (state, _probe) = ui_support::workbench();
    let mut h = ui_support::harness_sized(state, [1280.0, 800.0]);
    h.run();
    assert!(!h.state().batch_shown());
    h.get_by_label("Batch").click();
    h.run();
    assert!(h.state().batch_shown());
    assert!(!h.state().history_shown());
    assert!(
        h.query_by_label("Batches are not available: no data folder.")
            .is_some(),
        "a workbench without a batch service says so"
    );
    h.get_by_label("Timeline").click();
    h.run();
    assert!(!h.state().batch_shown());
}

/// A link over `dir` with the window's importer (the demo server's runs not recorded).
fn service_in(dir: &std::path::Path) -> CoreLink {
    core_support::batch_link(dir, None)
}

fn until(h: &mut Harness<'static, Tab>, what: &dyn Fn(&Tab) -> bool) {
    let began = Instant::now();
    while !what(h.state()) {
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "timed out; problem {:?}, notice {:?}",
            h.state().panel.problem(),
            h.state().panel.notice()
        );
        std::thread::sleep(Duration::from_millis(5));
        h.run();
    }
}

/// Types `text` one character at a time, as a person would.
fn type_keys(h: &mut Harness<'static, Tab>, label: &str, text: &str) {
    h.get_by_label(label).focus();
    h.run();
    for c in text.chars() {
        h.get_by_label(label).type_text(&c.to_string());
        h.run();
    }
}

fn tab_with(link: CoreLink) -> Harness<'static, Tab> {
    let mut panel = BatchPanel::new();
    panel.attach(link.sender());
    harness(Tab {
        panel,
        link: Some(link),
        profile: profile(),
        actions: Vec::new(),
    })
}

#[test]
fn earlier_batches_are_listed_offered_and_can_be_opened_resumed_and_cancelled() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let base = server.base_url();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("left.txt");
    std::fs::write(
        &list,
        // No `key=` here: a query key reads as a secret, and secrets kept in memory die with the
        // process that queued them.
        format!("curl '{base}/status/200?n=l1'\ncurl '{base}/status/200?n=l2'\n"),
    )
    .unwrap();
    // Two batches queued by an earlier process (as the CLI leaves them after Ctrl-C).
    let (older, newer) = {
        let items = retryscope::service::read_batch_list(
            &list,
            None,
            retryscope::interop::batch_list::OnBadLines::Refuse,
            None,
        )
        .unwrap()
        .items;
        let mut queue =
            retryscope::store::BatchQueue::open_in(dir.path(), Arc::new(MemorySecretStore::new()))
                .unwrap();
        let options = retryscope::model::BatchOptions::default();
        let a = queue
            .create(Some("left.txt"), &profile(), &options, &items)
            .unwrap();
        std::thread::sleep(Duration::from_millis(3));
        let b = queue
            .create(Some("left.txt"), &profile(), &options, &items)
            .unwrap();
        (a, b)
    };
    let mut h = tab_with(service_in(dir.path()));
    until(&mut h, &|t| t.panel.batches().is_some());
    let offer = h.state_mut().panel.take_startup_line();
    assert_eq!(
        offer.as_deref(),
        Some("2 unfinished batches: resume them from the Batch tab's Earlier batches")
    );
    assert!(
        h.state_mut().panel.take_startup_line().is_none(),
        "offered once"
    );
    assert!(
        !h.state().panel.is_working(),
        "batches queued elsewhere are not resumed"
    );
    h.run();
    assert!(
        h.query_by_label("Earlier batches (2, 2 unfinished)")
            .is_some()
    );
    assert_eq!(h.query_all_by_label("queued").count(), 2);
    // Newest first: the first row's Open shows the newer batch's items.
    h.query_all_by_label("Open").next().unwrap().click();
    h.run();
    assert_eq!(h.state().panel.batch_id(), Some(newer.as_str()));
    // Cancel the older one (second row).
    h.query_all_by_label("Cancel").nth(1).unwrap().click();
    h.run();
    until(&mut h, &|t| {
        t.panel
            .batches()
            .is_some_and(|l| l.iter().any(|b| b.id == older && b.counts.cancelled == 2))
    });
    // Resume the newer one: its items are sent.
    h.run();
    h.query_all_by_label("Resume").next().unwrap().click();
    h.run();
    until(&mut h, &|t| {
        t.panel
            .batches()
            .is_some_and(|l| l.iter().any(|b| b.id == newer && b.counts.done == 2))
    });
    h.run();
    assert!(
        h.query_by_label("Earlier batches (2)").is_some(),
        "none unfinished now"
    );
    assert_eq!(h.state().panel.startup_line(), None, "the offer is handled");
    assert_eq!(h.query_all_by_label("finished").count(), 1);
    assert_eq!(h.query_all_by_label("cancelled").count(), 1);
}

#[test]
fn malformed_lines_refuse_the_list_unless_skip_bad_lines_is_ticked() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("mixed.jsonl");
    std::fs::write(
        &list,
        "{\"url\": \"http://127.0.0.1:9/a\"}\n{\"url\": \n{\"url\": \"http://127.0.0.1:9/c\"}\n",
    )
    .unwrap();
    let mut h = tab_with(service_in(dir.path()));
    h.run();
    type_keys(&mut h, "List file", list.to_str().unwrap());
    h.get_by_label("Import").click();
    h.run();
    let began = Instant::now();
    while h.state().panel.problem().is_none() {
        assert!(began.elapsed() < Duration::from_secs(20), "no answer");
        std::thread::sleep(Duration::from_millis(5));
        h.run();
    }
    let problem = h.state().panel.problem().unwrap().to_owned();
    assert!(
        problem.contains("mixed.jsonl:2"),
        "names the line: {problem}"
    );
    assert!(h.state().panel.batch_id().is_none(), "nothing queued");
    h.get_by_label("Skip bad lines").click();
    h.run();
    assert!(h.state().panel.skip_bad_lines);
    h.get_by_label("Import").click();
    h.run();
    until(&mut h, &|t| t.panel.batch_id().is_some());
    h.run();
    assert_eq!(h.state().panel.counts().pending, 2);
    let notice = h.state().panel.notice().unwrap();
    assert!(
        notice.contains("mixed.jsonl:2") && notice.contains("(skipped)"),
        "the skipped line is still reported: {notice}"
    );
}

/// The Idempotency keys box is queued with the batch: its stored options say so.
#[test]
fn idempotency_keys_ticked_are_stored_with_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("one.jsonl");
    std::fs::write(&list, "{\"url\": \"http://127.0.0.1:9/a\"}\n").unwrap();
    let mut h = tab_with(service_in(dir.path()));
    h.run();
    type_keys(&mut h, "List file", list.to_str().unwrap());
    h.get_by_label("Idempotency keys").click();
    h.run();
    assert!(h.state().panel.idempotency_keys);
    h.get_by_label("Import").click();
    h.run();
    until(&mut h, &|t| t.panel.batch_id().is_some());
    let id = h.state().panel.batch_id().unwrap().to_owned();
    let queue =
        retryscope::store::BatchQueue::open_in(dir.path(), Arc::new(MemorySecretStore::new()))
            .unwrap();
    assert!(queue.batch(&id).unwrap().options.idempotency_keys);
}

#[test]
fn assertions_show_inline_errors_and_a_failed_one_ends_items_in_error() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(DemoServer::start(0)).unwrap();
    let base = server.base_url();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("ok.txt");
    std::fs::write(&list, format!("curl '{base}/status/200?key=x1'\n")).unwrap();
    let mut h = tab_with(service_in(dir.path()));
    h.run();
    type_keys(&mut h, "Expect status", "299-200");
    assert!(
        h.query_by_label(
            "Expect status: range 299-200 is reversed; write the lower code first (200-299)"
        )
        .is_some()
    );
    type_keys(&mut h, "Expect JSON", "state");
    assert!(
        h.query_by_label("Expect JSON: needs POINTER=VALUE (e.g. /state=\"done\"), found `state`")
            .is_some()
    );
    type_keys(&mut h, "Expect body", " ");
    assert!(
        h.query_by_label(
            "Expect body: an empty or blank text matches (nearly) every body; give the text the body must contain"
        )
        .is_some(),
        "a blank body text is refused as --expect-body ' ' is"
    );
    type_keys(&mut h, "List file", list.to_str().unwrap());
    h.get_by_label("Import").click();
    h.run();
    assert_eq!(
        h.state().panel.problem(),
        Some("fix the assertions first (the errors are under them)")
    );
    h.state_mut().panel.assertions.body.clear();
    // Fixed: the status set holds, the body text does not.
    h.state_mut().panel.assertions.status.clear();
    h.state_mut().panel.assertions.json.clear();
    h.run();
    type_keys(&mut h, "Expect status", "200-299");
    type_keys(&mut h, "Expect body", "no such text");
    assert!(h.query_by_label_contains("Expect status:").is_none());
    h.get_by_label("Import").click();
    h.run();
    until(&mut h, &|t| t.panel.batch_id().is_some());
    h.get_by_label("Start").click();
    h.run();
    until(&mut h, &|t| {
        !t.panel.is_working() && t.panel.counts().finished() == 1
    });
    assert_eq!(
        h.state().panel.counts().error,
        1,
        "the body assertion failed"
    );
}

#[test]
fn items_may_name_library_profiles_and_an_unknown_name_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let library = tempfile::tempdir().unwrap();
    std::fs::write(
        library.path().join("team.json"),
        serde_json::to_string(&profile()).unwrap(),
    )
    .unwrap();
    let list = dir.path().join("named.jsonl");
    std::fs::write(
        &list,
        "{\"url\": \"http://127.0.0.1:9/a\", \"profile\": \"team\"}\n{\"url\": \"http://127.0.0.1:9/b\", \"profile\": \"nope\"}\n{\"url\": \"http://127.0.0.1:9/c\", \"profile\": \"aws-standard\"}\n",
    )
    .unwrap();
    let link = core_support::batch_link(dir.path(), Some(library.path().to_path_buf()));
    let mut h = tab_with(link);
    h.run();
    type_keys(&mut h, "List file", list.to_str().unwrap());
    h.get_by_label("Import").click();
    h.run();
    let began = Instant::now();
    while h.state().panel.problem().is_none() {
        assert!(began.elapsed() < Duration::from_secs(20), "no answer");
        std::thread::sleep(Duration::from_millis(5));
        h.run();
    }
    let problem = h.state().panel.problem().unwrap().to_owned();
    assert!(
        problem.contains("named.jsonl:2:44: unknown profile `nope`") && !problem.contains(":1:"),
        "only the unknown name's line is named: {problem}"
    );
    assert!(h.state().panel.batch_id().is_none(), "nothing queued");
    h.get_by_label("Skip bad lines").click();
    h.run();
    h.get_by_label("Import").click();
    h.run();
    until(&mut h, &|t| t.panel.batch_id().is_some());
    assert_eq!(
        h.state().panel.counts().pending,
        2,
        "the library and built-in names queue"
    );
}
