//! The live timeline: a pure fold of run events plus its table, plot and detail views.
//!
//! - [`Timeline`] holds one run's [`RunFold`](crate::model::RunFold) (the one fold of its
//!   masked events) with its receive times; [`Timeline::to_text`] renders it as plain text.
//! - [`RunsState`] holds every run of the session, the selection, and draws the views:
//!   run tabs, banner / live status with Cancel and Retry now, the Gantt plot, the table and
//!   the detail pane. It returns [`TimelineAction`]s; the shell turns them into engine commands.
//! - Tests, benchmarks and demos write event sequences with [`crate::testkit::EventScript`].

mod attempt_curl;
mod banner;
mod body_render;
mod colors;
mod controls_view;
mod detail_view;
mod gantt;
mod har_copy;
mod live_status;
mod phase_waterfall;
mod plain_text;
mod plot_view;
mod run_timeline;
mod run_view;
mod runs_state;
mod table_view;
mod units;

pub use attempt_curl::{SentRequest, attempt_curl};
pub use banner::Banner;
pub use body_render::{BodyRender, HEX_DUMP_BYTES, body_notices, hex_dump, pretty_json};
pub use gantt::{GanttSpan, SpanKind, spans};
pub use har_copy::timeline_har;
pub use live_status::{live_status, short_status};
pub use phase_waterfall::{REUSED_LABEL, phases_tooltip};
pub(crate) use run_timeline::url_path;
pub use run_timeline::{FinishedRun, Phase, Timeline};
pub use runs_state::{LIVE_REPAINT, RunsState};

use crate::model::RunId;

/// What the user asked for from a timeline view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelineAction {
    /// Cancel this run (Esc or the Cancel button).
    Cancel(RunId),
    /// Skip this run's current wait ("Retry now").
    SkipWait(RunId),
    /// Save one of this run's files ("Export PNG…", "Save as file": the shell asks where).
    Export(RunId, crate::ui::run_export::RunFile),
}
