//! Report…: the flakiness report of the runs the History filters select, as `retryscope
//! report` makes it. The panel's URL and date filters are the report's selection (`--url`,
//! `--since`, `--until`); the method and outcome filters have no counterpart there and the
//! dialog says they are left out. The format is picked here, the file in the save dialog; the
//! store actor reads, renders and writes ([`crate::service::report_file::write_report`]), and
//! the result comes back as a status line.

use super::{HistoryAction, HistoryFilters, HistoryPanel};
use crate::service::HistoryRequest;
use crate::service::report_file::{ReportFormat, WrittenReport, describe};
use crate::store::RunQuery;
use crate::ui::controls::{answer_buttons, picker};
use std::path::PathBuf;

/// Label of the button that opens the dialog.
pub const REPORT_LABEL: &str = "Report…";
/// Label of the dialog's button that asks for the file.
pub const SAVE_REPORT_LABEL: &str = "Save report…";

/// The dialog's state.
#[derive(Debug, Default)]
pub struct ReportDialog {
    /// The dialog shows.
    pub open: bool,
    /// The format picked.
    pub format: ReportFormat,
    /// The report waiting for its file name.
    pending: Option<(RunQuery, ReportFormat)>,
}

/// The report's selection from `filters` (URL, From and To, as the CLI's `--url`, `--since`,
/// `--until`), and the filters set that it leaves out, as `Method GET`.
pub fn report_query(filters: &HistoryFilters) -> (RunQuery, Vec<String>) {
    let (panel, _) = filters.query();
    let query = RunQuery {
        url_contains: panel.url_contains,
        since_unix_ms: panel.since_unix_ms,
        until_unix_ms: panel.until_unix_ms,
        ..RunQuery::default()
    };
    let mut left_out = Vec::new();
    if !filters.method.is_empty() {
        left_out.push(format!("Method {}", filters.method));
    }
    if let Some(outcome) = filters.outcome {
        left_out.push(format!("Outcome {}", outcome.id()));
    }
    (query, left_out)
}

/// What the dialog says the report covers, as the report names its selection
/// ([`describe`]): `url `/orders`, since 2026-12-01T00:00:00+01:00` or `every recorded run`.
fn applied(query: &RunQuery) -> String {
    let parts: Vec<String> = describe(query)
        .iter()
        .map(|(k, v)| format!("{k} `{v}`"))
        .collect();
    if parts.is_empty() {
        "every recorded run".to_owned()
    } else {
        format!("the runs of {}", parts.join(", "))
    }
}

/// The status line of a finished report.
pub fn report_status(result: Result<WrittenReport, String>) -> (bool, String) {
    match result {
        Ok(w) => {
            let left_out = if w.left_out.is_empty() {
                String::new()
            } else {
                format!(" (left out: {})", w.left_out.join("; "))
            };
            let text = format!(
                "Report of {} written to {}{left_out}",
                crate::model::counted(w.runs, "run", "runs"),
                w.path.display()
            );
            (false, text)
        }
        Err(e) => (true, format!("No report: {e}")),
    }
}

impl HistoryPanel {
    /// Asks for the file of the report of `query` in `format`, then writes it as
    /// [`Self::write_report`] does: Report… and the Watches tab's report of a watch.
    pub fn report_for(&mut self, query: RunQuery, format: ReportFormat) {
        let stem = query.watch_id.as_deref().map_or_else(
            || "retryscope-report".to_owned(),
            |w| format!("watch-{}", &w[..w.len().min(8)]),
        );
        self.report.pending = Some((query, format));
        self.actions.push(HistoryAction::ChooseReportFile {
            suggested_name: format!("{stem}.{}", format.extension()),
        });
    }

    /// Writes the report asked for with [`SAVE_REPORT_LABEL`] to `path` (its format's
    /// extension added when it has none), off the UI thread; `None` (the save dialog was
    /// cancelled) drops it.
    pub fn write_report(&mut self, path: Option<PathBuf>) {
        let (Some((query, format)), Some(path)) = (self.report.pending.take(), path) else {
            return;
        };
        let path = crate::store::with_default_extension(path, format.extension());
        self.send(HistoryRequest::Report {
            query,
            format,
            path,
        });
    }
}

/// Draws the dialog when open (below the panel's actions).
pub fn show(panel: &mut HistoryPanel, ui: &mut egui::Ui) {
    if !panel.report.open {
        return;
    }
    let (query, left_out) = report_query(&panel.filters);
    ui.group(|ui| {
        ui.strong("Flakiness report");
        ui.label(format!(
            "Covers {}, as `retryscope report` selects them; secrets are masked.",
            applied(&query)
        ));
        if !left_out.is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "Not applied: {} (a report takes the URL and date filters only).",
                    left_out.join(", ")
                ),
            );
        }
        let formats = ReportFormat::ALL.map(|f| (f, f.label(), ""));
        let format = &mut panel.report.format;
        picker(ui, "history.report.format", "Format", format, &formats);
        let tip = "choose the file; the report is written in the background";
        let answers = [
            (SAVE_REPORT_LABEL, tip, true),
            ("Cancel report", "no report", false),
        ];
        let Some(save) = answer_buttons(ui, &answers) else {
            return;
        };
        panel.report.open = false;
        if save {
            let format = panel.report.format;
            panel.report_for(query, format);
        }
    });
}
