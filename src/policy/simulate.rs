//! Sampling a profile's schedule (CLI `simulate`, the editor's preview strip).

use super::bounds::wait_range;
use super::draws::Sampling;
use super::limits::ceil_ms;
use super::sample_stats::SampleStats;
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

/// The most retries [`simulate`] samples and a preview lists (a profile may allow up to
/// `u32::MAX` or unlimited retries; the rest are summarised by
/// [`unlisted_retries_note`](super::unlisted_retries_note)).
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

/// Most sampled waits (samples × retries) for which [`simulate`] keeps every value and reports
/// exact nearest-rank quantiles (2,097,152, e.g. the editor's 2000-sample preview of 1000 retries:
/// at most 32 MiB, 8 bytes per wait and per cumulative sum). Larger runs stream each retry's
/// values into HDR histograms instead (see [`simulate`]).
pub const SIMULATE_EXACT_MAX: u64 = 1 << 21;

/// About how many waits [`simulate_with`] draws between two calls of its `control` callback.
pub const SIMULATE_CONTROL_WAITS: u32 = 65_536;

/// Most samples [`simulate_with`] draws between two calls of its `control` callback.
pub const SIMULATE_CONTROL_MAX_SAMPLES: u32 = 1024;

/// Samples `samples` runs of the profile's waits for retries `1..=max_retries` (at most
/// [`SIMULATE_MAX_RETRIES`]; unlimited retries sample that many), assuming every attempt fails with 503 and no delay header
/// (`response_header` therefore shows its fallback; every outcome is transient, so the
/// throttling backoff and the retry budget are not sampled). A sample whose custom script returns `()`
/// stops retrying: it contributes no wait to that retry or later ones, so each retry's quantiles
/// are over the samples that reached it ([`RetryStats::reached`]); a retry no sample reached has
/// all-zero quantiles and `reached` 0.
///
/// Attempts are taken to last no time, so the profile's `deadline_ms` ends a sample as the
/// engine ends a run: before a wait that would take the cumulative wait past the deadline (that
/// retry and later ones are not reached). A custom script sees the time left in `ctx`.
///
/// `bound_max` is [`max_wait_bound`](super::max_wait_bound); for `response_header` the fallback's (with the outer
/// `hard_cap`), for `custom` the cap `c` (or 24 h) the script's result is clamped to.
///
/// Memory and accuracy: when samples × retries ≤ [`SIMULATE_EXACT_MAX`] every value is kept and
/// the quantiles are exact nearest-rank values (the ⌈p·N⌉-th smallest). Above that, each retry's
/// waits and cumulative sums go into HDR histograms of
/// [`STREAMING_SIGNIFICANT_DIGITS`](super::STREAMING_SIGNIFICANT_DIGITS) significant digits:
/// memory no longer depends on `samples` (it grows with the logarithm of the largest value: about
/// 80 KiB per retry for waits up to 10 s), `min`, `max` and `reached` stay exact, and `p50`/`p95`
/// are at most 0.1 % (1/1024) above the exact nearest-rank value, exact below 2048 ms.
///
/// This is [`simulate_with`] without cancelling.
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
    simulate_with(profile, samples, seed, &mut |_| true).map(Option::unwrap_or_default)
}

/// [`simulate`] that reports progress and can be cancelled: `control(done)` is called with the
/// number of samples finished so far (1 ≤ done < `samples`, increasing) after every `k` samples,
/// k = [`SIMULATE_CONTROL_WAITS`] / retries clamped to 1..=[`SIMULATE_CONTROL_MAX_SAMPLES`]
/// (so about every 65,536 sampled waits, and at least every 1024 samples); it is not called after
/// the last sample. Returning `false` stops the sampling and the function returns `Ok(None)`.
/// The callback should be cheap (read an atomic flag, update a progress bar); the policy layer
/// itself reads no clock. With the same `seed` the result is the same as [`simulate`]'s.
///
/// ```
/// use retryscope::model::{Backoff, RetryProfile, Strategy};
/// use retryscope::policy::simulate_with;
/// # let mut profile: RetryProfile = serde_json::from_value(serde_json::json!({
/// #     "format": "retryscope-profile/2", "name": "x", "max_retries": 3,
/// #     "backoff": serde_json::to_value(Backoff::new(Strategy::Fixed)).unwrap()})).unwrap();
/// let mut calls = Vec::new();
/// let stats = simulate_with(&profile, 3000, 7, &mut |done| { calls.push(done); true });
/// assert_eq!(stats.unwrap().unwrap().len(), 3);
/// assert_eq!(calls, [1024, 2048]);
/// // Cancelled at the first call.
/// assert_eq!(simulate_with(&profile, 3000, 7, &mut |_| false), Ok(None));
/// ```
///
/// # Errors
/// As [`simulate`].
pub fn simulate_with(
    profile: &RetryProfile,
    samples: u32,
    seed: u64,
    control: &mut dyn FnMut(u32) -> bool,
) -> Result<Option<Vec<RetryStats>>, PolicyError> {
    let retries = u64::from(super::retry_count::listed_retries(profile));
    let exact = u64::from(samples) * retries <= SIMULATE_EXACT_MAX;
    sample_runs(profile, samples, seed, control, exact)
}

/// The sampling loop of [`simulate_with`]; `exact` chooses the storage (tests compare both).
pub(super) fn sample_runs(
    profile: &RetryProfile,
    samples: u32,
    seed: u64,
    control: &mut dyn FnMut(u32) -> bool,
    exact: bool,
) -> Result<Option<Vec<RetryStats>>, PolicyError> {
    let backoff = &profile.backoff;
    let retries = super::retry_count::listed_retries(profile);
    let new_stats = || {
        if exact {
            SampleStats::exact(samples as usize)
        } else {
            SampleStats::streaming()
        }
    };
    let mut waits: Vec<SampleStats> = (0..retries).map(|_| new_stats()).collect();
    let mut sums: Vec<SampleStats> = (0..retries).map(|_| new_stats()).collect();
    let finished = for_each_sampled_wait(profile, samples, seed, control, &mut |w| {
        let i = (w.retry - 1) as usize;
        waits[i].record(w.wait_ms);
        sums[i].record(w.cumulative_ms);
    })?;
    if !finished {
        return Ok(None);
    }
    Ok(Some(
        waits
            .into_iter()
            .zip(sums)
            .enumerate()
            .map(|(i, (w, s))| {
                let retry = u32::try_from(i + 1).unwrap_or(u32::MAX);
                RetryStats {
                    retry,
                    reached: u32::try_from(w.count()).unwrap_or(u32::MAX),
                    wait: w.quantiles(),
                    cumulative: s.quantiles(),
                    bound_max: bound_max(backoff, retry),
                }
            })
            .collect(),
    ))
}

/// One sampled wait handed to the visitor of [`for_each_sampled_wait`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampledWait {
    /// Which sampled run, 0-based.
    pub sample: u32,
    /// Retry number n ≥ 1.
    pub retry: u32,
    /// Wait n, whole ms.
    pub wait_ms: u64,
    /// Sum of waits 1..=n of this run, ms.
    pub cumulative_ms: u64,
}

/// The sampling behind [`simulate_with`], one value at a time: draws `samples` runs of the
/// profile's waits with exactly the rules [`simulate`] documents (every attempt fails with 503
/// and no delay header, attempts take no time, the deadline and a custom script's `()` end a
/// run) and calls `visit` for every wait, in order (run by run, retry by retry). Other code that
/// needs more than [`Quantiles`] (the strategy lab's p5 and histograms) builds on this instead of
/// repeating the loop. `control` is called as in [`simulate_with`]; when it returns `false` the
/// function returns `Ok(false)`, else `Ok(true)` after the last sample. The same `seed` gives the
/// same waits as [`simulate`].
///
/// # Errors
/// As [`simulate`].
pub fn for_each_sampled_wait(
    profile: &RetryProfile,
    samples: u32,
    seed: u64,
    control: &mut dyn FnMut(u32) -> bool,
    visit: &mut dyn FnMut(SampledWait),
) -> Result<bool, PolicyError> {
    let policy = Policy::new(profile.clone())?;
    let backoff = &profile.backoff;
    let retries = super::retry_count::listed_retries(profile);
    let stride = (SIMULATE_CONTROL_WAITS / retries.max(1)).clamp(1, SIMULATE_CONTROL_MAX_SAMPLES);
    let mut rng = rng_from_seed(seed);
    let deadline = profile.deadline_ms;
    let outcome = AttemptOutcome::Response(ResponseSummary {
        status: 503,
        reason: "Service Unavailable".into(),
        version: "HTTP/1.1".into(),
        headers: Vec::new(),
        body: crate::model::BodyPreview::default(),
    });
    for done in 1..=samples {
        let mut prev = None;
        let mut total: u64 = 0;
        for retry in 1..=retries {
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
            visit(SampledWait {
                sample: done - 1,
                retry,
                wait_ms: wait,
                cumulative_ms: total,
            });
        }
        if done % stride == 0 && done < samples && !control(done) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The formula's true maximum of wait `retry` (see [`RetryStats::bound_max`]).
pub(super) fn bound_max(backoff: &Backoff, retry: u32) -> f64 {
    wait_range(backoff, retry).map_or(0.0, |(_, high)| high)
}
