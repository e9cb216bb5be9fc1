//! The Batch tab driven as a user would, by label: type the list file, import, start, watch the
//! counts reach the end, select a row and open its run; with no service it says why.

#![allow(clippy::unwrap_used)]

mod ui_support;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::demo::DemoServer;
use retryscope::model::RetryProfile;
use retryscope::service::{BatchService, BudgetRegistry};
use retryscope::store::MemorySecretStore;
use retryscope::ui::batch::{BatchAction, BatchPanel};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Tab {
    panel: BatchPanel,
    profile: RetryProfile,
    actions: Vec<BatchAction>,
}

fn harness(tab: Tab) -> Harness<'static, Tab> {
    Harness::builder().with_size([900.0, 600.0]).build_ui_state(
        |ui, t: &mut Tab| {
            let now = Instant::now();
            t.panel.poll(now);
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
    let importer = retryscope::ui::batch::list_importer();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("paths.txt");
    std::fs::write(&list, format!("curl '{base}/status/200?key=a'\ncurl '{base}/status/404?key=b'\ncurl '{base}/status/200?key=c'\n")).unwrap();
    let writer = retryscope::service::open_history_writer(dir.path()).unwrap();
    let service = BatchService::spawn(
        dir.path().to_path_buf(),
        Arc::new(MemorySecretStore::new()),
        importer,
        Some(writer),
        BudgetRegistry::new(),
        Arc::new(|| {}),
    )
    .unwrap();
    let mut panel = BatchPanel::new();
    panel.attach(service);
    let mut h = harness(Tab {
        panel,
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
            assert!(began.elapsed() < Duration::from_secs(20), "timed out");
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
