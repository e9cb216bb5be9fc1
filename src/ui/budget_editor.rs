//! Policy editor sections of profile format 2 (DESIGN.md §7): max retries with "unlimited", the
//! throttling class (statuses and its own backoff) and the retry budget (token bucket).
//!
//! Every control is labelled and keyed by the field path it edits (`profile.retry_budget.capacity`).

use super::backoff_editor::backoff_editor;
use super::controls::{check, error_line, picker};
use super::field_id::field_id;
use super::number_field::{NumberSpec, number_field, optional_number_field};
use super::policy_editor::status_row;
use super::typed_text::TypedText;
use crate::model::{Backoff, BudgetCharge, BudgetScope, RetryBudget, RetryProfile, Strategy};
use egui::Ui;

/// Max retries given when "Unlimited retries" is turned off.
const DEFAULT_MAX_RETRIES: u32 = 3;

/// `Max retries` (a count up to `u32::MAX`) with an `Unlimited retries` checkbox; unlimited needs
/// a deadline, said under the field. True when changed.
pub fn max_retries_editor(ui: &mut Ui, profile: &mut RetryProfile) -> bool {
    let mut changed = false;
    let mut unlimited = profile.max_retries.is_none();
    let tip = "retry until the deadline (then required) or a cancel";
    if check(
        ui,
        "profile.max_retries.unlimited",
        &mut unlimited,
        "Unlimited retries",
        tip,
    ) {
        profile.max_retries = if unlimited {
            None
        } else {
            Some(DEFAULT_MAX_RETRIES)
        };
        changed = true;
    }
    match profile.max_retries.as_mut() {
        Some(r) => {
            changed |= number_field(
                ui,
                NumberSpec::new("profile.max_retries", "Max retries").tooltip(
                    "R: at most R + 1 attempts (the VBScript seed's \"4\" attempts is R = 3)",
                ),
                r,
            );
            ui.weak(format!("attempts = retries + 1 = {}", u64::from(*r) + 1));
        }
        None if profile.deadline_ms.is_none() => {
            let problem = "unlimited retries need a deadline; turn on Deadline below";
            error_line(ui, Some(problem));
        }
        None => _ = ui.weak("retries go on until the deadline or a cancel"),
    }
    changed
}

/// UI-only state of the throttling and budget sections: the status text as typed.
#[derive(Debug, Default)]
pub struct ClassesEditor {
    status: TypedText,
}

impl ClassesEditor {
    /// Draws the throttling class and the retry budget; true when the profile changed.
    pub fn ui(&mut self, ui: &mut Ui, profile: &mut RetryProfile) -> bool {
        let mut changed = false;
        ui.strong("Throttling class")
            .on_hover_text("retryable outcomes are throttling (these statuses), timeout (timeout and connect_timeout errors) or transient (the rest)");
        changed |= status_row(
            &mut self.status,
            ui,
            ("profile.throttling.status", "Throttling status"),
            &mut profile.throttling.status,
            "statuses classed as throttling, e.g. 429 (they must also be retryable)",
        );
        let mut own = profile.throttling.backoff.is_some();
        let (path, tip) = (
            "profile.throttling.backoff.enabled",
            "throttling outcomes wait with this backoff instead of the main one",
        );
        if check(ui, path, &mut own, "Own backoff for throttling", tip) {
            profile.throttling.backoff = own.then(|| throttling_default(&profile.backoff));
            changed = true;
        }
        if let Some(b) = profile.throttling.backoff.as_mut() {
            ui.indent("throttling.backoff", |ui| {
                changed |= backoff_editor(ui, "throttling.backoff", b, false, None);
            });
        }
        ui.separator();
        changed |= budget_section(ui, profile);
        changed
    }
}

/// A throttling backoff to start from: the main one when computed, else its fallback, else an
/// exponential one.
fn throttling_default(main: &Backoff) -> Backoff {
    match main.strategy {
        Strategy::Custom => Backoff::new(Strategy::Exponential),
        _ => main.clone(),
    }
}

/// A new budget: AWS standard retry mode's (500 tokens, 5 / 10 / 5, refund, +1, per host).
fn default_budget() -> RetryBudget {
    RetryBudget {
        capacity: 500.0,
        initial: None,
        cost: crate::model::BudgetCost::default(),
        refund_on_retry_success: true,
        success_increment: 1.0,
        min_balance: 0.0,
        min_balance_exclusive: false,
        charge: BudgetCharge::Retry,
        scope: BudgetScope::Host,
    }
}

/// The "Cost taken" picker's choices: value, text, tooltip.
#[rustfmt::skip]
const CHARGES: [(BudgetCharge, &str, &str); 2] = [
    (BudgetCharge::Retry, "before each retry", "AWS: a refused retry takes nothing"),
    (BudgetCharge::Failure, "on every retryable failure", "gRPC: even the last or a refused one"),
];

/// The "Budget shared by" picker's choices: value, text, tooltip.
#[rustfmt::skip]
const SCOPES: [(BudgetScope, &str, &str); 3] = [
    (BudgetScope::Host, "host", "every run to the same scheme, host and port"),
    (BudgetScope::Profile, "profile", "every run with this profile name"),
    (BudgetScope::Run, "run", "nobody: a fresh bucket per run"),
];

fn budget_section(ui: &mut Ui, profile: &mut RetryProfile) -> bool {
    let mut changed = false;
    let mut on = profile.retry_budget.is_some();
    let tip = "a token bucket each retry draws from; an empty bucket stops retrying (AWS retry quota, gRPC retryThrottling)";
    if check(
        ui,
        "profile.retry_budget.enabled",
        &mut on,
        "Retry budget",
        tip,
    ) {
        profile.retry_budget = on.then(default_budget);
        changed = true;
    }
    let Some(b) = profile.retry_budget.as_mut() else {
        return changed;
    };
    let tokens = |path: &'static str, label: &'static str, tip: &'static str| {
        NumberSpec::new(path, label).unit("tokens").tooltip(tip)
    };
    changed |= number_field(
        ui,
        tokens(
            "profile.retry_budget.capacity",
            "Budget capacity",
            "most tokens the bucket holds (AWS 500)",
        ),
        &mut b.capacity,
    );
    let capacity = b.capacity;
    changed |= optional_number_field(
        ui,
        tokens(
            "profile.retry_budget.initial",
            "Initial tokens",
            "tokens when the bucket is made; off = the capacity",
        ),
        &mut b.initial,
        capacity,
    );
    // (field path, label, value, tooltip)
    #[rustfmt::skip]
    let costs = [
        ("profile.retry_budget.cost.transient", "Transient retry cost", &mut b.cost.transient,
         "tokens a retry of a transient outcome takes"),
        ("profile.retry_budget.cost.timeout", "Timeout retry cost", &mut b.cost.timeout,
         "tokens a retry after a timeout takes"),
        ("profile.retry_budget.cost.throttling", "Throttling retry cost", &mut b.cost.throttling,
         "tokens a retry of a throttling outcome takes"),
    ];
    for (path, label, value, tip) in costs {
        changed |= number_field(ui, tokens(path, label, tip), value);
    }
    changed |= check(
        ui,
        "profile.retry_budget.refund_on_retry_success",
        &mut b.refund_on_retry_success,
        "Refund on retry success",
        "a retried attempt that succeeds gives back its retry's cost",
    );
    #[rustfmt::skip]
    let balance = [
        ("profile.retry_budget.success_increment", "Success increment", &mut b.success_increment,
         "tokens a success adds when nothing is refunded (AWS 1 on a first-attempt success; gRPC tokenRatio)"),
        ("profile.retry_budget.min_balance", "Minimum balance", &mut b.min_balance,
         "a retry needs the balance after its cost to stay at least this (gRPC: maxTokens / 2)"),
    ];
    for (path, label, value, tip) in balance {
        changed |= number_field(ui, tokens(path, label, tip), value);
    }
    changed |= check(
        ui,
        "profile.retry_budget.min_balance_exclusive",
        &mut b.min_balance_exclusive,
        "Strictly above minimum",
        "the balance must stay above the minimum, not at it (gRPC)",
    );
    changed |= picker(
        ui,
        field_id("profile.retry_budget.charge"),
        "Cost taken",
        &mut b.charge,
        &CHARGES,
    )
    .changed();
    changed |= picker(
        ui,
        field_id("profile.retry_budget.scope"),
        "Budget shared by",
        &mut b.scope,
        &SCOPES,
    )
    .changed();
    changed
}
