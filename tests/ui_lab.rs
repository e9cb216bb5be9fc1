//! The Lab tab: the current profile's distribution with its warnings, a contention sweep and
//! the stack calculator, found by label (inline workers: results arrive in the same frame).

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

    // Layers: the current profile around the AWS SDK's 3 attempts.
    h.get_by_label("Simulate stack").click();
    h.run();
    h.run();
    let worst = (u64::from(retries) + 1) * 3;
    assert!(
        h.query_by_label_contains(&format!("worst case: {worst} attempts reach the server"))
            .is_some()
    );

    h.get_by_label("Timeline").click();
    h.run();
    assert!(!h.state().lab_shown());
}
