//! One run replayed under a candidate profile in virtual time: attempts take the answer and
//! duration the endpoint gave at that moment (a lookup), waits come from the candidate's policy
//! through the lab's [`Contender`] (the engine's triage, retries left, budget and wait order).

use super::contender::{ClientState, Contender, Step};
use crate::model::{AttemptOutcome, ErrorKind, NetError, OutcomeKind, RetryProfile, Verdict};
use crate::policy::{Policy, PolicyError, PolicyRng, SIMULATE_MAX_RETRIES, TokenBucket};

/// Attempts one replayed run makes at most (a profile with unlimited retries and a deadline
/// whose attempts and waits take no time would otherwise never end); a run cut there ends
/// `gave_up`.
pub const WHATIF_MAX_ATTEMPTS: u32 = SIMULATE_MAX_RETRIES + 1;

/// How one replayed run ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RunEstimate {
    /// How it ended.
    pub(crate) outcome: OutcomeKind,
    /// Attempts it made (an attempt cut by the deadline counts: it reached the server).
    pub(crate) attempts: u32,
    /// Time to success, ms from the run's start; `None` unless it succeeded.
    pub(crate) time_to_success_ms: Option<f64>,
}

/// A candidate made ready to replay.
#[derive(Debug, Clone)]
pub(crate) struct Replayer {
    /// The candidate without its deadline (the replay applies it, to tell a deadline apart).
    contender: Contender,
    /// The candidate's policy: success and the method gate of its triage.
    policy: Policy,
    deadline_ms: Option<f64>,
    total_timeout_ms: Option<f64>,
}

impl Replayer {
    /// The replayer of `profile`.
    ///
    /// # Errors
    /// [`PolicyError`] when its script or matchers do not compile.
    pub(crate) fn new(profile: &RetryProfile) -> Result<Self, PolicyError> {
        let mut free = profile.clone();
        free.deadline_ms = None;
        Ok(Self {
            contender: Contender::profile(&free)?,
            policy: Policy::new(profile.clone())?,
            deadline_ms: profile.deadline_ms.map(|d| d as f64),
            total_timeout_ms: profile.timeouts.total_ms.map(|t| t as f64),
        })
    }

    /// Whether the candidate's triage calls `outcome` a success.
    pub(crate) fn is_success(&self, outcome: &AttemptOutcome) -> bool {
        matches!(
            self.policy.triage("GET", false, outcome),
            Verdict::Success { .. }
        )
    }

    /// The profile's retry budget, if any.
    pub(crate) fn budget(&self) -> Option<&crate::model::RetryBudget> {
        self.contender.budget()
    }

    /// Replays a `method` request (`idempotency_key`: it carried one) started at `start_ms`
    /// (Unix ms): `at(t)` gives the endpoint's answer and duration at Unix ms `t`, `None` when
    /// nothing is known (the run ends `error`).
    pub(crate) fn replay(
        &self,
        method: &str,
        idempotency_key: bool,
        start_ms: f64,
        at: &mut dyn FnMut(f64) -> Option<(AttemptOutcome, f64)>,
        rng: &mut PolicyRng,
        mut bucket: Option<&mut TokenBucket>,
    ) -> RunEstimate {
        let mut state = ClientState::default();
        let mut elapsed = 0.0_f64;
        let mut attempts = 0_u32;
        let end = |outcome, attempts| RunEstimate {
            outcome,
            attempts,
            time_to_success_ms: None,
        };
        loop {
            if self.deadline_ms.is_some_and(|d| elapsed >= d) {
                return end(OutcomeKind::Deadline, attempts);
            }
            if attempts == WHATIF_MAX_ATTEMPTS {
                return end(OutcomeKind::GaveUp, attempts);
            }
            let Some((mut outcome, mut duration)) = at(start_ms + elapsed) else {
                return end(OutcomeKind::Error, attempts);
            };
            if let Some(limit) = self.total_timeout_ms.filter(|l| duration > *l) {
                outcome = AttemptOutcome::Error(NetError::new(
                    ErrorKind::Timeout,
                    "the recorded answer took longer than this profile's total timeout",
                ));
                duration = limit;
            }
            attempts += 1;
            if self.deadline_ms.is_some_and(|d| elapsed + duration > d) {
                // In flight when the deadline passed: aborted.
                return end(OutcomeKind::Deadline, attempts);
            }
            elapsed += duration;
            match self.policy.triage(method, idempotency_key, &outcome) {
                Verdict::Success { .. } => {
                    Contender::succeeded(&state, bucket.as_deref_mut());
                    return RunEstimate {
                        outcome: OutcomeKind::Succeeded,
                        attempts,
                        time_to_success_ms: Some(elapsed),
                    };
                }
                Verdict::Stop { .. } => return end(OutcomeKind::Stopped, attempts),
                Verdict::Retry { .. } => {}
            }
            let retries_left = self
                .contender
                .max_attempts()
                .is_none_or(|m| u64::from(attempts) < m);
            match self
                .contender
                .failed(&mut state, &outcome, elapsed, rng, bucket.as_deref_mut())
            {
                Step::Retry(wait) => {
                    let wait = wait as f64;
                    if self.deadline_ms.is_some_and(|d| elapsed + wait > d) {
                        return end(OutcomeKind::Deadline, attempts);
                    }
                    elapsed += wait;
                }
                Step::GiveUp if retries_left => return end(OutcomeKind::Stopped, attempts),
                Step::GiveUp => return end(OutcomeKind::GaveUp, attempts),
            }
        }
    }
}
