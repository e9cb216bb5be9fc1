//! Drawing the Batch tab: import row, controls, progress, the filtered virtualised table.

use super::{BatchAction, BatchPanel};
use crate::model::{BatchItemState, RetryProfile};
use crate::service::BatchCommand;
use crate::service::Interrupted;
use crate::ui::click_row::{click_row, click_table, row_height};
use crate::ui::controls::{answer_buttons, button, error_line, picker};
use crate::ui::panel_parts::{hinted_field, labelled, message_line};
use std::fmt::Write as _;
use std::time::Instant;

/// Draws `panel`; returns the workbench's actions.
pub fn show(
    panel: &mut BatchPanel,
    ui: &mut egui::Ui,
    profile: &RetryProfile,
    now: Instant,
) -> Vec<BatchAction> {
    let mut actions = Vec::new();
    if panel.service.is_none() {
        ui.label(
            panel
                .problem
                .as_deref()
                .unwrap_or("Batches are not available: no data folder."),
        );
        return actions;
    }
    import_ui(panel, ui, profile, &mut actions);
    assertions_ui(panel, ui);
    super::earlier_view::show(panel, ui);
    resend_ui(panel, ui);
    controls_ui(panel, ui);
    progress_ui(panel, ui, now);
    for (is_error, text) in [(true, &panel.problem), (false, &panel.notice)] {
        if let Some(text) = text {
            message_line(ui, is_error, text);
        }
    }
    table_ui(panel, ui, now, &mut actions);
    actions
}

/// Items listed one by one in the question about interrupted items.
const RESEND_LISTED: usize = 5;

/// The question a held-back resume asks: the items in flight when the batch stopped that are
/// not idempotent and carry no Idempotency-Key may have reached the server already.
fn resend_ui(panel: &mut BatchPanel, ui: &mut egui::Ui) {
    let Some(items) = panel.resend_risk() else {
        return;
    };
    let n = items.len();
    let mut text = format!(
        "{} in flight when the batch stopped {} not idempotent and may have reached the server already:",
        crate::model::counted(n as u64, "item", "items"),
        if n == 1 { "was" } else { "were" }
    );
    for item in items.iter().take(RESEND_LISTED) {
        let _ = write!(
            text,
            "\n  #{} {}",
            item.position + 1,
            crate::model::quote::quote_input(&item.label())
        );
    }
    if n > RESEND_LISTED {
        let _ = write!(text, "\n  … and {} more", n - RESEND_LISTED);
    }
    #[rustfmt::skip]
    let answers = [
        ("Send them again", "resume, sending these items again from attempt 1", Some(Interrupted::Resend)),
        ("Skip them", "end these items cancelled, then resume the others", Some(Interrupted::Skip)),
        ("Not now", "leave the batch as it is", None),
    ];
    let answer = ui
        .group(|ui| {
            ui.colored_label(ui.visuals().warn_fg_color, text);
            answer_buttons(ui, &answers)
        })
        .inner;
    if let Some(answer) = answer {
        panel.answer_resend(answer);
    }
}

fn import_ui(
    panel: &mut BatchPanel,
    ui: &mut egui::Ui,
    profile: &RetryProfile,
    actions: &mut Vec<BatchAction>,
) {
    ui.horizontal_wrapped(|ui| {
        let hint = "JSON Lines, CSV, curl commands or HAR";
        hinted_field(
            ui,
            ("List file", "batch.list_path"),
            &mut panel.list_path,
            hint,
            220.0,
        );
        if button(
            ui,
            true,
            "Choose list…",
            "pick the list of requests to import",
        ) {
            actions.push(BatchAction::PickList);
        }
        let concurrency =
            egui::DragValue::new(&mut panel.concurrency).range(1..=crate::model::MAX_CONCURRENCY);
        labelled(ui, "Concurrency", concurrency).on_hover_text("items in flight at once");
        hinted_field(
            ui,
            ("Rate per host", "batch.rate"),
            &mut panel.rate,
            "no limit",
            60.0,
        )
        .on_hover_text("most item starts per second against one host; empty: no limit");
        ui.checkbox(&mut panel.skip_bad_lines, "Skip bad lines")
            .on_hover_text(
                "queue the good lines of a list with malformed ones (each is still reported); \
                 unticked, nothing is queued then",
            );
        ui.checkbox(&mut panel.idempotency_keys, "Idempotency keys")
            .on_hover_text(
                "send every item an Idempotency-Key made of the batch and item ids, the same on \
                 every attempt and resume: a server that honours it runs an item in flight at a \
                 crash only once",
            );
        let tip = format!(
            "queue the list under the current profile ({})",
            profile.name
        );
        if button(ui, true, "Import", tip) {
            panel.import(profile);
        }
    });
}

/// The optional assertions, each with its error under it while it does not parse.
fn assertions_ui(panel: &mut BatchPanel, ui: &mut egui::Ui) {
    let a = &mut panel.assertions;
    // (label, id, hint, text, tooltip)
    #[rustfmt::skip]
    let fields = [
        ("Expect status", "batch.expect_status", "200-299,304", &mut a.status,
         "an item passes only if its final status is in this set"),
        ("Expect JSON", "batch.expect_json", "/state=\"done\"", &mut a.json,
         "POINTER=VALUE: the JSON body at the RFC 6901 pointer equals VALUE (JSON, or a plain string)"),
        ("Expect body", "batch.expect_body", "text the body contains", &mut a.body,
         "an item passes only if its final body contains this text"),
    ];
    ui.horizontal_wrapped(|ui| {
        for (label, id, hint, text, help) in fields {
            hinted_field(ui, (label, id), text, hint, 120.0).on_hover_text(help);
        }
    });
    let problems = panel.assertions.problems();
    for problem in [problems.status, problems.json, problems.body] {
        error_line(ui, problem.as_deref());
    }
}

fn controls_ui(panel: &mut BatchPanel, ui: &mut egui::Ui) {
    let Some(id) = panel.batch.clone() else {
        return;
    };
    let working = panel.shown_is_worked();
    let busy = panel.working;
    let pending = panel.counts.pending + panel.counts.running > 0;
    let failed = panel.counts.error + panel.counts.cancelled > 0;
    ui.horizontal_wrapped(|ui| {
        let start_label = if panel.started.is_some() {
            "Resume"
        } else {
            "Start"
        };
        // (enabled, label, tooltip, command)
        #[rustfmt::skip]
        let commands = [
            (!busy && pending, start_label, "send the pending items", BatchCommand::Start(id.clone())),
            (working, "Pause", "start no more items; runs in flight go back to pending", BatchCommand::Pause),
            (working, "Cancel batch", "cancel the runs in flight and every pending item", BatchCommand::Cancel),
            (!busy && failed, "Re-run failed", "send the error and cancelled items again",
             BatchCommand::RerunFailed(id.clone())),
        ];
        for (enabled, label, tip, command) in commands {
            if button(ui, enabled, label, tip) {
                let works = matches!(command, BatchCommand::Start(_) | BatchCommand::RerunFailed(_));
                panel.send(command);
                panel.working |= works;
            }
        }
        let states: Vec<_> = std::iter::once((None, "all", ""))
            .chain(BatchItemState::ALL.map(|s| (Some(s), s.id(), "")))
            .collect();
        if picker(ui, "batch.filter", "Show", &mut panel.filter, &states).changed() {
            panel.reload();
        }
    });
}

fn progress_ui(panel: &BatchPanel, ui: &mut egui::Ui, now: Instant) {
    if panel.batch.is_none() {
        return;
    }
    let c = panel.counts;
    let total = c.total().max(1);
    let fraction = c.finished() as f32 / total as f32;
    let rate = panel.rate_and_eta(now).filter(|_| panel.shown_is_worked());
    let tail = match rate {
        Some((r, Some(eta))) => format!(" · {r:.1}/s · ETA {} s", eta.as_secs()),
        Some((r, None)) => format!(" · {r:.1}/s"),
        None => String::new(),
    };
    ui.add(egui::ProgressBar::new(fraction).text(format!(
        "{}/{} items{tail}",
        c.finished(),
        c.total()
    )));
    ui.label(format!(
        "{} done · {} error · {} cancelled · {} pending · {} running",
        c.done, c.error, c.cancelled, c.pending, c.running
    ));
}

fn table_ui(
    panel: &mut BatchPanel,
    ui: &mut egui::Ui,
    now: Instant,
    actions: &mut Vec<BatchAction>,
) {
    if panel.batch.is_none() {
        return;
    }
    let run = panel
        .selected
        .and_then(|p| {
            panel
                .page
                .as_ref()
                .and_then(|(_, rows)| rows.iter().find(|r| r.position == p))
        })
        .and_then(|r| r.run_id.clone());
    if button(
        ui,
        run.is_some(),
        "Open run",
        "show the selected item's run in the timeline (or double-click the row)",
    ) && let Some(run) = run
    {
        actions.push(BatchAction::OpenRun(run));
    }
    let total = panel
        .filter
        .map_or(panel.counts.total(), |s| panel.counts.get(s));
    let height = row_height(ui);
    let mut wanted: Vec<u64> = Vec::new();
    let mut clicked: Option<(u64, Option<String>, bool)> = None;
    let selected = panel.selected;
    click_table(ui, "batch.table", &[52.0, 76.0, 36.0, 64.0, 0.0])
        .header(height, |mut header| {
            for title in ["#", "State", "Att.", "Result", "Item · reason"] {
                header.col(|ui| {
                    ui.strong(title);
                });
            }
        })
        .body(|body| {
            let rows = usize::try_from(total).unwrap_or(usize::MAX);
            body.rows(height, rows, |mut row| {
                let index = row.index() as u64;
                let Some(item) = panel.row(index) else {
                    wanted.push(index);
                    row.col(|ui| {
                        ui.weak("…");
                    });
                    return;
                };
                row.set_selected(selected == Some(item.position));
                let result = match (&item.last_status, &item.error_kind) {
                    (Some(s), _) => s.to_string(),
                    (None, Some(k)) => k.clone(),
                    (None, None) => "-".into(),
                };
                let cells = [
                    format!("{}", item.position + 1),
                    item.state.id().to_owned(),
                    item.attempts.to_string(),
                    result,
                    match &item.reason {
                        Some(r) => format!("{} · {r}", item.label()),
                        None => item.label(),
                    },
                ];
                let click = click_row(&mut row, cells.into_iter().map(|c| (c, None)).collect());
                if let Some(double) = click {
                    clicked = Some((item.position, item.run_id.clone(), double));
                }
            });
        });
    if let Some(&first) = wanted.first() {
        panel.want_row(first, now);
    } else if let Some(first) = panel.page.as_ref().map(|(o, _)| *o) {
        // Keep the shown page fresh while the batch runs.
        panel.want_row(first, now);
    } else if total > 0 {
        panel.want_row(0, now);
    }
    if let Some((position, run, open)) = clicked {
        panel.selected = Some(position);
        if open && let Some(run) = run {
            actions.push(BatchAction::OpenRun(run));
        }
    }
}
