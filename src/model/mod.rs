//! Plain data shared by every layer: requests, retry profiles, attempts and run events.
//!
//! Nothing here does I/O or reads a clock; everything is `serde` data so that profiles
//! round-trip through JSON and run events can be printed as JSON Lines.

mod attempt;
mod event;
mod profile;
mod request;
mod status_set;

pub use attempt::{
    AttemptOutcome, BodyPreview, ErrorKind, Hop, NetError, ResponseSummary, Timings, Verdict,
};
pub use event::{Draw, OutcomeKind, RunEvent, RunId, RunOutcome, WaitExplanation};
pub use profile::{
    Backoff, Combine, DelayHeader, HeaderUnit, OnExceedMax, OtherStatusAction, PROFILE_FORMAT,
    ProfileTimeouts, RetryOn, RetryProfile, Strategy,
};
pub use request::{
    Body, KeyValue, MultipartPart, PartSource, RequestSpec, Timeouts, standard_method_case,
};
pub use status_set::{StatusRange, StatusSet};
