//! Per-retry distributions of a profile's waits: sampled spread and histogram beside the exact
//! bounds, plus the profile's warnings (the lab's distribution view).

use super::spread::{Histogram, Spread};
use super::warnings::{LabWarning, warnings};
use crate::model::RetryProfile;
use crate::policy::{self, PolicyError, SIMULATE_EXACT_MAX};

/// The sampled distribution of wait n and of the cumulative waiting up to it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RetryDistribution {
    /// Retry number n ≥ 1.
    pub retry: u32,
    /// How many sampled runs reached retry n (a deadline or a script's `()` ends runs early).
    pub reached: u32,
    /// Wait n over the runs that reached it, ms.
    pub wait: Spread,
    /// Sum of waits 1..=n over the same runs, ms.
    pub cumulative: Spread,
    /// Exact `(min, max)` of wait n from the formula ([`policy::wait_range`]); `None` for a
    /// `response_header` backoff without a fallback.
    pub wait_bounds: Option<(f64, f64)>,
    /// Exact `(min, max)` of the cumulative waiting (the sums of the per-retry bounds: every
    /// formula is monotone in its draws, so all-low and all-high draws reach them), ignoring the
    /// deadline; `None` when a wait's bounds are unknown.
    pub cumulative_bounds: Option<(f64, f64)>,
    /// Histogram of wait n.
    pub histogram: Histogram,
}

/// What [`distribution`] returns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Distribution {
    /// Samples actually drawn (the request, reduced to keep memory bounded; see [`distribution`]).
    pub samples: u32,
    /// One entry per listed retry ([`policy::listed_retries`]), retry 1 first.
    pub retries: Vec<RetryDistribution>,
    /// The profile's warnings ([`warnings`]).
    pub warnings: Vec<LabWarning>,
}

/// Samples the profile's waits (the rules of [`policy::simulate`]: every attempt fails with 503
/// and no delay header) and summarises each retry. Every value is kept, so `samples` is reduced
/// to at most [`SIMULATE_EXACT_MAX`] / retries (2,097,152 waits, 32 MiB). `failure_rate` (0–1)
/// feeds the budget warning. `control(done)` is called as by [`policy::simulate_with`] and can
/// cancel (`Ok(None)`).
///
/// # Errors
/// As [`policy::simulate`]: a script that does not compile or fails while sampled.
pub fn distribution(
    profile: &RetryProfile,
    samples: u32,
    seed: u64,
    failure_rate: f64,
    control: &mut dyn FnMut(u32) -> bool,
) -> Result<Option<Distribution>, PolicyError> {
    let retries = policy::listed_retries(profile);
    let most = SIMULATE_EXACT_MAX / u64::from(retries.max(1));
    let samples = samples.min(u32::try_from(most).unwrap_or(u32::MAX)).max(1);
    let n = retries as usize;
    let mut waits: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut sums: Vec<Vec<u64>> = vec![Vec::new(); n];
    let finished = policy::for_each_sampled_wait(profile, samples, seed, control, &mut |w| {
        let i = (w.retry - 1) as usize;
        waits[i].push(w.wait_ms);
        sums[i].push(w.cumulative_ms);
    })?;
    if !finished {
        return Ok(None);
    }
    let backoff = &profile.backoff;
    let mut low_sum = Some(0.0);
    let mut high_sum = Some(0.0);
    let mut out = Vec::with_capacity(n);
    for (i, (mut w, mut s)) in waits.into_iter().zip(sums).enumerate() {
        let retry = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let wait_bounds = policy::wait_range(backoff, retry);
        low_sum = low_sum.zip(wait_bounds).map(|(sum, (lo, _))| sum + lo);
        high_sum = high_sum.zip(wait_bounds).map(|(sum, (_, hi))| sum + hi);
        out.push(RetryDistribution {
            retry,
            reached: u32::try_from(w.len()).unwrap_or(u32::MAX),
            histogram: Histogram::of(&w),
            wait: Spread::of(&mut w),
            cumulative: Spread::of(&mut s),
            wait_bounds,
            cumulative_bounds: low_sum.zip(high_sum),
        });
    }
    Ok(Some(Distribution {
        samples,
        retries: out,
        warnings: warnings(profile, failure_rate, seed),
    }))
}
