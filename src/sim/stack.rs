//! Layered retries (amplification): an app retrying around an SDK that retries, behind a proxy
//! that retries, multiplies the attempts reaching a failing server.
//!
//! Layers are given outer → inner; one attempt of a layer is one whole call of the layer inside
//! it, and the innermost layer's attempts reach the server.

use super::contender::{ClientState, Contender, Step};
use super::server_model::failure_outcome;
use super::warnings::{worst_case_ms, worst_case_with};
use crate::model::{BudgetScope, RetryProfile};
use crate::policy::{PolicyError, PolicyRng, SIMULATE_MAX_RETRIES, TokenBucket, rng_from_seed};
use rand::Rng;

/// The analytic figures of a stack.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StackAnalysis {
    /// Attempts reaching the server when every attempt fails: the product of the layers'
    /// max attempts; `None` when a layer has unlimited retries.
    pub worst_attempts: Option<u64>,
    /// Expected attempts reaching the server when each server attempt fails independently with
    /// the failure rate and every layer retries every failure (budgets and deadlines ignored).
    pub expected_attempts: f64,
    /// Chance that the whole stack fails under that failure rate.
    pub failure_chance: f64,
    /// Worst-case time of one call of the outer layer, ms: every wait at its maximum and every
    /// server attempt at the innermost profile's attempt limit; a layer's attempt is cut to its
    /// own `timeouts.total_ms` and a layer's run to its deadline. `None` for unlimited retries
    /// without a deadline or a wait without bounds.
    pub worst_time_ms: Option<u64>,
}

/// Worst-case and expected attempts and worst-case time of `layers` (outer → inner) under
/// `failure_rate` (0–1, clamped).
///
/// ```
/// use retryscope::sim::analyse_stack;
/// let p = |id| retryscope::profile::builtin(id).unwrap();
/// // An app with 3 retries around the AWS SDK's 2: 4 × 3 = 12 attempts on a dead server.
/// let a = analyse_stack(&[p("servicenow-exponential"), p("aws-standard")], 1.0);
/// assert_eq!(a.worst_attempts, Some(12));
/// assert_eq!(a.expected_attempts, 12.0);
/// // Half the attempts failing: 1.75 server attempts per SDK call, 1 + 1/8 + … SDK calls.
/// let half = analyse_stack(&[p("servicenow-exponential"), p("aws-standard")], 0.5);
/// assert!((half.expected_attempts - 1.75 * (1.0 + 0.125 + 0.125f64.powi(2) + 0.125f64.powi(3))).abs() < 1e-9);
/// ```
pub fn analyse_stack(layers: &[RetryProfile], failure_rate: f64) -> StackAnalysis {
    let f = clamp_rate(failure_rate);
    let mut worst_attempts = Some(1u64);
    let mut expected = 1.0;
    let mut fail = f;
    let mut worst_time: Option<u64> = None;
    for (i, p) in layers.iter().rev().enumerate() {
        let attempts = p.max_attempts();
        worst_attempts = worst_attempts
            .zip(attempts)
            .map(|(w, a)| w.saturating_mul(a));
        let calls = match attempts {
            // 1 + F + F² + … + F^R
            Some(a) if fail < 1.0 => (1.0 - fail.powf(a as f64)) / (1.0 - fail),
            Some(a) => a as f64,
            None if fail < 1.0 => 1.0 / (1.0 - fail),
            None => f64::INFINITY,
        };
        expected *= calls;
        fail = attempts.map_or(if fail < 1.0 { 0.0 } else { 1.0 }, |a| fail.powf(a as f64));
        let own = if i == 0 {
            worst_case_ms(p)
        } else {
            worst_time.and_then(|inner| {
                let attempt = p.timeouts.total_ms.map_or(inner, |t| t.min(inner));
                worst_case_with(p, attempt)
            })
        };
        worst_time = match (own, p.deadline_ms) {
            (Some(t), Some(d)) => Some(t.min(d)),
            (None, Some(d)) => Some(d),
            (t, None) => t,
        };
    }
    StackAnalysis {
        worst_attempts,
        expected_attempts: expected,
        failure_chance: fail,
        worst_time_ms: worst_time,
    }
}

/// Sampled figures of a stack.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StackSimulation {
    /// Calls of the outer layer simulated.
    pub runs: u32,
    /// Mean attempts reaching the server per call.
    pub mean_attempts: f64,
    /// Most attempts reaching the server in one call.
    pub max_attempts: u64,
    /// Mean time of one call, ms (waits plus `attempt_ms` per server attempt).
    pub mean_time_ms: f64,
    /// Longest call, ms.
    pub max_time_ms: f64,
    /// Share of calls that succeeded, 0–1.
    pub success_share: f64,
}

/// Simulates `runs` calls of the stack (outer → inner) against a server whose attempts fail
/// independently with `failure_rate` (answering `failure_status`, e.g. 503) and take
/// `attempt_ms` each. Every layer retries as
/// its profile says (triage, max retries, deadline from the start of its own call, retry
/// budget, waits), drawing from one seeded RNG; a layer's budget is shared by all its calls
/// unless its scope is `run`. A layer with unlimited retries is cut at 1001 attempts per call.
///
/// # Errors
/// [`PolicyError`] when a profile's script or matchers do not compile.
pub fn simulate_stack(
    layers: &[RetryProfile],
    failure_rate: f64,
    failure_status: u16,
    attempt_ms: u64,
    runs: u32,
    seed: u64,
) -> Result<StackSimulation, PolicyError> {
    let contenders = layers
        .iter()
        .map(Contender::profile)
        .collect::<Result<Vec<_>, _>>()?;
    let mut buckets: Vec<Option<TokenBucket>> = contenders
        .iter()
        .map(|c| c.budget().map(|b| TokenBucket::new(b, "lab")))
        .collect();
    let mut sim = Layered {
        contenders: &contenders,
        f: clamp_rate(failure_rate),
        attempt_ms: attempt_ms as f64,
        rng: rng_from_seed(seed),
        outcome: failure_outcome(failure_status, None),
    };
    let mut out = StackSimulation {
        runs: runs.max(1),
        ..StackSimulation::default()
    };
    for _ in 0..out.runs {
        let call = sim.call(0, &mut buckets);
        out.mean_attempts += call.attempts as f64;
        out.max_attempts = out.max_attempts.max(call.attempts);
        out.mean_time_ms += call.time_ms;
        out.max_time_ms = out.max_time_ms.max(call.time_ms);
        if call.ok {
            out.success_share += 1.0;
        }
    }
    let n = f64::from(out.runs);
    out.mean_attempts /= n;
    out.mean_time_ms /= n;
    out.success_share /= n;
    Ok(out)
}

fn clamp_rate(f: f64) -> f64 {
    if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) }
}

struct Layered<'a> {
    contenders: &'a [Contender],
    f: f64,
    attempt_ms: f64,
    rng: PolicyRng,
    outcome: crate::model::AttemptOutcome,
}

#[derive(Debug, Clone, Copy)]
struct Call {
    attempts: u64,
    time_ms: f64,
    ok: bool,
}

impl Layered<'_> {
    /// One call of layer `i` (the server itself past the last layer).
    fn call(&mut self, i: usize, buckets: &mut [Option<TokenBucket>]) -> Call {
        let contenders = self.contenders;
        let Some(layer) = contenders.get(i) else {
            let ok = !self.rng.random_bool(self.f);
            return Call {
                attempts: 1,
                time_ms: self.attempt_ms,
                ok,
            };
        };
        if let Some(b) = layer.budget().filter(|b| b.scope == BudgetScope::Run) {
            buckets[i] = Some(TokenBucket::new(b, "lab"));
        }
        let mut state = ClientState::new();
        let mut total = Call {
            attempts: 0,
            time_ms: 0.0,
            ok: false,
        };
        for _ in 0..=SIMULATE_MAX_RETRIES {
            let inner = self.call(i + 1, buckets);
            total.attempts += inner.attempts;
            total.time_ms += inner.time_ms;
            let bucket = buckets[i].as_mut();
            if inner.ok {
                Contender::succeeded(&state, bucket);
                total.ok = true;
                return total;
            }
            match layer.failed(
                &mut state,
                &self.outcome,
                total.time_ms,
                &mut self.rng,
                bucket,
            ) {
                Step::Retry(wait) => total.time_ms += wait as f64,
                Step::GiveUp => return total,
            }
        }
        total
    }
}
