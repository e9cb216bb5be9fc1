//! The Batch tab's list of earlier batches: id, created, source file, counts per state, state
//! ([`crate::model::BatchState`]),
//! with Open (its items in the table), Resume (work what is left) and Cancel (its pending items).

use super::BatchPanel;
use crate::model::BatchCounts;
use crate::service::{BatchCommand, Interrupted};
use crate::store::BatchRecord;

/// The counts that are not 0 (`15 done · 25 pending`), `empty` for none.
pub fn short_counts(c: &BatchCounts) -> String {
    let parts: Vec<String> = [
        (c.done, "done"),
        (c.error, "error"),
        (c.cancelled, "cancelled"),
        (c.pending, "pending"),
        (c.running, "running"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, s)| format!("{n} {s}"))
    .collect();
    if parts.is_empty() {
        "empty".into()
    } else {
        parts.join(" · ")
    }
}

/// Most rows shown before the list scrolls.
const LIST_HEIGHT: f32 = 150.0;

/// What a row's button asked.
enum Ask {
    Open(String, BatchCounts),
    Resume(String, BatchCounts),
    Cancel(String),
}

/// Draws the list (collapsed when no batch is unfinished).
pub fn show(panel: &mut BatchPanel, ui: &mut egui::Ui) {
    let Some(batches) = panel.batches.as_ref() else {
        return;
    };
    if batches.is_empty() {
        return;
    }
    let unfinished = panel.unfinished().len();
    let unfinished_text = if unfinished > 0 {
        format!(", {unfinished} unfinished")
    } else {
        String::new()
    };
    let title = format!("Earlier batches ({}{unfinished_text})", batches.len());
    let mut ask = None;
    egui::CollapsingHeader::new(title)
        .id_salt("batch.earlier")
        .default_open(unfinished > 0)
        .show(ui, |ui| {
            egui::ScrollArea::both()
                .id_salt("batch.earlier.scroll")
                .max_height(LIST_HEIGHT)
                .show(ui, |ui| {
                    egui::Grid::new("batch.earlier.grid")
                        .striped(true)
                        .num_columns(6)
                        .show(ui, |ui| {
                            for title in ["", "Batch", "State", "Items", "Created", "Source"] {
                                ui.strong(title);
                            }
                            ui.end_row();
                            for b in batches {
                                if let Some(a) = row(panel, ui, b) {
                                    ask = Some(a);
                                }
                                ui.end_row();
                            }
                        });
                });
        });
    match ask {
        Some(Ask::Open(id, counts)) => panel.open(&id, counts),
        Some(Ask::Resume(id, counts)) => panel.resume(&id, counts, Interrupted::Ask),
        Some(Ask::Cancel(id)) => panel.send(BatchCommand::CancelQueued(id)),
        None => {}
    }
}

fn row(panel: &BatchPanel, ui: &mut egui::Ui, b: &BatchRecord) -> Option<Ask> {
    let worked = panel.worked.as_deref() == Some(b.id.as_str());
    let shown = panel.batch.as_deref() == Some(b.id.as_str());
    // The batch being worked and shown has live counts; the list's are from its last reply.
    let counts = if worked && shown {
        panel.counts
    } else {
        b.counts
    };
    // The buttons come first so a narrow window keeps them in view.
    let left = counts.pending + counts.running > 0;
    let mut ask = None;
    #[rustfmt::skip]
    let buttons = [
        (!shown, "Open", "show this batch's items in the table", Ask::Open(b.id.clone(), counts)),
        (!panel.working && left, "Resume",
         "send the items left pending (items left running by a closed app are sent again from attempt 1)",
         Ask::Resume(b.id.clone(), counts)),
        (!worked && left, "Cancel", "cancel the items left pending; finished items keep their results",
         Ask::Cancel(b.id.clone())),
    ];
    ui.horizontal(|ui| {
        for (enabled, label, tip, asked) in buttons {
            let button = egui::Button::new(label).small();
            if ui.add_enabled(enabled, button).on_hover_text(tip).clicked() {
                ask = Some(asked);
            }
        }
    });
    let short = super::short_id(&b.id).to_owned();
    // The batch shown in the table is in bold.
    let label = if shown {
        egui::RichText::new(short).strong()
    } else {
        egui::RichText::new(short)
    };
    ui.label(label).on_hover_text(&b.id);
    ui.label(b.state(worked).word());
    ui.label(short_counts(&counts))
        .on_hover_text(counts.summary());
    ui.label(b.created_at.format("%m-%d %H:%M").to_string())
        .on_hover_text(b.created_at.to_rfc3339());
    let source = b.source.as_deref().map_or_else(
        || "-".into(),
        |s| {
            std::path::Path::new(s)
                .file_name()
                .map_or_else(|| s.to_owned(), |n| n.to_string_lossy().into_owned())
        },
    );
    let r = ui.label(source);
    if let Some(path) = &b.source {
        r.on_hover_text(path);
    }
    ask
}
