//! The Lab tab: the current profile's distribution with its warnings, a contention sweep and
//! the stack calculator, found by label (inline workers: results arrive in the same frame).

#![allow(
    clippy::float_cmp,
    reason = "a CSV written with Rust's shortest round-trip floats parses back to the same numbers"
)]

mod ui_support;

use egui_kittest::kittest::Queryable;

#[test]
fn the_lab_tab_shows_distribution_sweep_and_stack() {
    let (state, _probe) = ui_support::workbench();
    let mut h = ui_support::harness_sized(state, [1400.0, 2600.0]);
    h.run();
    h.get_by_label("Lab").click();
    h.run();
    h.run();
    assert!(h.state().lab_shown());
    let retries = h
        .state()
        .profile
        .current
        .profile
        .max_retries
        .expect("a finite default");
    let d = h.state().lab.distribution().expect("sampled inline");
    assert_eq!(d.retries.len(), retries as usize);
    for r in &d.retries {
        let (lo, hi) = r.wait_bounds.expect("a computed default");
        assert!(lo <= r.wait.min && r.wait.max <= hi, "{r:?}");
    }
    assert!(h.query_by_label("Copy distribution CSV").is_some());
    assert!(h.query_by_label("Show cumulative elapsed time").is_some());

    h.state_mut().lab.settings.max_clients = 3;
    h.state_mut().lab.settings.runs = 2;
    h.get_by_label("Run sweep").click();
    h.run();
    h.run();
    let points = h.state().lab.sweep_points().expect("swept inline");
    assert_eq!(points.len(), 3);
    assert!(points.iter().all(|p| p.results.len() == 7));
    assert!(!h.state().lab.is_running());
    assert!(h.query_by_label("Copy sweep CSV").is_some());

    // Load over time at N = 4: the plot and a table with gave-up and peak/mean load.
    h.state_mut().lab.settings.load_clients = 4;
    h.get_by_label("Simulate load over time").click();
    h.run();
    h.run();
    assert!(h.query_by_label("peak load/s").is_some());
    assert!(h.query_by_label("gave up").is_some());
    assert!(h.query_by_label("Export load CSV…").is_some());

    // Layers: the current profile around the AWS SDK's 3 attempts.
    h.get_by_label("Simulate stack").click();
    h.run();
    h.run();
    // As `simulate --stack` works it out: the current profile's triage of the simulated 503
    // decides whether it multiplies the SDK's attempts.
    let current = h.state().profile.current.profile.clone();
    let aws = retryscope::profile::builtin("aws-standard").expect("built-in");
    let a = retryscope::sim::analyse_stack(&[current, aws], 1.0, 503).expect("compiles");
    let worst = a.worst_attempts.expect("finite");
    let own = if a.not_retrying.contains(&0) {
        1
    } else {
        u64::from(retries) + 1
    };
    assert_eq!(worst, own * 3);
    assert!(
        h.query_by_label_contains(&format!("{worst} attempts reach the server"))
            .is_some()
    );

    h.get_by_label("Timeline").click();
    h.run();
    assert!(!h.state().lab_shown());
}

/// A workbench whose save dialogs answer `answers` in turn, on the Lab tab.
fn lab_with_dialogs(
    answers: Vec<Option<std::path::PathBuf>>,
) -> egui_kittest::Harness<'static, retryscope::ui::workbench::WorkbenchState> {
    use retryscope::service::CoreLink;
    use retryscope::ui::file_dialogs::ScriptedDialogs;
    use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
    let (engine, _probe) = CoreLink::probe();
    let state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::new(answers)),
        demo_base_url: Some(ui_support::DEMO.into()),
        library_dir: None,
        persisted: None,
    });
    let mut h = ui_support::harness_sized(state, [1400.0, 2600.0]);
    h.run();
    h.get_by_label("Lab").click();
    h.run();
    h.run();
    h
}

/// Steps frames until `path` exists (the export's worker thread writes it), then reads it.
fn written(
    h: &mut egui_kittest::Harness<'_, retryscope::ui::workbench::WorkbenchState>,
    path: &std::path::Path,
) -> Vec<u8> {
    use std::time::{Duration, Instant};
    let deadline = Instant::now() + Duration::from_secs(20);
    while !path.exists() && Instant::now() < deadline {
        // A failure bound while the worker draws, not a timing test.
        std::thread::sleep(Duration::from_millis(20));
        h.run();
    }
    h.run();
    std::fs::read(path).unwrap_or_else(|e| panic!("{} was written: {e}", path.display()))
}

#[test]
fn lab_plots_export_as_csv_and_png_through_the_save_dialog() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sweep_csv = dir.path().join("sweep.csv");
    // No extension: `.png` is added.
    let sweep_png = dir.path().join("sweep");
    let dist_csv = dir.path().join("dist.csv");
    let dist_png = dir.path().join("dist.png");
    let mut h = lab_with_dialogs(vec![
        Some(sweep_csv.clone()),
        Some(sweep_png.clone()),
        Some(dist_csv.clone()),
        Some(dist_png.clone()),
    ]);
    assert!(h.query_by_label("Export distribution PNG…").is_some());
    assert!(h.query_by_label("Export distribution CSV…").is_some());
    h.state_mut().lab.settings.max_clients = 3;
    h.state_mut().lab.settings.runs = 2;
    h.get_by_label("Run sweep").click();
    h.run();
    h.run();
    assert!(h.query_by_label("Export sweep PNG…").is_some());

    h.get_by_label("Export sweep CSV…").click();
    h.run();
    h.run();
    let csv = String::from_utf8(written(&mut h, &sweep_csv)).expect("utf-8");
    let points = h.state().lab.sweep_points().expect("swept").to_vec();
    let mut rows = csv.lines();
    assert_eq!(
        rows.next(),
        Some("clients,strategy,label,total_calls,completion_ms,gave_up,peak_load,mean_load")
    );
    let rows: Vec<&str> = rows.collect();
    assert_eq!(rows.len(), 3 * 7, "{csv}");
    // Every row holds the plotted numbers of its N and strategy.
    let mut i = 0;
    for p in &points {
        for r in &p.results {
            let cells: Vec<&str> = rows[i].split(',').collect();
            assert_eq!(cells[0].parse::<u32>().expect("N"), p.clients);
            assert_eq!(cells[1], r.strategy);
            let n = cells.len();
            let calls: f64 = cells[n - 5].parse().expect("total_calls");
            let completion: f64 = cells[n - 4].parse().expect("completion_ms");
            assert_eq!((calls, completion), (r.total_calls, r.completion_ms));
            i += 1;
        }
    }
    assert!(
        h.query_by_label_contains("lab sweep csv saved").is_some(),
        "the status line says where it went"
    );

    h.get_by_label("Export sweep PNG…").click();
    h.run();
    h.run();
    let png = written(&mut h, &dir.path().join("sweep.png"));
    assert_eq!(&png[1..4], b"PNG");
    let image = image::load_from_memory(&png).expect("decodes");
    assert_eq!(
        (image.width(), image.height()),
        (1200, 2 * 420),
        "two charts: calls and completion"
    );

    h.get_by_label("Export distribution CSV…").click();
    h.run();
    h.run();
    let csv = String::from_utf8(written(&mut h, &dist_csv)).expect("utf-8");
    let d = h.state().lab.distribution().expect("sampled").clone();
    let rows: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .map(|c| c.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), d.retries.len());
    for (row, r) in rows.iter().zip(&d.retries) {
        assert_eq!(row[0], f64::from(r.retry));
        assert_eq!(
            [row[2], row[3], row[4], row[5], row[6]],
            [r.wait.min, r.wait.p5, r.wait.p50, r.wait.p95, r.wait.max]
        );
    }

    h.get_by_label("Export distribution PNG…").click();
    h.run();
    h.run();
    let png = written(&mut h, &dist_png);
    assert_eq!(&png[1..4], b"PNG");
}

#[test]
fn a_cancelled_lab_export_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = lab_with_dialogs(vec![None]);
    h.get_by_label("Export distribution CSV…").click();
    h.run();
    h.run();
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
    assert!(
        h.query_by_label_contains("lab distribution csv saved")
            .is_none()
    );
}

#[test]
fn the_stack_view_says_which_layer_does_not_retry_and_what_is_ignored() {
    let (state, _probe) = ui_support::workbench();
    let mut h = ui_support::harness_sized(state, [1400.0, 2600.0]);
    h.run();
    h.get_by_label("Lab").click();
    h.run();
    // Outer: seed 000's VBScript module (retries 503); inner: the ServiceNow example, which
    // retries only 429.
    h.state_mut().lab.stack_layers = vec![
        Some("vbscript-module".to_owned()),
        Some("servicenow-exponential".to_owned()),
    ];
    h.run();
    h.get_by_label("Simulate stack").click();
    h.run();
    h.run();
    assert!(
        h.query_by_label_contains(
            "layer 2: its triage does not retry 503, so it makes one attempt per call"
        )
        .is_some()
    );
    assert!(
        h.query_by_label_contains("worst case: 4 attempts reach the server")
            .is_some()
    );
    assert!(
        h.query_by_label_contains("expected: 4.00 attempts reach the server")
            .is_some()
    );
    assert!(h.query_by_label_contains("mean 4.00 attempts").is_some());
    // The AWS SDK's quota inside: the analytic figures say they leave it out.
    h.state_mut().lab.stack_layers = vec![
        Some("vbscript-module".to_owned()),
        Some("aws-standard".to_owned()),
    ];
    h.run();
    h.get_by_label("Simulate stack").click();
    h.run();
    h.run();
    assert!(
        h.query_by_label_contains("expected, ignoring budgets: 12.00 attempts")
            .is_some()
    );
}

/// The Lab speaks of the status the profile retries (the default retries 429, not 503), says
/// each result in one plain sentence, and names the series above each plot (no legend over
/// the data); the mouse wheel over a plot scrolls the page.
#[test]
fn the_lab_speaks_plainly_and_the_wheel_over_a_plot_scrolls_the_page() {
    let (state, _probe) = ui_support::workbench();
    let mut h = ui_support::harness_sized(state, [1280.0, 800.0]);
    h.run();
    h.get_by_label("Lab").click();
    h.run();
    h.run();
    assert!(
        h.query_by_label_contains("every attempt failing with 429 (a status this profile retries)")
            .is_some()
    );
    assert!(h.query_by_label_contains("failing with 503").is_none());
    assert!(
        h.query_by_label_contains("A request that keeps failing has waited")
            .is_some()
    );
    assert!(
        h.query_by_label("━ exact max").is_some(),
        "legend above the plot"
    );
    h.state_mut().lab.settings.max_clients = 3;
    h.state_mut().lab.settings.runs = 2;
    h.get_by_label("Run sweep").click();
    h.run();
    h.run();
    assert!(
        h.query_by_label_contains("With 3 clients, ").is_some(),
        "one sentence for the sweep"
    );

    // The distribution plot starts under its legend row.
    let legend = h.get_by_label("━ exact max").rect();
    let below = h.get_by_label("Many clients (contention)").rect();
    h.hover_at(egui::pos2(
        legend.center().x + 200.0,
        legend.bottom() + 80.0,
    ));
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -200.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
    h.run();
    let after = h.get_by_label("Many clients (contention)").rect();
    assert!(
        after.top() < below.top() - 50.0,
        "the page scrolled: {below:?} → {after:?}"
    );
}
