//! Flakiness reports (DESIGN.md §12): figures over a set of recorded runs — count, success rate
//! with its 95 % Wilson interval, failures by kind and status per time bucket, time-to-success
//! percentiles, attempts per run, the longest outage, delay headers seen, the three most
//! informative runs — as one JSON shape ([`Figures`]), rendered as a self-contained HTML page
//! ([`html()`]) or Markdown with PNG plots ([`markdown()`]).
//!
//! Files: `observed` (the input: a run as evidence), `from_history` (the one adapter from the
//! history's stored run), `stats` (Wilson interval, percentiles), `buckets`, `delays`, `picks`
//! (the informative runs), `sent` (the masked request), `figures` (all of them together);
//! `tables` (the tables both renderings lay out), `charts` (the plots over time, drawn by the
//! lab's renderer as SVG or PNG), `timeline` (a run's plot), `text` (how numbers are
//! written), `html`, `markdown`.
//!
//! Pure: no I/O and no clock; the CLI reads the history and writes the files.

mod buckets;
mod charts;
mod delays;
mod figures;
#[cfg(test)]
mod figures_tests;
mod from_history;
mod html;
mod markdown;
mod observed;
mod picks;
mod sent;
mod stats;
mod tables;
mod text;
mod timeline;

pub use buckets::{Bucket, Buckets, MAX_BUCKETS, failed_attempts};
pub use charts::{CHART_LABELS, drawable_report_charts, report_charts};
pub use delays::{DelayHeaderSeen, HONOUR_SLACK_MS, asked_ms, unit_of};
pub use figures::{
    AttemptsPerRun, FailureCount, Figures, MissedSlots, Outage, ProfileUse, REPORT_FORMAT,
    ReportContext, RunCounts, WatchFigures, figures,
};
pub use from_history::{observed_fold, observed_run};
pub use html::html;
pub use markdown::{MarkdownReport, markdown};
pub use observed::{AttemptResult, ObservedAttempt, ObservedRun, outcome_id};
pub use picks::{InformativeRun, Pick};
pub use sent::{BODY_SHOWN_CHARS, SentRequest};
pub use stats::{Percentiles, Proportion, Z_95, nearest_rank};
pub use tables::{Cell, Table, attempts_table, outcome_text, tables};
pub use text::{duration_text, percent_text, time_text};
pub use timeline::{Timelines, timeline_plot};
