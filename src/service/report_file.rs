//! The flakiness report of a selection of history runs, built one way for both faces
//! (`retryscope report` and the History panel's Report…): the runs read through a
//! [`HistoryStore`] handle (the CLI's own, or the store actor's in the window), the figures
//! ([`crate::report::figures`], secrets masked as recorded and by the report's request view),
//! rendered as HTML, Markdown + PNG or JSON, and written atomically ([`store::write_export`]).

use crate::model::RequestSpec;
use crate::report::{
    MissedSlots, ObservedRun, ReportContext, SentRequest, Timelines, WatchFigures, figures, html,
    markdown, observed_run, outcome_text, timeline_plot,
};
use crate::store::{self, HistoryError, HistoryStore, Missed, RunQuery, WatchError, WriteError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs read from the database per query.
const PAGE: u32 = 1000;

/// Formats of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ReportFormat {
    /// One HTML file: inline CSS, plots as inline SVG and PNG, no network access needed.
    #[default]
    Html,
    /// Markdown, with FILE-over-time.png and FILE-run-N.png beside it.
    Md,
    /// The figures as JSON (docs/formats.md describes them).
    Json,
}

impl ReportFormat {
    /// Every format, the default first.
    pub const ALL: [Self; 3] = [Self::Html, Self::Md, Self::Json];

    /// The file extension, without the dot (`html`, `md`, `json`).
    pub fn extension(self) -> &'static str {
        match self {
            Self::Html => "html",
            Self::Md => "md",
            Self::Json => "json",
        }
    }

    /// The format a file name's extension names (`.md`, `.markdown`, `.json`, `.html`,
    /// `.htm`; any case), if any.
    pub fn from_extension(path: &std::path::Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "html" | "htm" => Some(Self::Html),
            "md" | "markdown" => Some(Self::Md),
            "json" => Some(Self::Json),
            _ => None,
        }
    }

    /// The name shown in the window (`HTML`, `Markdown`, `JSON`).
    pub fn label(self) -> &'static str {
        match self {
            Self::Html => "HTML",
            Self::Md => "Markdown",
            Self::Json => "JSON",
        }
    }
}

/// The runs a selection chose, with what the newest of them sent and ran under.
#[derive(Debug, Default)]
pub struct SelectedRuns {
    /// Oldest first.
    pub runs: Vec<ObservedRun>,
    /// The newest run's request (masked as recorded).
    pub request: Option<RequestSpec>,
    /// The newest run's profile (its recorded JSON).
    pub profile: Option<std::sync::Arc<serde_json::Value>>,
    /// The different profiles and endpoints the runs were recorded with.
    pub recorded_with: crate::sim::RecordedWith,
}

/// Reads the runs `query` selects, oldest first (`query`'s sort is ignored), a page of
/// `PAGE` at a time; a run deleted between a page and its read is skipped.
///
/// # Errors
/// The database cannot be read.
pub fn select_runs(history: &HistoryStore, query: &RunQuery) -> Result<SelectedRuns, HistoryError> {
    let query = RunQuery {
        sort: store::RunSort::Started,
        descending: false,
        ..query.clone()
    };
    let mut selected = SelectedRuns::default();
    let mut offset = 0;
    loop {
        let page = history.page_runs(&query, offset, PAGE)?;
        for summary in &page {
            if let Some(stored) = history.run(&summary.id)? {
                selected.runs.push(observed_run(&stored));
                let run = &stored.run;
                selected
                    .recorded_with
                    .add(&run.profile, &run.method, &run.url);
                selected.request = Some(stored.run.request);
                selected.profile = Some(stored.run.profile);
            }
        }
        if page.len() < PAGE as usize {
            return Ok(selected);
        }
        offset += u64::from(PAGE);
    }
}

/// The selection as a report shows it: `watch` (its id), `url` (masked by the secrets rule), `since` and
/// `until` (RFC 3339, local offset, to the second); the method and outcome filters are not
/// part of a report's selection and are not shown.
pub fn describe(query: &RunQuery) -> BTreeMap<String, String> {
    use chrono::TimeZone as _;
    let mut out = BTreeMap::new();
    if let Some(watch) = &query.watch_id {
        out.insert("watch".to_owned(), watch.clone());
    }
    if !query.url_contains.is_empty() {
        out.insert(
            "url".to_owned(),
            crate::model::secrets::mask_url(&query.url_contains),
        );
    }
    for (key, ms) in [
        ("since", query.since_unix_ms),
        ("until", query.until_unix_ms),
    ] {
        if let Some(at) = ms.and_then(|ms| chrono::Local.timestamp_millis_opt(ms).single()) {
            out.insert(
                key.to_owned(),
                at.fixed_offset()
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            );
        }
    }
    out
}

/// Why a report was not made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The selection chose no run; nothing was written.
    #[error("no runs selected (no recorded run matches the filters): nothing was written")]
    NoRuns,
    /// The history could not be read.
    #[error("cannot read the history: {0}")]
    History(#[from] HistoryError),
    /// The selection's watch could not be read.
    #[error("cannot read the watch: {0}")]
    Watch(#[from] WatchError),
    /// The figures could not be encoded as JSON.
    #[error("cannot encode the figures: {0}")]
    Encode(#[from] serde_json::Error),
    /// The report's file could not be written.
    #[error("cannot write the report: {0}")]
    Write(#[from] WriteError),
}

/// Watch `id`'s schedule and slots as a report shows them, read from `history` (the handle the
/// report reads its runs from).
///
/// # Errors
/// The watch is not found or the database cannot be read.
pub fn watch_figures(history: &HistoryStore, id: &str) -> Result<WatchFigures, ReportError> {
    let record = history.watch(id)?;
    let slots = history.watch_slots(&record.id)?;
    let mut missed = MissedSlots::default();
    for kind in slots.iter().filter_map(|s| s.missed) {
        missed.total += 1;
        *match kind {
            Missed::Busy => &mut missed.busy,
            Missed::Late => &mut missed.late,
            Missed::Down => &mut missed.down,
        } += 1;
    }
    Ok(WatchFigures {
        schedule_text: super::watch_service::schedule_text(&record.schedule),
        state: record.state.id().to_owned(),
        schedule: record.schedule,
        slots: slots.len() as u64,
        sent: slots.iter().filter(|s| s.run_id.is_some()).count() as u64,
        missed,
        id: record.id,
    })
}

/// A report, rendered: the document and the images it links to (Markdown only).
#[derive(Debug)]
pub struct BuiltReport {
    /// How many runs it covers.
    pub runs: u64,
    /// The document: HTML, Markdown or JSON (pretty, with a final newline).
    pub text: String,
    /// `(file name, PNG bytes or why it could not be drawn)`, written beside the document.
    pub images: Vec<(String, Result<Vec<u8>, String>)>,
}

/// Builds the report of the runs `query` selects ([`select_runs`], [`describe`]) in `format`;
/// Markdown images are named after `stem` (`{stem}-over-time.png`, …).
///
/// # Errors
/// [`ReportError::NoRuns`] when the selection is empty, [`ReportError::History`] when the
/// database cannot be read, [`ReportError::Watch`] when the selection's watch cannot be read,
/// [`ReportError::Encode`] when the JSON cannot be made.
pub fn build_report(
    history: &HistoryStore,
    query: &RunQuery,
    format: ReportFormat,
    stem: &str,
) -> Result<BuiltReport, ReportError> {
    let selected = select_runs(history, query)?;
    if selected.runs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    let watch = match &query.watch_id {
        Some(id) => Some(watch_figures(history, id)?),
        None => None,
    };
    let with = &selected.recorded_with;
    let warning = (with.profiles() > 1 || with.endpoints() > 1).then(|| {
        format!(
            "the {} were recorded under {} and sent to {} (method and URL): the figures mix them, and \"What was sent\" is the newest run's request; select one profile's runs to one endpoint to read one endpoint's behaviour",
            crate::model::counted(selected.runs.len() as u64, "run", "runs"),
            crate::model::counted(with.profiles(), "profile", "profiles"),
            crate::model::counted(with.endpoints(), "endpoint", "endpoints"),
        )
    });
    let context = ReportContext {
        selection: describe(query),
        request: selected.request.as_ref().map(SentRequest::of),
        generated_at: Some(chrono::Local::now().fixed_offset()),
        watch,
        warning,
    };
    let figures = figures(&selected.runs, &context);
    let mut timelines = Timelines::new();
    if format != ReportFormat::Json {
        for pick in &figures.informative_runs {
            if let Some(stored) = history.run(&pick.run.id)? {
                let plot = timeline_plot(&stored.fold, &outcome_text(&pick.run));
                timelines.insert(pick.run.id.clone(), plot);
            }
        }
    }
    let (text, images) = match format {
        ReportFormat::Json => {
            let mut text = serde_json::to_string_pretty(&figures)?;
            text.push('\n');
            (text, Vec::new())
        }
        ReportFormat::Html => (html(&figures, &timelines), Vec::new()),
        ReportFormat::Md => {
            let report = markdown(&figures, stem, &timelines);
            let images = report.images.into_iter();
            let images = images.map(|(n, png)| (n, png.map_err(|e| e.to_string())));
            (report.text, images.collect())
        }
    };
    Ok(BuiltReport {
        runs: figures.runs.total,
        text,
        images,
    })
}

/// A report written to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenReport {
    /// Runs it covers.
    pub runs: u64,
    /// The document's path.
    pub path: PathBuf,
    /// Images left out, each `name: why`.
    pub left_out: Vec<String>,
}

/// Builds the report of `query`'s runs ([`build_report`]) and writes it to `path`, each file
/// atomically: the images beside it first, then the document. Nothing is written when the
/// selection is empty.
///
/// # Errors
/// As [`build_report`], and [`ReportError::Write`] when a file cannot be written.
pub fn write_report(
    history: &HistoryStore,
    query: &RunQuery,
    format: ReportFormat,
    path: &Path,
) -> Result<WrittenReport, ReportError> {
    let stem = path
        .file_stem()
        .map_or_else(|| "report".to_owned(), |s| s.to_string_lossy().into_owned());
    let report = build_report(history, query, format, &stem)?;
    let folder = path.parent().unwrap_or_else(|| Path::new(""));
    let mut left_out = Vec::new();
    for (name, png) in &report.images {
        match png {
            Ok(bytes) => store::write_export(&folder.join(name), bytes)?,
            Err(why) => left_out.push(format!("{name}: {why}")),
        }
    }
    store::write_export(path, report.text.as_bytes())?;
    Ok(WrittenReport {
        runs: report.runs,
        path: path.to_path_buf(),
        left_out,
    })
}
