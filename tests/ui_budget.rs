//! The policy editor's format-2 controls (DESIGN.md §7), typed into key by key: unlimited
//! retries, the throttling class, the retry budget and the header clamp.

#![allow(
    clippy::float_cmp,
    reason = "typed numbers are parsed exactly; the tests compare them exactly"
)]

mod ui_support;

use egui_kittest::kittest::Queryable;
use retryscope::model::{BudgetScope, Combine, OutcomeClass, StatusRange, StatusSet, Strategy};
use ui_support::type_into;

const SIZE: [f32; 2] = [1600.0, 2400.0];

fn editable() -> egui_kittest::Harness<'static, retryscope::ui::workbench::WorkbenchState> {
    ui_support::editable(SIZE)
}

#[test]
fn unlimited_retries_need_a_deadline_and_a_count_comes_back() {
    let mut h = editable();
    h.get_by_label("Unlimited retries").click();
    h.run();
    assert_eq!(h.state().profile.current.profile.max_retries, None);
    assert!(
        h.query_by_label_contains("unlimited retries need a deadline; turn on Deadline below")
            .is_some()
    );
    assert!(
        h.query_by_label("Max retries").is_none(),
        "no count while unlimited"
    );
    h.get_by_label("Deadline").click();
    h.run();
    assert!(h.state().profile.current.profile.deadline_ms.is_some());
    assert!(
        h.query_by_label_contains("retries go on until the deadline or a cancel")
            .is_some()
    );
    h.get_by_label("Unlimited retries").click();
    h.run();
    assert_eq!(h.state().profile.current.profile.max_retries, Some(3));
    type_into(&mut h, "Max retries", "4294967295");
    assert_eq!(
        h.state().profile.current.profile.max_retries,
        Some(u32::MAX)
    );
    assert!(h.query_by_label_contains("Problems (").is_none());
}

#[test]
fn throttling_statuses_and_own_backoff() {
    let mut h = editable();
    type_into(&mut h, "Throttling status", "429, 503");
    assert_eq!(
        h.state().profile.current.profile.throttling.status,
        StatusSet(vec![StatusRange::single(429), StatusRange::single(503)])
    );
    assert!(
        h.state()
            .profile
            .current
            .profile
            .throttling
            .backoff
            .is_none()
    );
    h.get_by_label("Own backoff for throttling").click();
    h.run();
    let own = h
        .state()
        .profile
        .current
        .profile
        .throttling
        .backoff
        .clone()
        .expect("own backoff");
    assert_eq!(
        own.strategy,
        h.state().profile.current.profile.backoff.strategy,
        "starts as the main one"
    );
}

#[test]
fn a_retry_budget_is_typed_key_by_key() {
    let mut h = editable();
    assert!(h.state().profile.current.profile.retry_budget.is_none());
    h.get_by_label("Retry budget").click();
    h.run();
    let b = h
        .state()
        .profile
        .current
        .profile
        .retry_budget
        .clone()
        .expect("budget on");
    assert_eq!(
        (b.capacity, b.scope),
        (500.0, BudgetScope::Host),
        "AWS's quota to start"
    );
    type_into(&mut h, "Budget capacity", "750");
    type_into(&mut h, "Transient retry cost", "14");
    type_into(&mut h, "Throttling retry cost", "5");
    type_into(&mut h, "Success increment", "0.1");
    h.get_by_label("Refund on retry success").click();
    h.run();
    let b = h
        .state()
        .profile
        .current
        .profile
        .retry_budget
        .clone()
        .expect("budget");
    assert_eq!(b.capacity, 750.0);
    assert_eq!(b.cost.of(OutcomeClass::Transient), 14.0);
    assert_eq!(b.cost.of(OutcomeClass::Throttling), 5.0);
    assert_eq!(b.success_increment, 0.1);
    assert!(!b.refund_on_retry_success);
    h.get_by_label("Retry budget").click();
    h.run();
    assert!(h.state().profile.current.profile.retry_budget.is_none());
}

#[test]
fn clamp_is_picked_and_its_bound_typed() {
    let mut h = editable();
    {
        let p = &mut h.state_mut().profile.current.profile;
        p.backoff.strategy = Strategy::ResponseHeader;
        p.backoff.fallback = Some(Box::new(retryscope::model::Backoff::new(
            Strategy::FullJitter,
        )));
    }
    h.run();
    h.get_by_label("Combine").click();
    h.run();
    h.get_by_label("clamp").click();
    h.run();
    assert_eq!(
        h.state().profile.current.profile.backoff.combine,
        Combine::Clamp
    );
    assert_eq!(
        h.state().profile.current.profile.backoff.clamp_above_ms,
        Some(5000),
        "AWS's 5 s to start"
    );
    type_into(&mut h, "Clamp above computed", "2500");
    assert_eq!(
        h.state().profile.current.profile.backoff.clamp_above_ms,
        Some(2500)
    );
}

#[test]
fn a_clamp_bound_left_behind_by_another_combine_is_a_warning_not_a_problem() {
    let mut h = editable();
    {
        let p = &mut h.state_mut().profile.current.profile;
        p.backoff.strategy = Strategy::ResponseHeader;
        p.backoff.fallback = Some(Box::new(retryscope::model::Backoff::new(
            Strategy::FullJitter,
        )));
        p.backoff.combine = Combine::Max;
        p.backoff.clamp_above_ms = Some(5000);
    }
    for _ in 0..3 {
        h.run();
    }
    assert!(
        h.query_by_label_contains("Warnings (1): these settings never take effect")
            .is_some(),
        "the warning is shown"
    );
    assert!(
        h.query_by_label_contains(
            "backoff.clamp_above_ms: clamp_above_ms 5000 has no effect: combine is \"max\""
        )
        .is_some()
    );
    assert!(
        h.query_by_label_contains("Problems (").is_none(),
        "nothing is refused"
    );
}
