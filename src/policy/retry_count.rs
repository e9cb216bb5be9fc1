//! Texts for retry counts too large to list (DESIGN.md §7): any count up to `u32::MAX`, or
//! unlimited (`max_retries: null`, bounded by the deadline). Previews and `simulate` list at most
//! [`SIMULATE_MAX_RETRIES`] retries and summarise the rest with these.

use super::simulate::{SIMULATE_MAX_RETRIES, bound_max};
use crate::model::RetryProfile;

/// `3 retries (4 attempts)`, `1 retry (2 attempts)`, `unlimited retries (until the 60000 ms
/// deadline)`; never enumerates anything.
///
/// ```
/// use retryscope::policy::retries_text;
/// assert_eq!(retries_text(Some(u32::MAX), None), "4294967295 retries (4294967296 attempts)");
/// assert_eq!(retries_text(None, Some(60_000)), "unlimited retries (until the 60000 ms deadline)");
/// ```
pub fn retries_text(max_retries: Option<u32>, deadline_ms: Option<u64>) -> String {
    match max_retries {
        Some(1) => "1 retry (2 attempts)".to_owned(),
        Some(r) => format!("{r} retries ({} attempts)", u64::from(r) + 1),
        None => match deadline_ms {
            Some(d) => format!("unlimited retries (until the {d} ms deadline)"),
            None => "unlimited retries (no deadline: the profile is refused)".to_owned(),
        },
    }
}

/// How many retries a preview or `simulate` lists for `profile`: max retries, at most
/// [`SIMULATE_MAX_RETRIES`] (unlimited lists that many).
pub fn listed_retries(profile: &RetryProfile) -> u32 {
    profile
        .max_retries
        .unwrap_or(SIMULATE_MAX_RETRIES)
        .min(SIMULATE_MAX_RETRIES)
}

/// The line that stands for the retries not listed (those after [`listed_retries`]), or `None`
/// when every retry is listed, e.g. `retries 1001–4294967295 (4294966295 more) are not listed;
/// each of their waits is at most 10000 ms`. Computed from the formula's bound, without sampling
/// or allocating per retry.
pub fn unlisted_retries_note(profile: &RetryProfile) -> Option<String> {
    let listed = listed_retries(profile);
    let bound = bound_max(&profile.backoff, u32::MAX);
    let at_most = if bound > 0.0 {
        format!("; each of their waits is at most {} ms", bound.ceil())
    } else {
        String::new()
    };
    match profile.max_retries {
        Some(r) if r <= listed => None,
        Some(r) => Some(format!(
            "retries {}–{r} ({} more) are not listed{at_most}",
            listed + 1,
            r - listed
        )),
        None => {
            let until = profile
                .deadline_ms
                .map_or_else(|| "a cancel".to_owned(), |d| format!("the {d} ms deadline"));
            Some(format!(
                "retries after {listed} are not listed: unlimited retries go on until {until}{at_most}"
            ))
        }
    }
}
