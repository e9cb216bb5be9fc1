//! Quantiles of one sampled quantity (wait n, or the cumulative wait up to n) in bounded memory:
//! every value kept while the whole simulation is small, an HDR histogram beyond.
//!
//! Why HDR histograms (the `hdrhistogram` crate, the Rust port of Gil Tene's HdrHistogram) and not
//! a t-digest: the values are whole milliseconds, so an integer histogram with 3 significant
//! digits is *exact* below 2048 ms and otherwise off by less than 1/1024 of the value (a stated
//! relative error in ms, not a rank error), counts are exact, and recording is a few ns with no
//! buffering. Its memory grows with the logarithm of the largest value, never with the count.

use super::simulate::Quantiles;
use hdrhistogram::Histogram;

/// Significant decimal digits the streaming histograms keep: values below 2048 ms are exact,
/// larger ones are off by less than 1/1024 (< 0.1 %).
pub const STREAMING_SIGNIFICANT_DIGITS: u8 = 3;

/// Values of one sampled quantity: all of them, or a histogram plus the exact min and max.
#[derive(Debug, Clone)]
pub(crate) enum SampleStats {
    /// Every value (nearest-rank quantiles are exact).
    Exact(Vec<u64>),
    /// Counts per histogram bucket, memory independent of the count.
    Streaming(Streaming),
}

/// The streaming form: the histogram cannot tell min and max exactly, so they are kept aside.
#[derive(Debug, Clone)]
pub(crate) struct Streaming {
    histogram: Histogram<u32>,
    min: u64,
    max: u64,
}

impl SampleStats {
    /// Exact storage with room for `capacity` values.
    pub(crate) fn exact(capacity: usize) -> Self {
        Self::Exact(Vec::with_capacity(capacity))
    }

    /// Streaming storage (a histogram of [`STREAMING_SIGNIFICANT_DIGITS`] that grows with the
    /// largest value). Falls back to exact storage if the histogram cannot be built, which only
    /// an invalid digit count could cause.
    pub(crate) fn streaming() -> Self {
        match Histogram::<u32>::new(STREAMING_SIGNIFICANT_DIGITS) {
            Ok(histogram) => Self::Streaming(Streaming {
                histogram,
                min: u64::MAX,
                max: 0,
            }),
            Err(_) => Self::exact(0),
        }
    }

    /// Adds one value, ms.
    pub(crate) fn record(&mut self, value: u64) {
        match self {
            Self::Exact(values) => values.push(value),
            Self::Streaming(s) => {
                // Auto-resizing: fails only when the counts array would not fit a usize; then
                // the value lands in the top bucket, min and max stay exact.
                if s.histogram.record(value).is_err() {
                    s.histogram.saturating_record(value);
                }
                s.min = s.min.min(value);
                s.max = s.max.max(value);
            }
        }
    }

    /// How many values were recorded (saturating at `u64::MAX`).
    pub(crate) fn count(&self) -> u64 {
        match self {
            Self::Exact(values) => values.len() as u64,
            Self::Streaming(s) => s.histogram.len(),
        }
    }

    /// min / p50 / p95 / max, ms; all zero when nothing was recorded.
    ///
    /// Nearest rank: the p-quantile is the ⌈p·N⌉-th smallest value. Exact storage returns it as
    /// is; streaming storage returns the top of its histogram bucket (so within 0.1 %, exact below
    /// 2048 ms), clamped into the exact [min, max].
    pub(crate) fn quantiles(self) -> Quantiles {
        match self {
            Self::Exact(mut values) => {
                if values.is_empty() {
                    return Quantiles::default();
                }
                values.sort_unstable();
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "q is a quantile in [0, 1], so the rank lies in [0, len]"
                )]
                let rank = |q: f64| {
                    let idx = (q * values.len() as f64).ceil() as usize;
                    values[idx.saturating_sub(1).min(values.len() - 1)] as f64
                };
                Quantiles {
                    min: values[0] as f64,
                    p50: rank(0.5),
                    p95: rank(0.95),
                    max: values[values.len() - 1] as f64,
                }
            }
            Self::Streaming(s) => {
                if s.histogram.is_empty() {
                    return Quantiles::default();
                }
                let at = |q: f64| s.histogram.value_at_quantile(q).clamp(s.min, s.max) as f64;
                Quantiles {
                    min: s.min as f64,
                    p50: at(0.5),
                    p95: at(0.95),
                    max: s.max as f64,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The stated accuracy on a seeded sample spread over six decades (0 ms to ~1.7 h), with
    /// ranks that land on repeated and on unique values.
    #[test]
    fn streaming_quantiles_are_within_a_tenth_of_a_percent_of_exact() {
        for seed in 0..20 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let n = rng.random_range(1..20_000);
            let mut exact = SampleStats::exact(n);
            let mut streaming = SampleStats::streaming();
            for _ in 0..n {
                // Log-uniform values, some of them repeated.
                let v = if rng.random_bool(0.1) {
                    1234
                } else {
                    #[allow(
                        clippy::cast_possible_truncation,
                        clippy::cast_sign_loss,
                        reason = "in [0, 10^6.8)"
                    )]
                    let v = (10f64.powf(rng.random_range(0.0..6.8)) - 1.0) as u64;
                    v
                };
                exact.record(v);
                streaming.record(v);
            }
            assert!(matches!(streaming, SampleStats::Streaming(_)));
            assert_eq!(exact.count(), streaming.count());
            let (e, s) = (exact.quantiles(), streaming.quantiles());
            assert_eq!((s.min, s.max), (e.min, e.max), "seed {seed}: exact ends");
            for (name, e, s) in [("p50", e.p50, s.p50), ("p95", e.p95, s.p95)] {
                assert!(s >= e, "seed {seed} {name}: {s} below exact {e}");
                let tolerance = if e < 2048.0 { 0.0 } else { e / 1000.0 };
                assert!(
                    s - e <= tolerance,
                    "seed {seed} {name}: {s} vs exact {e} (more than 0.1 % off)"
                );
            }
        }
    }

    #[test]
    fn small_values_are_exact_and_empty_stats_are_zero() {
        let mut s = SampleStats::streaming();
        assert_eq!(s.clone().quantiles(), Quantiles::default());
        for v in [3, 1, 2, 2000, 7] {
            s.record(v);
        }
        let q = s.quantiles();
        assert_eq!((q.min, q.p50, q.p95, q.max), (1.0, 3.0, 2000.0, 2000.0));
        assert_eq!(SampleStats::exact(0).quantiles(), Quantiles::default());
    }

    #[test]
    fn a_streaming_quantile_never_leaves_the_exact_range() {
        // One huge value: its bucket's top is above it, but the max reported is the value.
        let mut s = SampleStats::streaming();
        s.record(86_400_001);
        let q = s.quantiles();
        assert_eq!(
            (q.p50, q.p95, q.max),
            (86_400_001.0, 86_400_001.0, 86_400_001.0)
        );
    }
}
