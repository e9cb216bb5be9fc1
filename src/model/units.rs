//! Sizes and durations as people read them, for every front end.

/// Byte size: `512 B`, `1.5 KiB`, `1 MiB`, `2.3 MiB` (binary units, one decimal above 1 KiB
/// unless the size is a whole number of units).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if bytes >= size {
            return if bytes.is_multiple_of(size) {
                format!("{} {unit}", bytes / size)
            } else {
                format!("{:.1} {unit}", bytes as f64 / size as f64)
            };
        }
    }
    format!("{bytes} B")
}

/// A measured duration short: whole ms below a second, else seconds with one decimal
/// (`840 ms`, `12.3 s`).
pub fn ms_or_seconds(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// A duration in whole ms with thousands separators, and in human units next to it once it is a
/// minute or more: `850 ms`, `12,000 ms`, `85,148,678,000 ms ≈ 2.7 years`.
pub fn format_ms_human(ms: u64) -> String {
    let digits = ms.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match approx(ms) {
        Some(about) => format!("{grouped} ms ≈ {about}"),
        None => format!("{grouped} ms"),
    }
}

/// `2.7 years`, `3.5 days`, `1.2 h`, `4 min` for a minute or more; `None` below.
fn approx(ms: u64) -> Option<String> {
    const MIN: f64 = 60_000.0;
    const UNITS: [(f64, &str); 4] = [
        (365.25 * 24.0 * 60.0 * MIN, "years"),
        (24.0 * 60.0 * MIN, "days"),
        (60.0 * MIN, "h"),
        (MIN, "min"),
    ];
    let v = ms as f64;
    UNITS
        .iter()
        .find(|(size, _)| v >= *size)
        .map(|(size, unit)| {
            let n = v / size;
            if n >= 10.0 {
                format!("{n:.0} {unit}")
            } else {
                format!("{n:.1} {unit}")
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_durations_get_human_units() {
        assert_eq!(format_ms_human(850), "850 ms");
        assert_eq!(format_ms_human(12_000), "12,000 ms");
        assert_eq!(format_ms_human(90_000), "90,000 ms ≈ 1.5 min");
        assert_eq!(
            format_ms_human(85_148_678_000),
            "85,148,678,000 ms ≈ 2.7 years"
        );
        assert_eq!(format_ms_human(3 * 86_400_000), "259,200,000 ms ≈ 3.0 days");
    }

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(3 * 1024 * 1024), "3 MiB");
        assert_eq!(format_bytes(1024 * 1024 + 200_000), "1.2 MiB");
        assert_eq!(format_bytes(3 * 1024 * 1024 + 300_000), "3.3 MiB");
    }
}
