//! The lab's background worker: a [`LatestWorker`] on the `lab` thread running [`run_job`]
//! (a newer job or a cancel abandons the running one at its next progress check).

use super::jobs::{LabJob, LabOutput, run_job};
use crate::ui::latest_worker::{JobRunner, LatestWorker};
use std::sync::Arc;

/// Runs [`LabJob`]s off the frame thread, latest wins, with progress.
pub type LabWorker = LatestWorker<LabJob, LabOutput>;

fn runner() -> JobRunner<LabJob, LabOutput> {
    Arc::new(|job, control| run_job(job, control))
}

/// A lab worker that runs each job inside `submit` (tests).
pub fn inline_lab_worker() -> LabWorker {
    LatestWorker::inline(runner())
}

/// A lab worker on the `lab` thread; `waker` repaints the window when progress moves or a
/// result is ready.
pub fn spawn_lab_worker(waker: Arc<dyn Fn() + Send + Sync>) -> LabWorker {
    LatestWorker::spawn("lab", runner(), waker)
}
