//! Whole-number flag values (`--timeout-ms`, `--seed`, `--samples`, `--older-than`, …) read in
//! plain words. clap's own integer parsers say Rust's words (`invalid digit found in string`
//! for `-5`, `1.5` or `NaN`; `number too large to fit in target type`); these say what is
//! expected, with the flag's range: `expected a whole number from 0 to 4294967295`. Flags using
//! them also take `allow_negative_numbers`, so `-1` is read as the flag's value and refused in
//! these words instead of clap's "unexpected argument '-1' found".

/// `text` as a whole number from `min` to `max`.
///
/// ```
/// use retryscope::cli::whole_number::whole_in;
/// assert_eq!(whole_in("42", 0, 100), Ok(42));
/// assert_eq!(whole_in("-1", 0, 100), Err("expected a whole number from 0 to 100".to_owned()));
/// ```
///
/// # Errors
/// `expected a whole number from MIN to MAX` for anything else (a sign, a fraction, `NaN`,
/// digits past `max`).
pub fn whole_in(text: &str, min: u64, max: u64) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a whole number from {min} to {max}")),
    }
}

/// A `u64` flag value (`--seed`, `--timeout-ms`, …): 0 to 18446744073709551615.
///
/// # Errors
/// As [`whole_in`].
pub fn u64_value(text: &str) -> Result<u64, String> {
    whole_in(text, 0, u64::MAX)
}

/// A `u32` flag value (`--max-redirs`): 0 to 4294967295.
///
/// # Errors
/// As [`whole_in`].
pub fn u32_value(text: &str) -> Result<u32, String> {
    narrow(whole_in(text, 0, u64::from(u32::MAX)))
}

/// A `u32` count of at least 1 (`--samples`, `--limit`).
///
/// # Errors
/// As [`whole_in`].
pub fn u32_at_least_1(text: &str) -> Result<u32, String> {
    narrow(whole_in(text, 1, u64::from(u32::MAX)))
}

/// A `u16` flag value (`--port`, `--status`): 0 to 65535.
///
/// # Errors
/// As [`whole_in`].
pub fn u16_value(text: &str) -> Result<u16, String> {
    narrow(whole_in(text, 0, u64::from(u16::MAX)))
}

/// A size in bytes (`--history-body-cap`): 0 to the largest `usize`.
///
/// # Errors
/// As [`whole_in`].
pub fn usize_value(text: &str) -> Result<usize, String> {
    narrow(whole_in(
        text,
        0,
        u64::try_from(usize::MAX).unwrap_or(u64::MAX),
    ))
}

/// A `u32` within `min..=max` (`--clients` 1–1000, `--runs` 1–100000, `--older-than` 0–36500).
///
/// # Errors
/// As [`whole_in`].
pub fn u32_in(text: &str, min: u32, max: u32) -> Result<u32, String> {
    narrow(whole_in(text, u64::from(min), u64::from(max)))
}

/// A value within the target type's range, as [`whole_in`] checked it.
fn narrow<T: TryFrom<u64>>(value: Result<u64, String>) -> Result<T, String> {
    value.and_then(|n| T::try_from(n).map_err(|_| "expected a smaller whole number".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_fractions_nan_and_overflow_say_the_range() {
        for bad in ["-5", "-1", "1.5", "NaN", "x", "", "18446744073709551616"] {
            assert_eq!(
                u64_value(bad),
                Err("expected a whole number from 0 to 18446744073709551615".to_owned()),
                "{bad}"
            );
        }
        assert_eq!(u64_value("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            u32_value("4294967296"),
            Err("expected a whole number from 0 to 4294967295".to_owned())
        );
        assert_eq!(
            u32_at_least_1("0"),
            Err("expected a whole number from 1 to 4294967295".to_owned())
        );
        assert_eq!(u32_in("36500", 0, 36_500), Ok(36_500));
        assert_eq!(
            u32_in("1.5", 0, 36_500),
            Err("expected a whole number from 0 to 36500".to_owned())
        );
        assert_eq!(u16_value("65535"), Ok(65_535));
        assert_eq!(usize_value("0"), Ok(0));
    }
}
