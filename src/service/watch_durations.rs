//! The durations a watch is typed with (the CLI's `--every` and `--for`, the window's *every*
//! and *for* fields): one parser for both faces (DESIGN.md §12).

/// Shortest interval between slots, ms: below it a slot's own start-up (a run, its history
/// rows) takes a good part of the interval and slots read as missed.
pub const MIN_EVERY_MS: u64 = 100;

/// Longest duration a watch takes (`--every`, `--for`), ms: 2562047 h, the longest Go
/// duration in whole hours (Go's `time.Duration` counts nanoseconds in an `i64`: about 292
/// years), the help calling its durations Go-style.
pub const MAX_DURATION_MS: u64 = 2_562_047 * 3_600_000;

/// A duration as typed, ms: days first if any (`2d`, `1d12h`, `0.5d`), then Go-style `200ms`,
/// `30s`, `1m30s`, `8h` (parts summed as Go sums them: `1s2s` is 3 s).
///
/// # Errors
/// A message naming the text: not a duration, or longer than [`MAX_DURATION_MS`].
pub fn duration_ms(text: &str) -> Result<u64, String> {
    let t = text.trim();
    // Go's units (ns, us, µs, ms, s, m, h) have no `d`: a `d` ends the days.
    let (days, rest) = match t.split_once('d') {
        Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.') => {
            (n.parse::<f64>().ok(), rest)
        }
        _ => (Some(0.0), t),
    };
    let rest_ms = if rest.is_empty() && t != rest {
        Some(0.0)
    } else {
        crate::interop::retry_formats::durations::parse_go_ns(rest)
            .ok()
            .map(|ns| ns / 1e6)
    };
    let ms = days
        .zip(rest_ms)
        .map(|(d, r)| (d * 86_400_000.0 + r).ceil());
    let found = crate::model::quote::quote_input(t);
    match ms {
        None => Err(format!(
            "expected a duration such as 200ms, 30s, 1m30s, 8h, 2d or 1d12h, found {found}"
        )),
        Some(ms) if ms > MAX_DURATION_MS as f64 => Err(format!(
            "too long: at most 2562047h (about 292 years), found {found}"
        )),
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(ms) => Ok(ms as u64),
    }
}

/// A watch's length (the CLI's `--for`, the window's *for* field), ms: a duration
/// ([`duration_ms`]) longer than 0.
///
/// # Errors
/// As [`duration_ms`], or zero.
pub fn parse_length(text: &str) -> Result<u64, String> {
    match duration_ms(text)? {
        0 => Err("must be longer than 0".to_owned()),
        ms => Ok(ms),
    }
}

/// A watch's interval (the CLI's `--every`, the window's *every* field), ms: a duration
/// ([`duration_ms`]) of at least [`MIN_EVERY_MS`].
///
/// # Errors
/// As [`parse_length`], or a duration below [`MIN_EVERY_MS`].
pub fn parse_every(text: &str) -> Result<u64, String> {
    let ms = parse_length(text)?;
    if ms < MIN_EVERY_MS {
        return Err(format!(
            "must be at least {MIN_EVERY_MS}ms (a watch sends one run at a time), found {}",
            crate::model::quote::quote_input(text.trim())
        ));
    }
    Ok(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duration_too_long_for_the_clock_is_called_too_long_and_go_sums_its_parts() {
        for text in [
            "1000000000h",
            "2562048h",
            "106752d",
            "99999999999999999999999d",
        ] {
            let e = parse_every(text).unwrap_err();
            assert!(e.starts_with("too long: at most 2562047h"), "{text}: {e}");
        }
        assert_eq!(parse_length("2562047h"), Ok(MAX_DURATION_MS));
        assert_eq!(parse_length("2d"), Ok(172_800_000));
        // Days first, then Go's units; a fraction of a day.
        assert_eq!(parse_length("1d12h"), Ok(129_600_000));
        assert_eq!(parse_length("0.5d"), Ok(43_200_000));
        assert_eq!(parse_length("1d30m15s"), Ok(88_215_000));
        for bad in ["d", "1dd", "12h1d", "1.2.3d", "-1d", "1d12"] {
            assert!(
                parse_length(bad)
                    .unwrap_err()
                    .starts_with("expected a duration"),
                "{bad}"
            );
        }
        // Go's own reading of a duration: its parts are summed.
        assert_eq!(parse_every("1s2s"), Ok(3000));
        assert!(
            parse_length("abc")
                .unwrap_err()
                .starts_with("expected a duration")
        );
        assert_eq!(parse_length("0s"), Err("must be longer than 0".to_owned()));
    }
}
