//! The run cycle: attempt → classify → decide → wait → attempt (DESIGN.md §4).
//!
//! Events, in order: `RunStarted`; per attempt `AttemptStarted`, `AttemptFinished` (with the
//! policy's triage verdict); per retry `WaitScheduled`, `WaitFinished`; last `RunFinished`.
//! The run ends when an answer is a success (`succeeded`), triage or the policy says stop
//! (`stopped`, with the reason), a retryable answer comes after the last allowed attempt
//! (`gave_up`), the deadline leaves no room for the next wait or attempt (`deadline`), the user
//! cancels (`cancelled`, within 50 ms mid-request or mid-wait), or the request, profile or a
//! custom script is unusable (`error`).

use super::BudgetLink;
use super::attempt::{AttemptRules, TotalLimit, ms, run_attempt};
use super::client_cache::{ClientCache, EngineClient, fresh_client};
use super::emitter::{Closed, Emitter};
use super::hop_request::HopRequest;
use super::host_lookup::HostLookup;
use super::precise_sleep::sleep_until_precise;
use super::timeouts::EffectiveTimeouts;
use crate::model::{
    OutcomeKind, RequestSpec, RetryProfile, RunEvent, RunId, RunOutcome, WaitExplanation,
};
use crate::policy::{
    BeforeRetry, BudgetAccount, Next, Policy, RetryState, StepClock, rng_from_seed,
};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// What a run needs.
pub(crate) struct RunInput {
    pub(crate) run_id: RunId,
    pub(crate) spec: RequestSpec,
    pub(crate) profile: RetryProfile,
    pub(crate) seed: Option<u64>,
    /// The retry budget bucket (see `RunOptions::budget`).
    pub(crate) budget: Option<super::BudgetLink>,
    /// Bytes of each response body kept in its `AttemptFinished` event.
    pub(crate) body_cap: usize,
    /// Name lookup instead of the system resolver (see [`HostLookup`]).
    pub(crate) host_lookup: Option<std::sync::Arc<dyn HostLookup>>,
    /// Where every attempt's whole body goes too (see [`super::BodySink`]).
    pub(crate) body_sink: Option<std::sync::Arc<dyn super::BodySink>>,
    /// The clients the run shares with others (see [`ClientCache`]).
    pub(crate) clients: ClientCache,
}

/// Signals between a run and its handle.
pub(crate) struct RunControl {
    pub(crate) cancel: CancellationToken,
    pub(crate) skip: std::sync::Arc<Notify>,
    pub(crate) done: CancellationToken,
}

/// Where the run is, for the cancel banner.
#[derive(Debug, Clone, Copy)]
enum Stage {
    Preparing,
    Attempt(u32),
    Waiting(u32),
}

/// What the run has done so far (read after a cancel).
struct RunState {
    /// The run's monotonic origin: every `offset_ms` and `elapsed_ms` counts from here. Reset
    /// when `RunStarted` is emitted (after the request and client are prepared), so offset 0
    /// is the `RunStarted` moment.
    clock: Instant,
    attempts: u32,
    last_status: Option<u16>,
    stage: Stage,
}

/// Runs to completion, cancel or a closed event channel; always ends with `RunFinished`
/// unless nobody listens any more.
pub(crate) async fn run(input: RunInput, emitter: Emitter, control: RunControl) {
    let mut state = RunState {
        clock: Instant::now(),
        attempts: 0,
        last_status: None,
        stage: Stage::Preparing,
    };
    let run_id = input.run_id;
    let ended = {
        let drive = drive(input, &emitter, &control.skip, &mut state);
        tokio::select! {
            biased;
            () = control.cancel.cancelled() => Ok(None),
            result = drive => result.map(Some),
        }
    };
    if let Ok(outcome) = ended {
        let outcome = outcome.unwrap_or_else(|| RunOutcome {
            kind: OutcomeKind::Cancelled,
            message: match state.stage {
                Stage::Preparing => "cancelled before attempt 1".into(),
                Stage::Attempt(n) => format!("cancelled during attempt {n}"),
                Stage::Waiting(n) => format!("cancelled while waiting before retry {n}"),
            },
            last_status: state.last_status,
        });
        let _ = emitter
            .emit(RunEvent::RunFinished {
                run_id,
                outcome,
                attempts: state.attempts,
                elapsed_ms: ms(state.clock.elapsed()),
            })
            .await;
    }
    control.done.cancel();
}

fn now_local() -> chrono::DateTime<chrono::FixedOffset> {
    chrono::Local::now().fixed_offset()
}

fn ended(kind: OutcomeKind, message: impl Into<String>, state: &RunState) -> RunOutcome {
    RunOutcome {
        kind,
        message: message.into(),
        last_status: state.last_status,
    }
}

/// The loop proper. `Err(Closed)` when the event receiver is gone.
async fn drive(
    input: RunInput,
    emitter: &Emitter,
    skip: &Notify,
    state: &mut RunState,
) -> Result<RunOutcome, Closed> {
    let RunInput {
        run_id,
        spec,
        profile,
        seed,
        budget,
        body_cap,
        host_lookup,
        body_sink,
        clients,
    } = input;
    let seed = seed.or(profile.seed).unwrap_or_else(rand::random);
    let profile_name = profile.name.clone();
    let deadline = profile.deadline_ms.map(Duration::from_millis);
    let mut budget = budget.or_else(|| {
        profile
            .retry_budget
            .as_ref()
            .map(|b| BudgetLink::new(b, "run"))
    });
    let prepared = prepare(&spec, profile, &clients).await;
    state.clock = Instant::now();
    let clock = state.clock;
    let (method, url) = match &prepared {
        Ok(ready) => (ready.first.method.to_string(), ready.first.url.to_string()),
        Err(_) => (spec.method.clone(), spec.url.clone()),
    };
    emitter
        .emit(RunEvent::RunStarted {
            run_id,
            seed,
            profile: profile_name,
            method,
            url,
            started_at: now_local(),
            tls_unverified: !spec.verify_tls,
        })
        .await?;
    let Ready {
        first: mut current,
        policy,
        timeouts,
        roots,
        shared,
    } = match prepared {
        Ok(ready) => ready,
        Err(message) => return Ok(ended(OutcomeKind::Error, message, state)),
    };
    let mut rng = rng_from_seed(seed);
    let has_key = spec.has_idempotency_key();
    let mut first_start: Option<Instant> = None;
    let mut retry = RetryState::default();
    loop {
        let attempt = retry.attempt;
        let now = Instant::now();
        let t0 = *first_start.get_or_insert(now);
        let time_left = deadline.map(|d| d.saturating_sub(now - t0));
        if time_left == Some(Duration::ZERO) {
            let message = format!("deadline reached: no time left to start attempt {attempt}");
            return Ok(ended(OutcomeKind::Deadline, message, state));
        }
        state.stage = Stage::Attempt(attempt);
        // An attempt counts as made once it starts, even if a cancel aborts it.
        state.attempts = attempt;
        emitter
            .emit(RunEvent::AttemptStarted {
                run_id,
                attempt,
                method: current.method.to_string(),
                url: current.url.to_string(),
                started_at: now_local(),
                offset_ms: ms(now - clock),
            })
            .await?;
        let client = match &shared {
            Some(client) => client.clone(),
            None => match fresh_client(spec.verify_tls, &roots, &timeouts).and_then(|client| {
                client.for_url(&current.url)?;
                Ok(client)
            }) {
                Ok(client) => client,
                Err(message) => return Ok(ended(OutcomeKind::Error, message, state)),
            },
        };
        let rules = AttemptRules {
            follow_redirects: spec.follow_redirects,
            max_redirects: spec.max_redirects,
            location_trusted: spec.location_trusted,
            resolve_timeout: timeouts.resolve,
            read_timeout: timeouts.read,
            total: total_limit(timeouts.total, time_left),
            body_cap,
            body_sink: body_sink.as_deref().map(|sink| (sink, attempt)),
            host_lookup: host_lookup.as_deref(),
        };
        let report = run_attempt(&client, current, rules).await;
        if let Some(status) = report.outcome.status() {
            state.last_status = Some(status);
        }
        let step = policy.after_attempt(
            &mut retry,
            report.last.method.as_str(),
            has_key,
            &report.outcome,
            budget.as_mut(),
        );
        // Decided before the event so the outcome moves into it; only a retry keeps a copy
        // (its wait may depend on the answer's headers).
        let next = match step.next {
            Next::Succeeded => {
                let message = format!(
                    "succeeded on attempt {attempt} after {:.1} s",
                    clock.elapsed().as_secs_f64()
                );
                Err(ended(OutcomeKind::Succeeded, message, state))
            }
            Next::End(kind, message) => Err(ended(kind, message, state)),
            Next::Retry => Ok(report.outcome.clone()),
        };
        emitter
            .emit(RunEvent::AttemptFinished {
                run_id,
                attempt,
                outcome: report.outcome,
                hops: report.hops,
                timings: report.timings,
                verdict: step.verdict,
            })
            .await?;
        if let Some(change) = step.budget_change {
            emitter
                .emit(RunEvent::BudgetChanged {
                    run_id,
                    attempt,
                    change,
                })
                .await?;
        }
        // A retry repeats the last hop's request (its URL and method), not the first URL.
        current = report.last;
        let outcome = match next {
            Err(outcome) => return Ok(outcome),
            Ok(outcome) => outcome,
        };
        let step_clock = StepClock {
            elapsed_ms: u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX),
            since_first: t0.elapsed(),
            now_unix_ms: chrono::Utc::now().timestamp_millis(),
        };
        let before = policy.before_retry(
            &mut retry,
            &outcome,
            step_clock,
            &mut rng,
            budget.as_mut(),
            true,
        );
        let (explanation, budget_change) = match before {
            BeforeRetry::Wait {
                explanation,
                budget_change,
                ..
            } => (Ok(explanation), budget_change),
            BeforeRetry::End(kind, message, change) => (Err(ended(kind, message, state)), change),
        };
        // Budget `charge: retry` (AWS): the cost is taken just before the wait, once the retry
        // is sure to be attempted otherwise.
        if let Some(change) = budget_change {
            emitter
                .emit(RunEvent::BudgetChanged {
                    run_id,
                    attempt,
                    change,
                })
                .await?;
        }
        let explanation = match explanation {
            Ok(explanation) => explanation,
            Err(outcome) => return Ok(outcome),
        };
        state.stage = Stage::Waiting(attempt);
        // Asked for with `explain: true`, so always there.
        if let Some(explanation) = explanation {
            wait(run_id, attempt, explanation, emitter, skip, clock).await?;
        }
    }
}

impl BudgetAccount for BudgetLink {
    fn with_bucket<T>(&mut self, f: impl FnOnce(&mut crate::policy::TokenBucket) -> T) -> T {
        self.with(f)
    }
}

/// What a run needs once its request and profile proved usable.
struct Ready {
    /// The request of attempt 1.
    first: HopRequest,
    policy: Policy,
    timeouts: EffectiveTimeouts,
    /// The request's extra trusted roots (empty = the platform's only).
    roots: Vec<rustls::pki_types::CertificateDer<'static>>,
    /// The shared client, or `None` for a new connection (and client) per attempt.
    shared: Option<EngineClient>,
}

/// Validates the request (reading a body file and the CA certificate file once), builds the
/// policy and the client.
///
/// # Errors
/// The message `RunFinished` carries (kind `error`).
async fn prepare(
    spec: &RequestSpec,
    profile: RetryProfile,
    clients: &ClientCache,
) -> Result<Ready, String> {
    let first = HopRequest::from_spec(spec)
        .await
        .map_err(|e| e.to_string())?;
    let timeouts = EffectiveTimeouts::new(&spec.timeouts, &profile.timeouts);
    let policy = Policy::new(profile).map_err(|e| format!("the profile cannot run: {e}"))?;
    let roots = match &spec.ca_cert {
        None => Vec::new(),
        Some(path) => {
            // Read off the runtime's threads, as a body file is.
            let owned = path.clone();
            tokio::task::spawn_blocking(move || super::trusted_roots::read_trusted_roots(&owned))
                .await
                .unwrap_or_else(|e| {
                    Err(super::SpecError::CaCert {
                        path: path.clone(),
                        reason: e.to_string().to_lowercase(),
                    })
                })
                .map_err(|e| e.to_string())?
        }
    };
    let shared = if spec.new_connection_per_attempt {
        None
    } else {
        let client = clients.client(spec.verify_tls, &roots, &timeouts)?;
        // An `https` run loads the trust store now, before attempt 1's clock starts.
        client.for_url(&first.url)?;
        Some(client)
    };
    Ok(Ready {
        first,
        policy,
        timeouts,
        roots,
        shared,
    })
}

/// The attempt's total limit: its own, cut to the time left before the deadline.
fn total_limit(own: Option<Duration>, time_left: Option<Duration>) -> Option<TotalLimit> {
    match (own, time_left) {
        (Some(own), Some(left)) if left < own => Some(TotalLimit {
            limit: left,
            by_deadline: true,
        }),
        (Some(own), _) => Some(TotalLimit {
            limit: own,
            by_deadline: false,
        }),
        (None, Some(left)) => Some(TotalLimit {
            limit: left,
            by_deadline: true,
        }),
        (None, None) => None,
    }
}

/// Wait `n`: announced, slept on tokio's clock (so a paused test clock skips it), ended early by
/// "retry now", measured.
async fn wait(
    run_id: RunId,
    retry: u32,
    explanation: WaitExplanation,
    emitter: &Emitter,
    skip: &Notify,
    clock: Instant,
) -> Result<(), Closed> {
    let planned_ms = explanation.wait_ms;
    // Created before the announcement, so a skip sent as soon as the UI sees it is not lost
    // (`notify_waiters` reaches every `Notified` that exists, polled or not).
    let skipped = skip.notified();
    tokio::pin!(skipped);
    let began = Instant::now();
    emitter
        .emit(RunEvent::WaitScheduled {
            run_id,
            retry,
            planned_ms,
            explanation,
            offset_ms: ms(began - clock),
        })
        .await?;
    let planned = Duration::from_millis(planned_ms);
    // Anchored at `began`, so the time spent announcing the wait is not added to it. A wait
    // too far in the future to represent (the policy clamps at 24 h) falls back to `sleep`.
    let sleep = async {
        match began.checked_add(planned) {
            Some(until) => sleep_until_precise(until).await,
            None => tokio::time::sleep(planned).await,
        }
    };
    let skipped = tokio::select! {
        biased;
        () = sleep => false,
        () = &mut skipped => true,
    };
    emitter
        .emit(RunEvent::WaitFinished {
            run_id,
            retry,
            planned_ms,
            actual_ms: ms(began.elapsed()),
            skipped,
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_limit_is_the_smaller_of_own_and_time_left() {
        let s = Duration::from_secs;
        assert_eq!(total_limit(None, None), None);
        assert_eq!(
            total_limit(Some(s(5)), Some(s(2))),
            Some(TotalLimit {
                limit: s(2),
                by_deadline: true
            })
        );
        assert_eq!(
            total_limit(Some(s(1)), Some(s(2))),
            Some(TotalLimit {
                limit: s(1),
                by_deadline: false
            })
        );
        assert_eq!(
            total_limit(None, Some(s(3))),
            Some(TotalLimit {
                limit: s(3),
                by_deadline: true
            })
        );
    }
}
