//! The timelines of the report's informative runs: each drawn from the run's own fold, as
//! `history export --format png` draws it ([`crate::interop::TimelinePlot::of_fold`]), so the
//! report's runs look like every other timeline.

use crate::interop::TimelinePlot;
use crate::model::RunFold;
use std::collections::BTreeMap;

/// The plots of the informative runs by run id; a run missing here (deleted between the figures
/// and the page) is named as left out.
pub type Timelines = BTreeMap<String, TimelinePlot>;

/// The plot of the recorded run `fold` (masked, as the history stores it) under `title`.
pub fn timeline_plot(fold: &RunFold, title: &str) -> TimelinePlot {
    let mut plot = TimelinePlot::of_fold(fold);
    title.clone_into(&mut plot.title);
    plot
}
