//! Five-number summaries and histograms of sampled ms values (the lab's distribution view).

/// min / p5 / p50 / p95 / max of sampled values, ms (nearest-rank percentiles: the p-quantile
/// is the ⌈p·N⌉-th smallest value). All zero for no values.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spread {
    /// Smallest value, ms.
    pub min: f64,
    /// 5th percentile, ms.
    pub p5: f64,
    /// Median, ms.
    pub p50: f64,
    /// 95th percentile, ms.
    pub p95: f64,
    /// Largest value, ms.
    pub max: f64,
}

/// Counts of sampled values in equal-width bins from `low_ms`: bin i holds the values in
/// `[low_ms + i·bin_ms, low_ms + (i+1)·bin_ms)`, the last bin also its upper end.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Histogram {
    /// Lower edge of bin 0, ms.
    pub low_ms: u64,
    /// Width of every bin, ms (≥ 1).
    pub bin_ms: u64,
    /// Values per bin; empty when nothing was sampled.
    pub counts: Vec<u32>,
}

/// Bins a histogram has at most (fewer when the values span fewer whole ms).
pub const HISTOGRAM_BINS: u64 = 24;

impl Spread {
    /// The summary of `values` (sorted in place).
    ///
    /// ```
    /// use retryscope::sim::Spread;
    /// let mut v: Vec<u64> = (1..=100).collect();
    /// let s = Spread::of(&mut v);
    /// assert_eq!((s.min, s.p5, s.p50, s.p95, s.max), (1.0, 5.0, 50.0, 95.0, 100.0));
    /// ```
    pub fn of(values: &mut [u64]) -> Self {
        if values.is_empty() {
            return Self::default();
        }
        values.sort_unstable();
        let n = values.len();
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "q is in [0, 1], so the rank lies in [0, n]"
        )]
        let rank = |q: f64| {
            let idx = (q * n as f64).ceil() as usize;
            values[idx.saturating_sub(1).min(n - 1)] as f64
        };
        Self {
            min: values[0] as f64,
            p5: rank(0.05),
            p50: rank(0.5),
            p95: rank(0.95),
            max: values[n - 1] as f64,
        }
    }
}

impl Histogram {
    /// At most [`HISTOGRAM_BINS`] bins of whole-ms width spanning `values` (any order).
    ///
    /// ```
    /// use retryscope::sim::Histogram;
    /// let h = Histogram::of(&[0, 1, 1, 3]);
    /// assert_eq!((h.low_ms, h.bin_ms, h.counts), (0, 1, vec![1, 2, 0, 1]));
    /// ```
    pub fn of(values: &[u64]) -> Self {
        let (Some(&low), Some(&high)) = (values.iter().min(), values.iter().max()) else {
            return Self::default();
        };
        let span = high - low + 1;
        let bin_ms = span.div_ceil(HISTOGRAM_BINS).max(1);
        let bins = span.div_ceil(bin_ms);
        let mut counts = vec![0u32; usize::try_from(bins).unwrap_or(1)];
        for &v in values {
            let i = usize::try_from((v - low) / bin_ms).unwrap_or(0);
            if let Some(c) = counts.get_mut(i) {
                *c = c.saturating_add(1);
            }
        }
        Self {
            low_ms: low,
            bin_ms,
            counts,
        }
    }
}
