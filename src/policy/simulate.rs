//! Sampling a profile's schedule (CLI `simulate`, the editor's preview strip).

use super::bounds::max_wait_bound;
use super::draws::Sampling;
use super::limits::{cap_ms, ceil_ms};
use super::strategies::{compute, final_clamp};
use super::{Policy, PolicyError, PolicyRng, WaitContext, WaitDecision, rng_from_seed};
use crate::model::{AttemptOutcome, Backoff, ResponseSummary, RetryProfile, Strategy};

/// min / p50 / p95 / max of a sampled quantity, ms (nearest-rank percentiles).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Quantiles {
    /// Smallest sample, ms.
    pub min: f64,
    /// Median, ms.
    pub p50: f64,
    /// 95th percentile, ms.
    pub p95: f64,
    /// Largest sample, ms.
    pub max: f64,
}

/// Sampled statistics of wait n and of the cumulative waiting up to it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RetryStats {
    /// Retry number n.
    pub retry: u32,
    /// Wait n, ms.
    pub wait: Quantiles,
    /// Sum of waits 1..=n, ms.
    pub cumulative: Quantiles,
    /// The formula's true maximum for wait n, ms (not sampled).
    pub bound_max: f64,
    /// How many sampled runs reached retry n (waited before it). A run whose custom script
    /// returned `()` stops retrying there, so later retries count fewer runs; `wait` and
    /// `cumulative` are over these runs only (all zero when `reached` is 0).
    pub reached: u32,
}

/// The most retries [`simulate`] samples (a profile may allow more; the rest are not shown).
pub const SIMULATE_MAX_RETRIES: u32 = 1000;

/// One wait n of a computed backoff drawn from `rng` without building an explanation (the fast
/// path: tens of ns). `prev_wait_ms` feeds `decorrelated_jitter`. `None` for `response_header`
/// and `custom`.
///
/// ```
/// use retryscope::model::{Backoff, Strategy};
/// use retryscope::policy::{rng_from_seed, sample_wait_ms};
/// let mut rng = rng_from_seed(7);
/// let fixed = Backoff::new(Strategy::Fixed); // b = 1000, no window
/// assert_eq!(sample_wait_ms(&fixed, 5, None, &mut rng), Some(1000));
/// ```
pub fn sample_wait_ms(
    backoff: &Backoff,
    retry: u32,
    prev_wait_ms: Option<u64>,
    rng: &mut PolicyRng,
) -> Option<u64> {
    compute(backoff, retry, prev_wait_ms, &mut Sampling(rng)).map(|c| c.wait_ms)
}

/// Why no sample of [`simulate`] reaches the later retries of `profile`: its deadline, or (without
/// one) a custom script returning `()`, e.g. `the 120000 ms deadline ends every run earlier`.
pub fn unreached_reason(profile: &RetryProfile) -> String {
    let scripted = profile.backoff.strategy == Strategy::Custom;
    match profile.deadline_ms {
        Some(d) if scripted => {
            format!("the {d} ms deadline or the script's () (stop) ends every run earlier")
        }
        Some(d) => format!("the {d} ms deadline ends every run earlier"),
        None => "the script returns () (stop) before them".to_owned(),
    }
}

/// Samples `samples` runs of the profile's waits for retries 1..=max_retries (at most
/// [`SIMULATE_MAX_RETRIES`]), assuming every attempt fails with 503 and no delay header
/// (`response_header` therefore shows its fallback). A sample whose custom script returns `()`
/// stops retrying: it contributes no wait to that retry or later ones, so each retry's quantiles
/// are over the samples that reached it ([`RetryStats::reached`]); a retry no sample reached has
/// all-zero quantiles and `reached` 0.
///
/// Attempts are taken to last no time, so the profile's `deadline_ms` ends a sample as the
/// engine ends a run: before a wait that would take the cumulative wait past the deadline (that
/// retry and later ones are not reached). A custom script sees the time left in `ctx`.
///
/// `bound_max` is [`max_wait_bound`]; for `response_header` the fallback's (with the outer
/// `hard_cap`), for `custom` the cap `c` (or 24 h) the script's result is clamped to.
///
/// # Errors
/// [`PolicyError`] when the profile's script does not compile, and
/// [`PolicyError::ScriptRuntime`] (with the retry number) the first time the script fails at run
/// time or returns something that is not a finite number ≥ 0 or `()` (NaN, -500, `"100"`, …).
pub fn simulate(
    profile: &RetryProfile,
    samples: u32,
    seed: u64,
) -> Result<Vec<RetryStats>, PolicyError> {
    let policy = Policy::new(profile.clone())?;
    let backoff = &profile.backoff;
    let retries = profile.max_retries.min(SIMULATE_MAX_RETRIES) as usize;
    let per_retry = samples as usize;
    let mut waits: Vec<Vec<f64>> = (0..retries)
        .map(|_| Vec::with_capacity(per_retry))
        .collect();
    let mut sums: Vec<Vec<f64>> = (0..retries)
        .map(|_| Vec::with_capacity(per_retry))
        .collect();
    let mut rng = rng_from_seed(seed);
    let deadline = profile.deadline_ms;
    let outcome = AttemptOutcome::Response(ResponseSummary {
        status: 503,
        reason: "Service Unavailable".into(),
        version: "HTTP/1.1".into(),
        headers: Vec::new(),
        body: Default::default(),
    });
    for _ in 0..samples {
        let mut prev = None;
        let mut total: u64 = 0;
        for (i, (w, s)) in waits.iter_mut().zip(sums.iter_mut()).enumerate() {
            let retry = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let wait = match backoff.strategy {
                Strategy::Custom => {
                    let ctx = WaitContext {
                        retry,
                        outcome: &outcome,
                        elapsed_ms: total,
                        prev_wait_ms: prev,
                        time_left_ms: deadline.map(|d| d.saturating_sub(total)),
                        now_unix_ms: 0,
                    };
                    match policy.next_wait(&ctx, &mut rng) {
                        WaitDecision::Wait(e) => Some(e.wait_ms),
                        WaitDecision::Stop { .. } => None,
                        WaitDecision::ScriptError { message } => {
                            return Err(PolicyError::ScriptRuntime { retry, message });
                        }
                    }
                }
                Strategy::ResponseHeader => backoff.fallback.as_deref().and_then(|fb| {
                    let ms = sample_wait_ms(fb, retry, prev, &mut rng)?;
                    Some(ceil_ms(final_clamp(backoff, ms as f64).0))
                }),
                _ => sample_wait_ms(backoff, retry, prev, &mut rng),
            };
            let Some(wait) = wait else { break };
            if deadline.is_some_and(|d| total.saturating_add(wait) > d) {
                break;
            }
            total = total.saturating_add(wait);
            prev = Some(wait);
            w.push(wait as f64);
            s.push(total as f64);
        }
    }
    Ok(waits
        .into_iter()
        .zip(sums)
        .enumerate()
        .map(|(i, (mut w, mut s))| {
            let retry = u32::try_from(i + 1).unwrap_or(u32::MAX);
            RetryStats {
                retry,
                reached: u32::try_from(w.len()).unwrap_or(u32::MAX),
                wait: quantiles(&mut w),
                cumulative: quantiles(&mut s),
                bound_max: bound_max(backoff, retry),
            }
        })
        .collect())
}

fn bound_max(backoff: &Backoff, retry: u32) -> f64 {
    match backoff.strategy {
        Strategy::Custom => cap_ms(backoff.max_delay_ms),
        Strategy::ResponseHeader => backoff
            .fallback
            .as_deref()
            .and_then(|fb| max_wait_bound(fb, retry))
            .map_or(0.0, |m| ceil_ms(final_clamp(backoff, m).0) as f64),
        _ => max_wait_bound(backoff, retry).unwrap_or(0.0),
    }
}

/// Nearest-rank quantiles of `values` (sorted in place); all zero when empty.
fn quantiles(values: &mut [f64]) -> Quantiles {
    if values.is_empty() {
        return Quantiles::default();
    }
    values.sort_unstable_by(f64::total_cmp);
    let rank = |q: f64| {
        let idx = (q * values.len() as f64).ceil() as usize;
        values[idx.saturating_sub(1).min(values.len() - 1)]
    };
    Quantiles {
        min: values[0],
        p50: rank(0.5),
        p95: rank(0.95),
        max: values[values.len() - 1],
    }
}
