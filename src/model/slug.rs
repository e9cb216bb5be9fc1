//! File names made from names people give (a profile's, an environment's).

/// `name` as a file name stem: ASCII letters and digits in lower case, every other run of
/// characters as one `-`, none at the ends; `fallback` when nothing is left.
///
/// ```
/// use retryscope::model::slug;
/// assert_eq!(slug("My API (copy)", "profile"), "my-api-copy");
/// assert_eq!(slug("東京", "environment"), "environment");
/// ```
pub fn slug(name: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() { fallback } else { out }.to_owned()
}
