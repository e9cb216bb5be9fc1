//! Counts in user-facing text: `1 item`, `2 items`, `0 items`.

/// `n` and the noun that fits it: `one` for exactly 1, else `many`.
///
/// ```
/// use retryscope::model::counted;
/// assert_eq!(counted(1, "item", "items"), "1 item");
/// assert_eq!(counted(0, "entry", "entries"), "0 entries");
/// assert_eq!(counted(25, "item", "items"), "25 items");
/// ```
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
