//! Delay-header parsing (DESIGN.md §3): `Retry-After` delta-seconds and HTTP-dates, millisecond
//! headers, Unix timestamps, and the IETF draft `RateLimit` header's `t=` parameter.
//!
//! Pure: the reference time is passed in (the response's `Date` header when valid, else the
//! caller's local clock). Numbers are parsed as exact decimals (no float rounding), and fractional
//! milliseconds round up: `Retry-After: 1.0001` is 1001 ms.

use crate::model::{HeaderUnit, ResponseSummary};
use std::time::UNIX_EPOCH;

/// How a usable header value was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayForm {
    /// Delta-seconds (integer or decimal).
    Seconds,
    /// Delta-milliseconds.
    Milliseconds,
    /// An HTTP-date minus the reference time.
    HttpDate,
    /// A Unix timestamp (seconds) minus the reference time.
    UnixTimestamp,
    /// The `t=` (or `reset=`) parameter of a `RateLimit` header, seconds.
    RatelimitT,
    /// gRPC `grpc-retry-pushback-ms`, milliseconds.
    GrpcPushbackMs,
}

impl DelayForm {
    /// Short label used in explanations (`seconds`, `HTTP-date`, …).
    pub fn label(self) -> &'static str {
        match self {
            DelayForm::Seconds => "seconds",
            DelayForm::Milliseconds => "milliseconds",
            DelayForm::HttpDate => "HTTP-date",
            DelayForm::UnixTimestamp => "Unix timestamp",
            DelayForm::RatelimitT => "RateLimit t",
            DelayForm::GrpcPushbackMs => "gRPC pushback ms",
        }
    }
}

/// A usable header delay: whole ms (rounded up, saturating) and how it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderDelay {
    /// The delay in ms; a date in the past gives 0.
    pub ms: u64,
    /// How the value was read.
    pub form: DelayForm,
}

/// Parses one delay header value in the given encoding.
///
/// * `seconds`: delta-seconds (`"2"`, `"1.5"`) or, as `Retry-After` allows, an HTTP-date.
/// * `milliseconds`: delta-ms (`"1500"`, `"0.5"` → 1 ms).
/// * `unix_timestamp`: absolute seconds since 1970 (`X-RateLimit-Reset` style), minus the reference.
/// * `http_date`: an HTTP-date only (IMF-fixdate, RFC 850, asctime), minus the reference.
/// * `ratelimit_t`: the `RateLimit` field's reset in seconds (see [`super::parse_ratelimit`]:
///   draft-11 Structured Fields, older drafts' `reset=`, a bare `RateLimit-Reset` number).
/// * `grpc_pushback_ms`: `grpc-retry-pushback-ms`, a non-negative integer of ms (see
///   [`super::grpc_pushback_ms`]; `None` here means "do not retry" to the caller).
///
/// `reference_unix_ms` is the response's `Date` header when valid, else the local clock
/// (see [`reference_unix_ms`]). Returns `None` when the value is negative, empty or garbage.
///
/// ```
/// use retryscope::model::HeaderUnit;
/// use retryscope::policy::parse_delay;
/// assert_eq!(parse_delay("2", HeaderUnit::Seconds, 0).map(|d| d.ms), Some(2000));
/// assert_eq!(parse_delay("0.0015", HeaderUnit::Seconds, 0).map(|d| d.ms), Some(2));
/// assert_eq!(parse_delay("soon", HeaderUnit::Seconds, 0), None);
/// ```
pub fn parse_delay(raw: &str, unit: HeaderUnit, reference_unix_ms: i64) -> Option<HeaderDelay> {
    let value = raw.trim();
    let (ms, form) = match unit {
        HeaderUnit::Seconds => match decimal_scaled(value, 3) {
            Some(ms) => (ms, DelayForm::Seconds),
            None => (date_delay(value, reference_unix_ms)?, DelayForm::HttpDate),
        },
        HeaderUnit::Milliseconds => (decimal_scaled(value, 0)?, DelayForm::Milliseconds),
        HeaderUnit::UnixTimestamp => {
            // Unsaturated: a timestamp past u64::MAX ms still counts from the reference.
            let at = i128::try_from(decimal_scaled_wide(value, 3)?).unwrap_or(i128::MAX);
            (since(at, reference_unix_ms), DelayForm::UnixTimestamp)
        }
        HeaderUnit::HttpDate => (date_delay(value, reference_unix_ms)?, DelayForm::HttpDate),
        HeaderUnit::RatelimitT => (
            super::ratelimit_header::parse_ratelimit(value)?.ms,
            DelayForm::RatelimitT,
        ),
        HeaderUnit::GrpcPushbackMs => (
            super::ratelimit_header::grpc_pushback_ms(value)?,
            DelayForm::GrpcPushbackMs,
        ),
    };
    Some(HeaderDelay { ms, form })
}

/// Parses an HTTP-date (IMF-fixdate, RFC 850 or asctime, RFC 9110 §5.6.7) to Unix ms.
///
/// ```
/// use retryscope::policy::parse_http_date_ms;
/// assert_eq!(parse_http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777_000));
/// assert_eq!(parse_http_date_ms("Sunday, 06-Nov-94 08:49:37 GMT"), Some(784_111_777_000));
/// assert_eq!(parse_http_date_ms("Sun Nov  6 08:49:37 1994"), Some(784_111_777_000));
/// ```
pub fn parse_http_date_ms(raw: &str) -> Option<i64> {
    let at = httpdate::parse_http_date(raw.trim()).ok()?;
    let since = at.duration_since(UNIX_EPOCH).ok()?;
    i64::try_from(since.as_millis()).ok()
}

/// The reference time for HTTP-dates and timestamps in a response, Unix ms: its `Date` header
/// when present and valid, else `now_unix_ms`. The flag says whether `Date` was used.
pub fn reference_unix_ms(response: &ResponseSummary, now_unix_ms: i64) -> (i64, bool) {
    match response.header("date").and_then(parse_http_date_ms) {
        Some(at) => (at, true),
        None => (now_unix_ms, false),
    }
}

/// `date − reference` in ms, 0 when the date is in the past.
fn date_delay(value: &str, reference_unix_ms: i64) -> Option<u64> {
    let at = parse_http_date_ms(value)?;
    Some(since(i128::from(at), reference_unix_ms))
}

/// `at − reference` clamped to [0, `u64::MAX`].
fn since(at_ms: i128, reference_unix_ms: i64) -> u64 {
    let delta = at_ms.saturating_sub(i128::from(reference_unix_ms));
    u64::try_from(delta.max(0)).unwrap_or(u64::MAX)
}

/// An exact non-negative decimal (`digits[.digits]`) times `10^scale`, rounded up, saturating.
/// Signs, exponents, empty strings and anything else give `None`.
pub(super) fn decimal_scaled(value: &str, scale: u32) -> Option<u64> {
    decimal_scaled_wide(value, scale).map(|v| u64::try_from(v).unwrap_or(u64::MAX))
}

/// [`decimal_scaled`] saturating at `u128::MAX` instead.
fn decimal_scaled_wide(value: &str, scale: u32) -> Option<u128> {
    let (int, frac) = match value.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (value, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    if !digits(int) || frac.is_some_and(|f| !digits(f)) {
        return None;
    }
    let mut total: u128 = 0;
    for c in int.bytes() {
        total = total
            .saturating_mul(10)
            .saturating_add(u128::from(c - b'0'));
    }
    let frac = frac.unwrap_or("").as_bytes();
    for i in 0..scale as usize {
        let d = frac.get(i).map_or(0, |c| c - b'0');
        total = total.saturating_mul(10).saturating_add(u128::from(d));
    }
    if frac.iter().skip(scale as usize).any(|&c| c != b'0') {
        total = total.saturating_add(1);
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use HeaderUnit::*;

    /// Sun, 06 Nov 1994 08:49:37 GMT in Unix ms.
    const T0: i64 = 784_111_777_000;

    #[test]
    fn table() {
        let cases: &[(&str, HeaderUnit, Option<u64>)] = &[
            ("2", Seconds, Some(2000)),
            (" 2 ", Seconds, Some(2000)),
            ("0", Seconds, Some(0)),
            ("1.5", Seconds, Some(1500)),
            ("1.1", Seconds, Some(1100)),
            ("1.0001", Seconds, Some(1001)),
            ("0.0000001", Seconds, Some(1)),
            ("3600", Seconds, Some(3_600_000)),
            ("99999999999999999999999999", Seconds, Some(u64::MAX)),
            ("-1", Seconds, None),
            ("", Seconds, None),
            ("garbage", Seconds, None),
            ("1e3", Seconds, None),
            ("+5", Seconds, None),
            ("1.", Seconds, None),
            (".5", Seconds, None),
            ("Sun, 06 Nov 1994 08:49:42 GMT", Seconds, Some(5000)),
            ("Sunday, 06-Nov-94 08:49:42 GMT", Seconds, Some(5000)),
            ("Sun Nov  6 08:49:42 1994", Seconds, Some(5000)),
            ("Sun, 06 Nov 1994 08:00:00 GMT", Seconds, Some(0)),
            ("Sun, 06 Nov 1994 08:49:42 GMT", HttpDate, Some(5000)),
            ("Sunday, 06-Nov-94 08:49:42 GMT", HttpDate, Some(5000)),
            ("Sun Nov  6 08:49:42 1994", HttpDate, Some(5000)),
            ("Sun, 06 Nov 1994 07:00:00 GMT", HttpDate, Some(0)),
            ("5", HttpDate, None),
            ("Sun, 32 Nov 1994 08:49:42 GMT", HttpDate, None),
            ("1500", Milliseconds, Some(1500)),
            ("0.5", Milliseconds, Some(1)),
            ("-20", Milliseconds, None),
            ("Sun, 06 Nov 1994 08:49:42 GMT", Milliseconds, None),
            ("784111787", UnixTimestamp, Some(10_000)),
            ("784111777.25", UnixTimestamp, Some(250)),
            ("784000000", UnixTimestamp, Some(0)),
            ("soon", UnixTimestamp, None),
            // Regression (tests/policy_props.rs): saturating the instant first lost 1 ms here.
            ("20000000000000000", UnixTimestamp, Some(u64::MAX)),
            ("\"default\";r=0;t=7", RatelimitT, Some(7000)),
            ("limit=100, remaining=0, reset=30", RatelimitT, Some(30_000)),
            ("r=0; T=2.5", RatelimitT, Some(2500)),
            ("limit=100, remaining=0", RatelimitT, None),
            ("t=-1", RatelimitT, None),
        ];
        for (raw, unit, want) in cases {
            let got = parse_delay(raw, *unit, T0).map(|d| d.ms);
            assert_eq!(got, *want, "{raw:?} as {unit:?}");
        }
    }

    #[test]
    fn forms_are_reported() {
        let d = parse_delay("Sun, 06 Nov 1994 08:49:42 GMT", Seconds, T0);
        assert_eq!(d.map(|d| d.form), Some(DelayForm::HttpDate));
        assert_eq!(
            parse_delay("2", Seconds, T0).map(|d| d.form),
            Some(DelayForm::Seconds)
        );
    }

    #[test]
    fn reference_prefers_valid_date_header() {
        let mut resp = ResponseSummary {
            status: 503,
            reason: String::new(),
            version: "HTTP/1.1".into(),
            headers: vec![("date".into(), "Sun, 06 Nov 1994 08:49:37 GMT".into())],
            body: crate::model::BodyPreview::default(),
        };
        assert_eq!(reference_unix_ms(&resp, 5), (T0, true));
        resp.headers[0].1 = "yesterday".into();
        assert_eq!(reference_unix_ms(&resp, 5), (5, false));
        resp.headers.clear();
        assert_eq!(reference_unix_ms(&resp, 7), (7, false));
    }
}
