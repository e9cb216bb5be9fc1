//! Profile fields (DESIGN.md §7 budgets and classes, §8 matchers) that some converters do not
//! map yet: each such converter lists the gap in these words, so every unmapped field is said
//! the same way and found in one place (`grep -rn pending:: src/interop/retry_formats`).

/// A token-bucket retry budget (gRPC `retryThrottling`, the AWS retry quota).
pub const BUDGET: &str = "this converter does not map retry budgets (retry_budget) yet";

/// A separate backoff for throttling outcomes.
pub const THROTTLING_CLASS: &str = "this converter does not map the throttling class \
     (throttling) yet";

/// Header/body matchers on responses.
pub const MATCHERS: &str =
    "this converter does not map response matchers (retry_on.response, success_when) yet";

/// A count beyond `u32::MAX`, or "retry forever" without a deadline to end it.
pub const UNLIMITED: &str = "Retryscope's unlimited retries (max_retries null) need a deadline, \
     and counts stop at 4294967295: imported as that many retries";
