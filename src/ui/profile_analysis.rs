//! Everything the policy panel shows about a profile value that costs real work — the compile
//! check, `profile::validate` (which dry-runs a custom script) and the preview simulation —
//! computed off the frame thread by one worker: the latest edit wins, work for an older value is
//! abandoned, and the frame never waits (it shows the last finished analysis meanwhile).
//!
//! [`AnalysisWorker::inline`] computes on the calling thread instead, for tests that need the
//! result in the same frame.

use super::latest_worker::{JobRunner, LatestWorker};
use crate::model::RetryProfile;
use crate::policy::{Policy, PolicyError, RetryStats, simulate_with};
use crate::profile::{ProfileIssue, validate};
use std::sync::Arc;

/// Samples per preview (runs of the profile's waits) for profiles of up to
/// [`PREVIEW_DRAWS`] / 2000 retries; longer profiles get fewer (see [`preview_samples`]).
pub const PREVIEW_SAMPLES: u32 = 2000;
/// Waits drawn per preview at most (samples × retries), so a 1000-retry profile is previewed
/// as fast as a 100-retry one.
pub const PREVIEW_DRAWS: u64 = 200_000;
/// Fewest samples of a preview.
pub const PREVIEW_MIN_SAMPLES: u32 = 200;

/// Samples of the preview of a profile with `max_retries` retries: [`PREVIEW_SAMPLES`], cut so
/// that samples × retries stays within [`PREVIEW_DRAWS`], never below [`PREVIEW_MIN_SAMPLES`].
///
/// ```
/// use retryscope::ui::profile_analysis::preview_samples;
/// assert_eq!(preview_samples(3), 2000);
/// assert_eq!(preview_samples(1000), 200);
/// assert_eq!(preview_samples(u32::MAX), 200);
/// ```
pub fn preview_samples(max_retries: u32) -> u32 {
    let retries = u64::from(max_retries.max(1));
    let fit =
        (PREVIEW_DRAWS / retries).clamp(u64::from(PREVIEW_MIN_SAMPLES), u64::from(PREVIEW_SAMPLES));
    u32::try_from(fit).unwrap_or(PREVIEW_SAMPLES)
}
/// Fixed seed so the preview does not flicker between edits.
pub const PREVIEW_SEED: u64 = 1;

/// The costly facts about one profile value.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// `Policy::new`'s error (a script that does not compile, …), if any.
    pub compile_error: Option<PolicyError>,
    /// The sampled preview, retry 1 first (empty when the profile cannot be simulated).
    pub stats: Vec<RetryStats>,
    /// `profile::validate`'s problems (what Send and Save refuse).
    pub issues: Vec<ProfileIssue>,
    /// `profile::warnings`: settings that never take effect (nothing is refused for them).
    pub warnings: Vec<ProfileIssue>,
}

/// Analyses `profile`; `keep_going()` is asked between steps and inside the simulation, and
/// `None` is returned as soon as it says no (a newer edit arrived).
pub fn analyse(profile: &RetryProfile, keep_going: &mut dyn FnMut() -> bool) -> Option<Analysis> {
    let compile_error = Policy::new(profile.clone()).err();
    if !keep_going() {
        return None;
    }
    let issues = validate(profile);
    if !keep_going() {
        return None;
    }
    let mut analysis = Analysis {
        compile_error,
        stats: Vec::new(),
        issues,
        warnings: crate::profile::warnings(profile),
    };
    match simulate_cancellable(profile, keep_going) {
        Ok(Some(stats)) => analysis.stats = stats,
        Ok(None) => return None,
        Err(e) => {
            analysis.compile_error.get_or_insert(e);
        }
    }
    Some(analysis)
}

/// The preview simulation, stopped midway (`Ok(None)`) as soon as `keep_going` says no.
fn simulate_cancellable(
    profile: &RetryProfile,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Option<Vec<RetryStats>>, PolicyError> {
    let retries = crate::policy::listed_retries(profile);
    simulate_with(profile, preview_samples(retries), PREVIEW_SEED, &mut |_| {
        keep_going()
    })
}

/// A finished analysis and the profile value it describes.
pub type Finished = (RetryProfile, Arc<Analysis>);

/// Runs [`analyse`] for the latest submitted profile, on a thread or inline (a
/// [`LatestWorker`]: the latest edit wins, older work is abandoned).
pub struct AnalysisWorker(LatestWorker<RetryProfile, Finished>);

fn runner() -> JobRunner<RetryProfile, Finished> {
    Arc::new(|profile, control| {
        analyse(&profile, &mut || control(0, 0)).map(|a| (profile, Arc::new(a)))
    })
}

impl AnalysisWorker {
    /// Computes on the calling thread inside [`Self::submit`] (tests).
    pub fn inline() -> Self {
        Self(LatestWorker::inline(runner()))
    }

    /// Starts the `profile-analysis` thread; `waker` is called (from the thread) when a result
    /// is ready, so the UI can repaint. Falls back to inline when no thread can be started.
    pub fn spawn(waker: Arc<dyn Fn() + Send + Sync>) -> Self {
        Self(LatestWorker::spawn("profile-analysis", runner(), waker))
    }

    /// Asks for the analysis of `profile`; any analysis still running for an older value is
    /// abandoned.
    pub fn submit(&mut self, profile: RetryProfile) {
        self.0.submit(profile);
    }

    /// The newest finished analysis since the last call, if any (never blocks).
    pub fn poll(&mut self) -> Option<Finished> {
        self.0.poll()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn profile(retries: u32) -> RetryProfile {
        let mut p = crate::ui::profile_library::fallback_default_profile();
        p.max_retries = Some(retries);
        p
    }

    #[test]
    fn the_thread_delivers_the_latest_submission_only() {
        let mut worker = AnalysisWorker::spawn(Arc::new(|| {}));
        for retries in 1..=5 {
            worker.submit(profile(retries));
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut got = None;
        while got.is_none() && Instant::now() < deadline {
            got = worker.poll();
            std::thread::yield_now();
        }
        let (p, analysis) = got.expect("an analysis within 20 s");
        assert_eq!(p.max_retries, Some(5), "older submissions are dropped");
        assert_eq!(analysis.stats.len(), 5);
        assert!(analysis.issues.is_empty(), "{:?}", analysis.issues);
    }

    #[test]
    fn analysis_stops_when_told() {
        let mut calls = 0;
        let result = analyse(&profile(3), &mut || {
            calls += 1;
            calls < 2
        });
        assert!(result.is_none());
    }

    #[test]
    fn inline_mode_has_the_result_at_once() {
        let mut worker = AnalysisWorker::inline();
        worker.submit(profile(2));
        let (p, analysis) = worker.poll().expect("inline result");
        assert_eq!(p.max_retries, Some(2));
        assert_eq!(analysis.stats.len(), 2);
        assert!(worker.poll().is_none(), "taken once");
    }
}
