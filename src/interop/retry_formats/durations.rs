//! Duration texts of the other tools, in milliseconds: protobuf JSON (`"1.5s"`, gRPC and Envoy),
//! Go (`"1m30s"`, Dapr) and .NET `TimeSpan` (`"00:00:02"`, Polly). Fractions of a millisecond
//! round up, as Retry-After does (DESIGN.md §3): never wait less than the file says.

/// Parses `"1.5s"` / `"0.025s"` / `"2s"` (protobuf JSON `Duration`).
///
/// # Errors
/// A message naming the expected form.
pub fn parse_proto(text: &str) -> Result<u64, String> {
    let bad = || format!("expected a duration like \"1.5s\", found {text:?}");
    let number = text.trim().strip_suffix('s').ok_or_else(bad)?;
    seconds_to_ms(number).ok_or_else(bad)
}

/// `1500` → `"1.5s"`, `25` → `"0.025s"`, `2000` → `"2s"`.
pub fn format_proto(ms: u64) -> String {
    format!("{}s", format_seconds(ms))
}

/// `1500` → `"1.5"`, `2000` → `"2"` (seconds with at most three decimals).
pub fn format_seconds(ms: u64) -> String {
    let (s, frac) = (ms / 1000, ms % 1000);
    if frac == 0 {
        s.to_string()
    } else {
        let f = format!("{frac:03}");
        format!("{s}.{}", f.trim_end_matches('0'))
    }
}

/// Decimal seconds (`"1.5"`, `".25"`, `"0"`) → ms, exactly (decimal digits, no float rounding),
/// rounding up a fraction of a millisecond; `None` for anything else, a negative value or one
/// past `u64::MAX` ms.
pub fn seconds_to_ms(number: &str) -> Option<u64> {
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    if !whole.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut ms = whole.checked_mul(1000)?;
    let digits: Vec<u64> = frac
        .chars()
        .filter_map(|c| c.to_digit(10).map(u64::from))
        .collect();
    let first3 = digits
        .iter()
        .take(3)
        .enumerate()
        .fold(0, |acc, (i, d)| acc + d * [100, 10, 1][i]);
    ms = ms.checked_add(first3)?;
    if digits.iter().skip(3).any(|d| *d > 0) {
        ms = ms.checked_add(1)?;
    }
    Some(ms)
}

/// Parses a Go duration: `"500ms"`, `"5s"`, `"1m30s"`, `"1.5h"`, `"250us"`, `"0"`; at most
/// 10^15 ms.
///
/// # Errors
/// A message naming the expected form.
pub fn parse_go(text: &str) -> Result<u64, String> {
    let ms = (parse_go_ns(text)? / 1e6).ceil();
    if ms.is_finite() && (0.0..1e15).contains(&ms) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(ms as u64)
    } else {
        Err(go_form(text))
    }
}

/// A Go duration's length in nanoseconds, its parts summed as Go's `time.ParseDuration` sums
/// them (`"1m30s"`, and `"1s2s"` is 3 s); no upper bound (a caller applies its own).
///
/// # Errors
/// A message naming the expected form.
pub fn parse_go_ns(text: &str) -> Result<f64, String> {
    let bad = || go_form(text);
    let t = text.trim();
    if t == "0" {
        return Ok(0.0);
    }
    if t.is_empty() {
        return Err(bad());
    }
    let mut rest = t;
    let mut total_ns: f64 = 0.0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        if num_len == 0 {
            return Err(bad());
        }
        let value: f64 = rest[..num_len].parse().map_err(|_| bad())?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        total_ns += value * scale;
    }
    Ok(total_ns)
}

fn go_form(text: &str) -> String {
    format!("expected a duration like \"5s\", \"500ms\" or \"1m30s\", found {text:?}")
}

/// `500` → `"500ms"`, `5000` → `"5s"`, `90000` → `"90s"`.
pub fn format_go(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// Parses a .NET `TimeSpan` as configuration binding reads it: `"[d.]hh:mm[:ss[.fffffff]]"`,
/// or a bare whole number of **days** (`"2"` is two days, as `TimeSpan.Parse` reads it).
///
/// # Errors
/// A message naming the expected form.
pub fn parse_timespan(text: &str) -> Result<u64, String> {
    let bad =
        || format!("expected a TimeSpan like \"00:00:02\" or \"00:00:00.500\", found {text:?}");
    let t = text.trim();
    if !t.contains(':') {
        let days: u64 = t.parse().map_err(|_| bad())?;
        return days.checked_mul(86_400_000).ok_or_else(bad);
    }
    let (days, clock) = match t.split_once(':') {
        Some((head, _)) if head.contains('.') => {
            let (d, _) = t.split_once('.').ok_or_else(bad)?;
            (d.parse::<u64>().map_err(|_| bad())?, &t[d.len() + 1..])
        }
        _ => (0, t),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    let (h, m, s) = match parts.as_slice() {
        [h, m] => (*h, *m, "0"),
        [h, m, s] => (*h, *m, *s),
        _ => return Err(bad()),
    };
    let h: u64 = h.parse().map_err(|_| bad())?;
    let m: u64 = m.parse().map_err(|_| bad())?;
    if h > 23 || m > 59 {
        return Err(bad());
    }
    let s_ms = seconds_to_ms(s).ok_or_else(bad)?;
    if s_ms >= 60_000 {
        return Err(bad());
    }
    Ok(days * 86_400_000 + h * 3_600_000 + m * 60_000 + s_ms)
}

/// `2000` → `"00:00:02"`, `500` → `"00:00:00.5"`, `90061000` → `"1.01:01:01"`.
pub fn format_timespan(ms: u64) -> String {
    let days = ms / 86_400_000;
    let h = ms / 3_600_000 % 24;
    let m = ms / 60_000 % 60;
    let s = ms % 60_000;
    let secs = format_seconds(s);
    let secs = if s < 10_000 { format!("0{secs}") } else { secs };
    if days > 0 {
        format!("{days}.{h:02}:{m:02}:{secs}")
    } else {
        format!("{h:02}:{m:02}:{secs}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proto_durations_round_trip_and_round_up() {
        assert_eq!(parse_proto("1.5s"), Ok(1500));
        assert_eq!(parse_proto("0.025s"), Ok(25));
        assert_eq!(parse_proto("2s"), Ok(2000));
        assert_eq!(parse_proto("0.0001s"), Ok(1));
        assert!(parse_proto("2").is_err());
        assert!(parse_proto("-1s").is_err());
        for ms in [0, 1, 25, 100, 1500, 2000, 86_400_000] {
            assert_eq!(parse_proto(&format_proto(ms)), Ok(ms));
        }
    }

    #[test]
    fn go_durations() {
        assert_eq!(parse_go("500ms"), Ok(500));
        assert_eq!(parse_go("1m30s"), Ok(90_000));
        assert_eq!(parse_go("1.5h"), Ok(5_400_000));
        assert_eq!(parse_go("250us"), Ok(1));
        assert!(parse_go("5").is_err());
        assert!(parse_go("5x").is_err());
        for ms in [0, 500, 5000, 90_000] {
            assert_eq!(parse_go(&format_go(ms)), Ok(ms));
        }
    }

    #[test]
    fn timespans() {
        assert_eq!(parse_timespan("00:00:02"), Ok(2000));
        assert_eq!(parse_timespan("00:00:00.5000000"), Ok(500));
        assert_eq!(parse_timespan("1.01:01:01"), Ok(90_061_000));
        assert_eq!(parse_timespan("2"), Ok(172_800_000));
        assert!(parse_timespan("00:61:00").is_err());
        for ms in [0, 500, 2000, 30_000, 90_061_000] {
            assert_eq!(
                parse_timespan(&format_timespan(ms)),
                Ok(ms),
                "{}",
                format_timespan(ms)
            );
        }
    }
}
