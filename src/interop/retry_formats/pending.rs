//! Profile fields that other work adds (DESIGN.md §7 budgets and classes, §8 matchers): every
//! mapping that waits for one says so with the reason below, so the lead can find them all
//! (`grep -rn pending:: src/interop/retry_formats`) when the field lands.

/// A token-bucket retry budget (gRPC `retryThrottling`, the AWS retry quota).
pub const BUDGET: &str = "retry budgets are not in the profile model yet (profile format 2, DESIGN.md §7): not mapped yet";

/// A separate backoff for throttling outcomes.
pub const THROTTLING_CLASS: &str = "throttling classes are not in the profile model yet \
     (profile format 2, DESIGN.md §7): not mapped yet";

/// Header/body matchers on responses.
pub const MATCHERS: &str =
    "response matchers are not in the profile model yet (DESIGN.md §8): not mapped yet";

/// `max_retries: null`.
pub const UNLIMITED: &str = "unlimited retries (max_retries null, profile format 2) are not in \
     the profile model yet: imported as the largest count allowed";

/// `grpc-retry-pushback-ms` as a header unit.
pub const PUSHBACK: &str = "the grpc-retry-pushback-ms header unit is not in the profile model \
     yet (DESIGN.md §7): not mapped yet";
