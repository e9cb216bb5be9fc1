//! Numeric limits shared by every strategy: the 24 h ceiling, exponent clamping, whole-ms rounding.
//!
//! DESIGN.md §2: "no overflow or panic for any n (clamp exponents; use saturating or f64 math then
//! clamp to [0, c or 24 h]); a wait is never negative; c absent means no cap but still clamped at 24 h".

/// The longest wait any strategy ever returns: 24 h in ms (86 400 000).
///
/// A max delay `c` above this is treated as this value.
pub const MAX_WAIT_MS: u64 = 86_400_000;

/// Largest power of two used in a formula. `2^900` is ≈ 8.5e270, so `b · 2^900` stays finite in
/// f64 for every `b: u64`, while any `b ≥ 1` is already far past [`MAX_WAIT_MS`]: clamping the
/// exponent here never changes a wait by more than a probability of about `c / 2^900`.
pub(crate) const MAX_EXPONENT: i32 = 900;

/// The effective cap in ms: `c` when set, else 24 h, never above 24 h.
pub(crate) fn cap_ms(max_delay_ms: Option<u64>) -> f64 {
    max_delay_ms.map_or(MAX_WAIT_MS, |c| c.min(MAX_WAIT_MS)) as f64
}

/// `2^exp` with `exp` clamped to [−1, [`MAX_EXPONENT`]].
pub(crate) fn pow2(exp: i64) -> f64 {
    let exp = exp.clamp(-1, i64::from(MAX_EXPONENT));
    // The clamp above keeps the value inside i32.
    2f64.powi(i32::try_from(exp).unwrap_or(MAX_EXPONENT))
}

/// The exponent actually used for `2^n` (n clamped to [`MAX_EXPONENT`]).
pub(crate) fn clamped_exponent(n: u32) -> u32 {
    n.min(MAX_EXPONENT.unsigned_abs())
}

/// Sanitised proportional ratio `p`: NaN → 0, clamped to [0, 1] so the factor `U[1−p, 1+p]` is
/// never negative.
pub(crate) fn ratio(p: f64) -> f64 {
    if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) }
}

/// Rounds a non-negative ms value up to whole ms (fractional ms round up, DESIGN.md §3).
/// NaN and negatives give 0; huge values saturate at `u64::MAX`.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the one f64 → ms conversion: NaN and negatives are 0 above, `as` saturates past u64::MAX"
)]
pub(crate) fn ceil_ms(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else {
        // `as` saturates for floats above u64::MAX.
        x.ceil() as u64
    }
}

/// Formats a ms (or plain) quantity for explanations: whole numbers as integers, fractions with
/// at most 2 decimals, astronomically large values in scientific notation.
pub(crate) fn num(x: f64) -> String {
    if !x.is_finite() || x.abs() >= 1e15 {
        format!("{x:.3e}")
    } else if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        let s = format!("{x:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// Formats ms as seconds for human messages: `3600000` → `3600 s`, `1500` → `1.5 s`.
pub(crate) fn secs(ms: u64) -> String {
    let whole = ms / 1000;
    let frac = ms % 1000;
    if frac == 0 {
        format!("{whole} s")
    } else {
        let f = format!("{frac:03}");
        format!("{whole}.{} s", f.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps_and_rounds() {
        assert_eq!(cap_ms(None), 86_400_000.0);
        assert_eq!(cap_ms(Some(u64::MAX)), 86_400_000.0);
        assert_eq!(cap_ms(Some(10)), 10.0);
        assert_eq!(pow2(-5), 0.5);
        assert!(pow2(i64::MAX).is_finite());
        assert_eq!(ceil_ms(f64::NAN), 0);
        assert_eq!(ceil_ms(-3.0), 0);
        assert_eq!(ceil_ms(1.0001), 2);
        assert_eq!(ceil_ms(f64::INFINITY), u64::MAX);
        assert_eq!(ratio(f64::NAN), 0.0);
        assert_eq!(ratio(7.0), 1.0);
        assert_eq!(clamped_exponent(u32::MAX), 900);
    }

    #[test]
    fn formats_numbers() {
        assert_eq!(num(2370.0), "2370");
        assert_eq!(num(1500.5), "1500.5");
        assert_eq!(num(2.371), "2.37");
        assert_eq!(secs(3_600_000), "3600 s");
        assert_eq!(secs(1500), "1.5 s");
        assert_eq!(secs(10), "0.01 s");
    }
}
