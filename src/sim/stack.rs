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

/// Server attempts a stack simulation makes at most, over all its calls: when the worst case
/// (calls × worst-case attempts per call) is larger, fewer calls are simulated, and a single
/// call that would go past it is cut there ([`StackSimulation::capped_runs`],
/// [`StackSimulation::cut_calls`]).
pub const STACK_ATTEMPT_BOUND: u64 = 2_000_000;

/// Attempts a layer with unlimited retries makes per call in the simulation.
const UNLIMITED_CUT: u64 = SIMULATE_MAX_RETRIES as u64 + 1;

/// The analytic figures of a stack, under the simulation's assumptions: every failed server
/// attempt answers the same `failure_status`, and a layer whose triage does not retry that
/// answer makes one attempt. Budgets and deadlines are not in the attempt figures (see
/// [`StackAnalysis::ignores_budgets`], [`StackAnalysis::ignores_deadlines`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StackAnalysis {
    /// Attempts reaching the server when every attempt fails: the product of the layers' max
    /// attempts (1 for a layer that does not retry the failure); `None` when a retrying layer
    /// has unlimited retries. Saturates at `u64::MAX` (then
    /// [`StackAnalysis::worst_attempts_saturated`] is set).
    pub worst_attempts: Option<u64>,
    /// The product overflowed `u64`: the worst case is more than `u64::MAX` attempts.
    pub worst_attempts_saturated: bool,
    /// Expected attempts reaching the server when each server attempt fails independently with
    /// the failure rate and every layer retries as its triage and max retries say (budgets and
    /// deadlines ignored).
    pub expected_attempts: f64,
    /// Chance that the whole stack fails under that failure rate (budgets and deadlines
    /// ignored).
    pub failure_chance: f64,
    /// Worst-case time of one call of the outer layer, ms: every wait at its maximum and every
    /// server attempt at the innermost profile's attempt limit; a layer's attempt is cut to its
    /// own `timeouts.total_ms` and a layer's run to its deadline. `None` for unlimited retries
    /// without a deadline or a wait without bounds.
    pub worst_time_ms: Option<u64>,
    /// Layers (0 = outer) whose triage does not retry the failure status: one attempt each.
    pub not_retrying: Vec<usize>,
    /// A retrying layer has a retry budget, which the attempt figures assume never runs dry
    /// (the simulation applies it, so its mean can be lower).
    pub ignores_budgets: bool,
    /// A retrying layer has a deadline, which the attempt figures ignore (the worst-case time
    /// and the simulation apply it).
    pub ignores_deadlines: bool,
}

impl StackAnalysis {
    /// What the analytic attempt figures leave out, for labels: `""`, `"budgets"`,
    /// `"deadlines"` or `"budgets and deadlines"`.
    pub fn ignored_text(&self) -> &'static str {
        match (self.ignores_budgets, self.ignores_deadlines) {
            (false, false) => "",
            (true, false) => "budgets",
            (false, true) => "deadlines",
            (true, true) => "budgets and deadlines",
        }
    }

    /// The worst-case and expected lines the CLI and the Lab show, saying what they ignore:
    /// `worst case, ignoring budgets: 12 attempts reach the server; …` and `expected, …`.
    pub fn summary_lines(&self) -> [String; 2] {
        let ignoring = match self.ignored_text() {
            "" => String::new(),
            what => format!(", ignoring {what}"),
        };
        [
            format!(
                "worst case{ignoring}: {} reach the server; {}",
                self.worst_attempts_text(),
                self.worst_time_ms.map_or(
                    "no bound on the time (unlimited retries without a deadline)".to_owned(),
                    |t| if t == u64::MAX {
                        format!("a call takes more than {t} ms (overflows u64)")
                    } else {
                        format!("a call takes at most {t} ms (waits at their maximum)")
                    }
                )
            ),
            format!(
                "expected{ignoring}: {:.2} attempts reach the server; the whole stack fails with chance {:.4}",
                self.expected_attempts, self.failure_chance
            ),
        ]
    }

    /// The worst-case attempts for people: `12 attempts`, `more than 18446744073709551615
    /// attempts (overflows u64)` or `unbounded attempts (a layer has unlimited retries)`.
    pub fn worst_attempts_text(&self) -> String {
        match self.worst_attempts {
            None => "unbounded attempts (a layer has unlimited retries)".to_owned(),
            Some(w) if self.worst_attempts_saturated => {
                format!("more than {w} attempts (overflows u64)")
            }
            Some(w) => crate::model::counted(w, "attempt", "attempts"),
        }
    }
}

/// Worst-case and expected attempts and worst-case time of `layers` (outer → inner) under
/// `failure_rate` (0–1, clamped), each failed server attempt answering `failure_status`.
///
/// ```
/// use retryscope::sim::analyse_stack;
/// let p = |id| retryscope::profile::builtin(id).unwrap();
/// // An app with 3 retries around the AWS SDK's 2: 4 × 3 = 12 attempts on a dead server.
/// let a = analyse_stack(&[p("servicenow-exponential"), p("aws-standard")], 1.0, 429).unwrap();
/// assert_eq!(a.worst_attempts, Some(12));
/// assert_eq!(a.expected_attempts, 12.0);
/// // Half the attempts failing: 1.75 server attempts per SDK call, 1 + 1/8 + … SDK calls.
/// let half = analyse_stack(&[p("servicenow-exponential"), p("aws-standard")], 0.5, 429).unwrap();
/// assert!((half.expected_attempts - 1.75 * (1.0 + 0.125 + 0.125f64.powi(2) + 0.125f64.powi(3))).abs() < 1e-9);
/// // The ServiceNow example retries only 429: a 503 reaches it once per SDK call.
/// let a = analyse_stack(&[p("servicenow-exponential"), p("aws-standard")], 1.0, 503).unwrap();
/// assert_eq!((a.worst_attempts, a.not_retrying.as_slice()), (Some(3), &[0][..]));
/// ```
///
/// Whether `profile`'s triage retries an attempt answering `failure_status` (503 in `simulate`
/// and `--stack`) with no delay header, as the engine would for an idempotent request. A
/// profile that does not makes one attempt per call there, whatever its max retries.
///
/// # Errors
/// [`PolicyError`] when the profile's script or matchers do not compile (triage needs them).
pub fn retries_failure(profile: &RetryProfile, failure_status: u16) -> Result<bool, PolicyError> {
    Ok(Contender::profile(profile)?.retries(&failure_outcome(failure_status, None)))
}

/// # Errors
/// [`PolicyError`] when a profile's script or matchers do not compile (triage needs them).
pub fn analyse_stack(
    layers: &[RetryProfile],
    failure_rate: f64,
    failure_status: u16,
) -> Result<StackAnalysis, PolicyError> {
    let f = clamp_rate(failure_rate);
    let mut out = StackAnalysis::default();
    let mut worst_attempts = Some(1u64);
    let mut expected = 1.0;
    let mut fail = f;
    let mut worst_time: Option<u64> = None;
    for (i, p) in layers.iter().enumerate().rev() {
        let retrying = retries_failure(p, failure_status)?;
        let shown;
        let p = if retrying {
            out.ignores_budgets |= p.retry_budget.is_some();
            out.ignores_deadlines |= p.deadline_ms.is_some();
            p
        } else {
            out.not_retrying.push(i);
            let mut once = p.clone();
            once.max_retries = Some(0);
            shown = once;
            &shown
        };
        let attempts = p.max_attempts();
        worst_attempts = worst_attempts.zip(attempts).map(|(w, a)| {
            let (m, overflow) = w.overflowing_mul(a);
            out.worst_attempts_saturated |= overflow;
            if overflow { u64::MAX } else { m }
        });
        let calls = match attempts {
            // 1 + F + F² + … + F^R
            Some(a) if fail < 1.0 => (1.0 - fail.powf(a as f64)) / (1.0 - fail),
            Some(a) => a as f64,
            None if fail < 1.0 => 1.0 / (1.0 - fail),
            None => f64::INFINITY,
        };
        expected *= calls;
        fail = attempts.map_or(if fail < 1.0 { 0.0 } else { 1.0 }, |a| fail.powf(a as f64));
        let own = if i + 1 == layers.len() {
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
    out.not_retrying.reverse();
    out.worst_attempts = worst_attempts;
    out.expected_attempts = expected;
    out.failure_chance = fail;
    out.worst_time_ms = worst_time;
    Ok(out)
}

/// Sampled figures of a stack.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StackSimulation {
    /// Calls of the outer layer simulated to their end (fewer than asked for when capped or
    /// stopped).
    pub runs: u32,
    /// Calls asked for.
    pub requested_runs: u32,
    /// The calls were capped to keep within [`STACK_ATTEMPT_BOUND`] server attempts (the
    /// worst case of the calls asked for is larger).
    pub capped_runs: bool,
    /// Calls cut at [`STACK_ATTEMPT_BOUND`] server attempts (counted as failed).
    pub cut_calls: u32,
    /// The caller's control stopped the simulation (the figures cover `runs` calls).
    pub stopped: bool,
    /// Server attempts simulated, all calls (the unfinished one too).
    pub server_attempts: u64,
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

/// What a stack simulation runs: the server's failures and how many calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StackSetup {
    /// Chance that one server attempt fails, 0–1 (clamped).
    pub failure_rate: f64,
    /// Status a failed server attempt answers, e.g. 503.
    pub failure_status: u16,
    /// Time one server attempt takes, ms.
    pub attempt_ms: u64,
    /// Calls of the outer layer to simulate (at least 1).
    pub runs: u32,
    /// RNG seed.
    pub seed: u64,
}

/// Server attempts between two calls of a simulation's control.
const CONTROL_EVERY: u64 = 1 << 16;

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
    let setup = StackSetup {
        failure_rate,
        failure_status,
        attempt_ms,
        runs,
        seed,
    };
    simulate_stack_with(layers, &setup, &mut |_, _| true)
}

/// [`simulate_stack`] with a bound and a control: at most [`STACK_ATTEMPT_BOUND`] server
/// attempts in all (fewer calls when `runs` × the worst case per call is larger, a call cut
/// when it alone goes past the bound), and `control(calls_done, server_attempts)` called after
/// every call and every 65,536 server attempts; `false` stops the simulation, whose figures
/// then cover the calls finished (`stopped` set).
///
/// # Errors
/// [`PolicyError`] when a profile's script or matchers do not compile.
pub fn simulate_stack_with(
    layers: &[RetryProfile],
    setup: &StackSetup,
    control: &mut dyn FnMut(u32, u64) -> bool,
) -> Result<StackSimulation, PolicyError> {
    let contenders = layers
        .iter()
        .map(Contender::profile)
        .collect::<Result<Vec<_>, _>>()?;
    let mut buckets: Vec<Option<TokenBucket>> = contenders
        .iter()
        .map(|c| c.budget().map(|b| TokenBucket::new(b, "lab")))
        .collect();
    let outcome = failure_outcome(setup.failure_status, None);
    let requested = setup.runs.max(1);
    // Worst case per call as the simulation runs it (unlimited layers cut at 1001 attempts).
    let worst = contenders.iter().fold(1u64, |w, c| {
        let a = if c.retries(&outcome) {
            c.max_attempts()
                .map_or(UNLIMITED_CUT, |a| a.min(UNLIMITED_CUT))
        } else {
            1
        };
        w.saturating_mul(a)
    });
    let allowed = u32::try_from((STACK_ATTEMPT_BOUND / worst).max(1)).unwrap_or(u32::MAX);
    let runs = requested.min(allowed);
    let mut sim = Layered {
        contenders: &contenders,
        f: clamp_rate(setup.failure_rate),
        attempt_ms: setup.attempt_ms as f64,
        rng: rng_from_seed(setup.seed),
        outcome,
        attempts: 0,
        call_limit: 0,
        next_control: CONTROL_EVERY,
        done: 0,
        halt: None,
        control,
    };
    let mut out = StackSimulation {
        requested_runs: requested,
        capped_runs: runs < requested,
        ..StackSimulation::default()
    };
    for _ in 0..runs {
        sim.call_limit = sim.attempts.saturating_add(STACK_ATTEMPT_BOUND);
        let call = sim.call(0, &mut buckets);
        match sim.halt.take() {
            Some(Halt::Stopped) => {
                out.stopped = true;
                break;
            }
            Some(Halt::Cut) => out.cut_calls += 1,
            None => {}
        }
        out.runs += 1;
        sim.done = out.runs;
        out.mean_attempts += call.attempts as f64;
        out.max_attempts = out.max_attempts.max(call.attempts);
        out.mean_time_ms += call.time_ms;
        out.max_time_ms = out.max_time_ms.max(call.time_ms);
        if call.ok {
            out.success_share += 1.0;
        }
        if !(sim.control)(out.runs, sim.attempts) {
            out.stopped = out.runs < runs;
            break;
        }
    }
    out.server_attempts = sim.attempts;
    let n = f64::from(out.runs.max(1));
    out.mean_attempts /= n;
    out.mean_time_ms /= n;
    out.success_share /= n;
    Ok(out)
}

/// A chance `f` within 0–1 (NaN: 0).
pub(super) fn clamp_rate(f: f64) -> f64 {
    if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) }
}

/// Why a call ended early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Halt {
    /// The control said stop.
    Stopped,
    /// The call reached [`STACK_ATTEMPT_BOUND`] server attempts.
    Cut,
}

struct Layered<'a, 'c> {
    contenders: &'a [Contender],
    f: f64,
    attempt_ms: f64,
    rng: PolicyRng,
    outcome: crate::model::AttemptOutcome,
    /// Server attempts so far, all calls.
    attempts: u64,
    /// `attempts` at which the current call is cut.
    call_limit: u64,
    /// `attempts` at which the control is asked next.
    next_control: u64,
    /// Calls finished, for the control.
    done: u32,
    /// Set when the current call must end now; every layer gives up.
    halt: Option<Halt>,
    control: &'c mut dyn FnMut(u32, u64) -> bool,
}

#[derive(Debug, Clone, Copy)]
struct Call {
    attempts: u64,
    time_ms: f64,
    ok: bool,
}

impl Layered<'_, '_> {
    /// One call of layer `i` (the server itself past the last layer).
    fn call(&mut self, i: usize, buckets: &mut [Option<TokenBucket>]) -> Call {
        let contenders = self.contenders;
        let Some(layer) = contenders.get(i) else {
            let ok = !self.rng.random_bool(self.f);
            self.attempts += 1;
            if self.attempts >= self.call_limit {
                self.halt = Some(Halt::Cut);
            }
            if self.attempts >= self.next_control {
                self.next_control = self.attempts + CONTROL_EVERY;
                if !(self.control)(self.done, self.attempts) {
                    self.halt = Some(Halt::Stopped);
                }
            }
            return Call {
                attempts: 1,
                time_ms: self.attempt_ms,
                ok,
            };
        };
        if let Some(b) = layer.budget().filter(|b| b.scope == BudgetScope::Run) {
            buckets[i] = Some(TokenBucket::new(b, "lab"));
        }
        let mut state = ClientState::default();
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
            if self.halt.is_some() {
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

#[cfg(test)]
mod tests {
    use super::StackAnalysis;

    #[test]
    fn a_worst_time_past_u64_says_it_overflows() {
        let saturated = StackAnalysis {
            worst_time_ms: Some(u64::MAX),
            ..StackAnalysis::default()
        };
        assert!(
            saturated.summary_lines()[0]
                .contains("a call takes more than 18446744073709551615 ms (overflows u64)"),
            "{:?}",
            saturated.summary_lines()
        );
        let plain = StackAnalysis {
            worst_time_ms: Some(3000),
            ..StackAnalysis::default()
        };
        assert!(plain.summary_lines()[0].contains("a call takes at most 3000 ms"));
    }
}
