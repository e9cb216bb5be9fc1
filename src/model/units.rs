//! Sizes as people read them, for every front end.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(3 * 1024 * 1024), "3 MiB");
        assert_eq!(format_bytes(1024 * 1024 + 200_000), "1.2 MiB");
        assert_eq!(format_bytes(3 * 1024 * 1024 + 300_000), "3.3 MiB");
    }
}
