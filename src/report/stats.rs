//! The two statistics the figures use: the Wilson score interval of a proportion and
//! nearest-rank percentiles.

use serde::{Deserialize, Serialize};

/// z for a two-sided 95 % interval (the 0.975 quantile of the standard normal).
pub const Z_95: f64 = 1.959_963_984_540_054;

/// A proportion with its 95 % Wilson score interval. In JSON `value` is `null` when n is 0
/// (nothing to read), not 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(into = "ProportionJson", from = "ProportionJson")]
pub struct Proportion {
    /// k / n, in [0, 1]; 0 when n is 0.
    pub value: f64,
    /// Lower end of the 95 % Wilson interval, in [0, 1].
    pub low: f64,
    /// Upper end of the 95 % Wilson interval, in [0, 1].
    pub high: f64,
    /// Successes k.
    pub successes: u64,
    /// Trials n.
    pub trials: u64,
}

impl Proportion {
    /// k of n with its Wilson score interval (E. B. Wilson, 1927):
    /// centre = (p̂ + z²/2n) / (1 + z²/n), half-width = z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²),
    /// z = [`Z_95`]. With n = 0 the interval is [0, 1] (nothing is known).
    ///
    /// ```
    /// use retryscope::report::Proportion;
    /// let p = Proportion::wilson(9, 10);
    /// assert!((p.low - 0.5958).abs() < 1e-4 && (p.high - 0.9821).abs() < 1e-4);
    /// assert_eq!((Proportion::wilson(0, 0).low, Proportion::wilson(0, 0).high), (0.0, 1.0));
    /// ```
    pub fn wilson(successes: u64, trials: u64) -> Self {
        let k = successes.min(trials);
        if trials == 0 {
            return Self {
                value: 0.0,
                low: 0.0,
                high: 1.0,
                successes: 0,
                trials: 0,
            };
        }
        let n = trials as f64;
        let p = k as f64 / n;
        let z2 = Z_95 * Z_95;
        let denominator = 1.0 + z2 / n;
        let centre = (p + z2 / (2.0 * n)) / denominator;
        let half = Z_95 / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        Self {
            value: p,
            low: (centre - half).clamp(0.0, 1.0),
            high: (centre + half).clamp(0.0, 1.0),
            successes: k,
            trials,
        }
    }

    /// The rate as the window and `watch show` print it: `91.9 % (95 % interval 90.8 %–92.8 %)`,
    /// or `n/a (no run finished)` with no trials (cancelled or unfinished runs are no evidence).
    ///
    /// ```
    /// use retryscope::report::Proportion;
    /// assert_eq!(Proportion::wilson(0, 0).text(), "n/a (no run finished)");
    /// assert!(Proportion::wilson(9, 10).text().starts_with("90.0 % (95 % interval 59.6 %"));
    /// ```
    pub fn text(&self) -> String {
        if self.trials == 0 {
            return "n/a (no run finished)".to_owned();
        }
        format!(
            "{} (95 % interval {}–{})",
            super::percent_text(self.value),
            super::percent_text(self.low),
            super::percent_text(self.high)
        )
    }
}

/// [`Proportion`] as JSON: the value is `null` without trials.
#[derive(Serialize, Deserialize)]
struct ProportionJson {
    value: Option<f64>,
    low: f64,
    high: f64,
    successes: u64,
    trials: u64,
}

impl From<Proportion> for ProportionJson {
    fn from(p: Proportion) -> Self {
        Self {
            value: (p.trials > 0).then_some(p.value),
            low: p.low,
            high: p.high,
            successes: p.successes,
            trials: p.trials,
        }
    }
}

impl From<ProportionJson> for Proportion {
    fn from(p: ProportionJson) -> Self {
        Self {
            value: p.value.unwrap_or(0.0),
            low: p.low,
            high: p.high,
            successes: p.successes,
            trials: p.trials,
        }
    }
}

/// p50 / p95 / p99 / max of a set of durations, ms (nearest rank: the ⌈p·N⌉-th smallest). In
/// JSON the four are `null` when `count` is 0 (nothing to read), not 0.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(into = "PercentilesJson", from = "PercentilesJson")]
pub struct Percentiles {
    /// How many values.
    pub count: u64,
    /// Median, ms.
    pub p50_ms: f64,
    /// 95th percentile, ms.
    pub p95_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Largest value, ms.
    pub max_ms: f64,
}

impl Percentiles {
    /// The percentiles of `values` (any order; NaN sorts last); all zero when empty.
    ///
    /// ```
    /// use retryscope::report::Percentiles;
    /// let p = Percentiles::of((1..=100).map(f64::from).collect());
    /// assert_eq!((p.p50_ms, p.p95_ms, p.p99_ms, p.max_ms), (50.0, 95.0, 99.0, 100.0));
    /// ```
    pub fn of(mut values: Vec<f64>) -> Self {
        if values.is_empty() {
            return Self::default();
        }
        values.sort_unstable_by(f64::total_cmp);
        Self {
            count: values.len() as u64,
            p50_ms: nearest_rank(&values, 0.50),
            p95_ms: nearest_rank(&values, 0.95),
            p99_ms: nearest_rank(&values, 0.99),
            max_ms: values[values.len() - 1],
        }
    }
}

/// [`Percentiles`] as JSON: the figures are `null` without values.
#[derive(Serialize, Deserialize)]
struct PercentilesJson {
    count: u64,
    p50_ms: Option<f64>,
    p95_ms: Option<f64>,
    p99_ms: Option<f64>,
    max_ms: Option<f64>,
}

impl From<Percentiles> for PercentilesJson {
    fn from(p: Percentiles) -> Self {
        let some = |v: f64| (p.count > 0).then_some(v);
        Self {
            count: p.count,
            p50_ms: some(p.p50_ms),
            p95_ms: some(p.p95_ms),
            p99_ms: some(p.p99_ms),
            max_ms: some(p.max_ms),
        }
    }
}

impl From<PercentilesJson> for Percentiles {
    fn from(p: PercentilesJson) -> Self {
        Self {
            count: p.count,
            p50_ms: p.p50_ms.unwrap_or(0.0),
            p95_ms: p.p95_ms.unwrap_or(0.0),
            p99_ms: p.p99_ms.unwrap_or(0.0),
            max_ms: p.max_ms.unwrap_or(0.0),
        }
    }
}

/// The ⌈q·N⌉-th smallest of `sorted` (q in [0, 1]); 0 when empty.
pub fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "q is in [0, 1], so the rank lies in [0, len]"
    )]
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    sorted
        .get(rank.saturating_sub(1).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_of_all_or_nothing_stays_inside_zero_one_and_is_not_a_point() {
        let all = Proportion::wilson(20, 20);
        assert_eq!(all.value, 1.0);
        assert!(all.high <= 1.0 && all.low > 0.8 && all.low < 1.0, "{all:?}");
        let none = Proportion::wilson(0, 20);
        assert!(
            none.low >= 0.0 && none.high > 0.0 && none.high < 0.2,
            "{none:?}"
        );
    }

    #[test]
    fn nothing_to_read_is_null_in_json_not_zero() {
        let json = serde_json::to_value(Proportion::wilson(0, 0)).unwrap();
        assert_eq!(json["value"], serde_json::Value::Null);
        assert_eq!(
            (json["low"].as_f64(), json["high"].as_f64()),
            (Some(0.0), Some(1.0))
        );
        let json = serde_json::to_value(Percentiles::of(Vec::new())).unwrap();
        assert_eq!(json["count"], 0);
        assert_eq!(json["p50_ms"], serde_json::Value::Null);
        assert_eq!(json["max_ms"], serde_json::Value::Null);
        // Figures with evidence are numbers, and both read back.
        let p = Proportion::wilson(9, 10);
        let back: Proportion = serde_json::from_value(serde_json::to_value(p).unwrap()).unwrap();
        assert_eq!(back, p);
        let back: Percentiles =
            serde_json::from_value(serde_json::to_value(Percentiles::default()).unwrap()).unwrap();
        assert_eq!(back, Percentiles::default());
    }

    #[test]
    fn nearest_rank_of_one_value_is_that_value() {
        let p = Percentiles::of(vec![7.0]);
        assert_eq!((p.count, p.p50_ms, p.p99_ms, p.max_ms), (1, 7.0, 7.0, 7.0));
        assert_eq!(nearest_rank(&[], 0.5), 0.0);
    }
}
