//! Strategy picker and the strategy's parameters, with units and the formula in every tooltip
//! (DESIGN.md §2). Used for the main backoff and for `response_header`'s fallback.

use super::controls::{check, picker};
use super::header_delay_editor::header_delay_editor;
use super::ms_field::{ms_field, optional_ms_field};
use super::number_field::{NumberSpec, number_field};
use super::script_editor::script_editor;
use crate::model::{Backoff, Strategy};
use crate::policy::PolicyError;
use egui::Ui;

/// Starter script for a new `custom` backoff.
pub const DEFAULT_SCRIPT: &str = "// ctx.retry (n ≥ 1), ctx.status (or ()), ctx.prev_wait_ms, ctx.elapsed_ms\n\
fn get_delay(ctx) {\n    let d = 500 * ctx.retry;\n    if d > 5000 { return (); }\n    d\n}\n";

/// Draws the editor for `backoff`; `id` keeps widget ids distinct for nested fallbacks and
/// `nested` hides strategies a fallback may not use. Returns true when anything changed.
pub fn backoff_editor(
    ui: &mut Ui,
    id: &str,
    backoff: &mut Backoff,
    nested: bool,
    script_error: Option<&PolicyError>,
) -> bool {
    let mut changed = false;
    let formulas: Vec<(Strategy, String)> = Strategy::ALL
        .into_iter()
        .filter(|&s| {
            // A fallback may not use these (the problems list says so when one does).
            !nested
                || s == backoff.strategy
                || !matches!(s, Strategy::ResponseHeader | Strategy::Custom)
        })
        .map(|s| (s, formula_text(s)))
        .collect();
    let choices: Vec<_> = formulas
        .iter()
        .map(|(s, f)| (*s, s.id(), f.as_str()))
        .collect();
    let label = if nested {
        "Fallback strategy"
    } else {
        "Strategy"
    };
    changed |= picker(ui, (id, "strategy"), label, &mut backoff.strategy, &choices)
        .on_hover_text(formula_text(backoff.strategy))
        .changed();
    ui.label(
        egui::RichText::new(formula_text(backoff.strategy))
            .small()
            .weak(),
    );
    let formula = formula_text(backoff.strategy);
    let s = backoff.strategy;
    let uses_base = !matches!(s, Strategy::ResponseHeader | Strategy::Custom);
    let uses_window = matches!(
        s,
        Strategy::Exponential | Strategy::Fixed | Strategy::ResponseHeader
    );
    if uses_base {
        changed |= ms_field(
            ui,
            &format!("profile.{id}.base_delay_ms"),
            &label_for(nested, "Base delay"),
            &mut backoff.base_delay_ms,
            &format!("b, ms — {formula}"),
        );
    }
    changed |= optional_ms_field(
        ui,
        &format!("profile.{id}.max_delay_ms"),
        &label_for(nested, "Max delay"),
        &mut backoff.max_delay_ms,
        10_000,
        &format!("c, ms (cap; unset = no cap, still clamped at 24 h) — {formula}"),
    );
    if uses_window {
        changed |= ms_field(
            ui,
            &format!("profile.{id}.jitter_window_ms"),
            &label_for(nested, "Jitter window"),
            &mut backoff.jitter_window_ms,
            &format!("w, ms: U[0, w] added after the cap — {formula}"),
        );
    }
    if s == Strategy::ExponentialProportional {
        let tip = format!("p: the wait is multiplied by U[1−p, 1+p] — {formula}");
        let path = format!("profile.{id}.jitter_ratio");
        let label = label_for(nested, "Jitter ratio");
        changed |= number_field(
            ui,
            NumberSpec::new(&path, &label).tooltip(&tip),
            &mut backoff.jitter_ratio,
        );
    }
    changed |= check(
        ui,
        &format!("profile.{id}.hard_cap"),
        &mut backoff.hard_cap,
        &label_for(nested, "Hard cap"),
        "clamp the final wait to c after every jitter, so no wait exceeds the max delay",
    );
    if s == Strategy::ResponseHeader {
        changed |= header_delay_editor(ui, id, backoff);
        let fallback = backoff
            .fallback
            .get_or_insert_with(|| Box::new(Backoff::new(Strategy::Exponential)));
        ui.group(|ui| {
            ui.label("Fallback (header missing or unusable)");
            changed |= backoff_editor(ui, &format!("{id}.fallback"), fallback, true, None);
        });
    }
    if s == Strategy::Custom {
        let script = backoff
            .script
            .get_or_insert_with(|| DEFAULT_SCRIPT.to_owned());
        changed |= script_editor(ui, &format!("profile.{id}.script"), script, script_error);
    }
    changed
}

/// The strategy's formula with glyphs egui's default fonts lack replaced (`→` becomes `->`).
pub fn formula_text(strategy: Strategy) -> String {
    strategy.formula().replace('→', "->")
}

fn label_for(nested: bool, name: &str) -> String {
    if nested {
        format!("Fallback {}", name.to_lowercase())
    } else {
        name.to_owned()
    }
}
