//! How the timeline writes ms, seconds, byte sizes and wall-clock times.

use chrono::{DateTime, FixedOffset};

/// Whole ms from 1 ms up, rounded half away from zero (`1003 ms`); below 1 ms two decimals
/// (`0.42 ms`), so a fast loopback attempt does not read `0 ms`; below 0.005 ms `< 0.01 ms`,
/// and exactly zero `0 ms`.
#[allow(
    clippy::cast_possible_truncation,
    reason = "`as` saturates; shown durations are far below i64::MAX ms"
)]
pub fn format_ms(ms: f64) -> String {
    if ms == 0.0 {
        return "0 ms".to_owned();
    }
    // 0.995 and up would print as `1.00`: whole ms from there on.
    if !(0.0..0.995).contains(&ms) {
        return format!("{} ms", ms.round() as i64);
    }
    if ms < 0.005 {
        return "< 0.01 ms".to_owned();
    }
    format!("{ms:.2} ms")
}

/// Seconds with one decimal: `4.1 s` (`ms / 1000`).
pub fn format_secs(ms: f64) -> String {
    format!("{:.1} s", ms / 1000.0)
}

pub use crate::model::units::format_bytes;

/// Local time with offset, ms precision: `14:03:07.412 +01:00`.
pub fn format_clock(at: &DateTime<FixedOffset>) -> String {
    at.format("%H:%M:%S%.3f %:z").to_string()
}

/// Local time with a compact offset, ms precision: `14:03:07.412+01`, `14:03:07.412+05:30`,
/// `14:03:07.412-03` (ISO 8601 `±hh` when the offset is whole hours, `±hh:mm` otherwise).
pub fn format_clock_compact(at: &DateTime<FixedOffset>) -> String {
    let offset = at.offset().local_minus_utc();
    let sign = if offset < 0 { '-' } else { '+' };
    let minutes = offset.unsigned_abs() / 60;
    let (h, m) = (minutes / 60, minutes % 60);
    let zone = if m == 0 {
        format!("{sign}{h:02}")
    } else {
        format!("{sign}{h:02}:{m:02}")
    };
    format!("{}{zone}", at.format("%H:%M:%S%.3f"))
}

/// Date, local time with offset, ms precision: `2026-11-30 14:03:07.412 +01:00`.
pub fn format_date_time(at: &DateTime<FixedOffset>) -> String {
    at.format("%Y-%m-%d %H:%M:%S%.3f %:z").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_read_as_expected() {
        assert_eq!(format_ms(1002.6), "1003 ms");
        assert_eq!(format_ms(0.42), "0.42 ms");
        assert_eq!(format_ms(0.2), "0.20 ms");
        assert_eq!(format_ms(0.994), "0.99 ms");
        assert_eq!(format_ms(0.996), "1 ms");
        assert_eq!(format_ms(0.001), "< 0.01 ms");
        assert_eq!(format_ms(0.0), "0 ms");
        assert_eq!(format_ms(1.4), "1 ms");
        assert_eq!(format_secs(4140.0), "4.1 s");
    }

    #[test]
    fn clock_keeps_offset_and_ms() {
        let at =
            DateTime::parse_from_rfc3339("2026-11-30T14:03:07.412+01:00").expect("valid rfc3339");
        assert_eq!(format_clock(&at), "14:03:07.412 +01:00");
        assert_eq!(format_date_time(&at), "2026-11-30 14:03:07.412 +01:00");
        assert_eq!(format_clock_compact(&at), "14:03:07.412+01");
        let india =
            DateTime::parse_from_rfc3339("2026-11-30T14:03:07.012+05:30").expect("valid rfc3339");
        assert_eq!(format_clock_compact(&india), "14:03:07.012+05:30");
        let west =
            DateTime::parse_from_rfc3339("2026-11-30T14:03:07.000-03:00").expect("valid rfc3339");
        assert_eq!(format_clock_compact(&west), "14:03:07.000-03");
    }
}
