//! How the report's renderings write numbers: durations, rates and times.

use chrono::{DateTime, FixedOffset};

/// `840 ms`, `12.3 s`, `5 min`, `1.5 h`, `2 d` (whole units shown without decimals).
///
/// ```
/// use retryscope::report::duration_text;
/// assert_eq!(duration_text(840.4), "840 ms");
/// assert_eq!(duration_text(12_345.0), "12.3 s");
/// assert_eq!(duration_text(300_000.0), "5 min");
/// assert_eq!(duration_text(5_400_000.0), "1.5 h");
/// ```
pub fn duration_text(ms: f64) -> String {
    const UNITS: [(f64, &str); 4] = [
        (86_400_000.0, "d"),
        (3_600_000.0, "h"),
        (60_000.0, "min"),
        (1_000.0, "s"),
    ];
    let Some((size, unit)) = UNITS.iter().find(|(size, _)| ms >= *size) else {
        return format!("{ms:.0} ms");
    };
    let n = ms / size;
    if (n - n.round()).abs() < 0.05 {
        format!("{n:.0} {unit}")
    } else {
        format!("{n:.1} {unit}")
    }
}

/// `93.1 %`.
pub fn percent_text(share: f64) -> String {
    format!("{:.1} %", share * 100.0)
}

/// `2026-12-05 10:00:00 +00:00`.
pub fn time_text(t: &DateTime<FixedOffset>) -> String {
    t.format("%Y-%m-%d %H:%M:%S %:z").to_string()
}
