//! Plain data shared by every layer: requests (and the composer's draft of one), retry
//! profiles, attempts, run events, environments and `{{variable}}` resolution.
//!
//! Nothing here does I/O or reads a clock; everything is `serde` data so that profiles
//! round-trip through JSON and run events can be printed as JSON Lines.

mod attempt;
mod auth;
mod batch_counts;
mod batch_event;
mod batch_item_state;
mod batch_options;
mod batch_report_row;
mod batch_request;
mod batch_state;
mod budget;
mod counted;
mod environment;
mod event;
pub mod http_token;
mod outcome_class;
mod parse_words;
mod phases;
mod profile;
pub mod quote;
mod request;
mod request_draft;
pub mod request_limits;
mod response_matcher;
mod run_fold;
mod saved_request;
pub mod secret_echoes;
pub mod secret_members;
pub mod secrets;
mod slug;
mod status_set;
pub mod units;
pub mod url_rule;
mod utf8_text;
mod variables;

pub use attempt::{
    AttemptOutcome, BodyPreview, ConnectionUse, DnsFailure, ErrorKind, Hop, NetError,
    ResponseSummary, RetryCause, Timings, Verdict,
};
pub use auth::{AuthDraft, AuthKind};
pub use batch_counts::BatchCounts;
pub use batch_event::BatchEvent;
pub use batch_item_state::BatchItemState;
pub use batch_options::{
    BatchOptions, DEFAULT_CONCURRENCY, MAX_CONCURRENCY, MIN_RATE_PER_HOST, batch_idempotency_key,
    rate_per_host_problem,
};
pub use batch_report_row::{BatchReportAttempt, BatchReportRow};
pub use batch_request::BatchRequest;
pub use batch_state::{BatchState, BatchWorker};
pub use budget::{
    BudgetChange, BudgetChangeKind, BudgetCharge, BudgetCost, BudgetScope, RetryBudget,
};
pub use counted::counted;
pub use environment::{ENVIRONMENT_FORMAT, Environment, Variable};
pub use event::{
    Draw, OutcomeKind, RunEvent, RunId, RunOutcome, TLS_UNVERIFIED_NOTE, WaitExplanation,
};
pub use http_token::is_http_token;
pub use outcome_class::{OutcomeClass, Throttling};
pub use parse_words::{char_column, file_message, plain_json_error, plain_parse_message};
pub use phases::{PhaseKind, PhaseSpan, phase_parts, phase_spans, phases_line};
pub use profile::{
    Backoff, Combine, DEFAULT_READ_MS, DelayHeader, HeaderUnit, OnExceedMax, OtherStatusAction,
    PROFILE_FORMAT, PROFILE_FORMAT_V1, ProfileTimeouts, RetryOn, RetryProfile, Strategy,
};
pub use request::{
    Body, KeyValue, MultipartPart, PartSource, RequestSpec, Timeouts, standard_method_case,
};
pub use request_draft::{BodyDraft, BodyKind, RequestDraft, UUID_PLACEHOLDER};
pub use request_limits::{LimitProblem, check_limits};
pub use response_matcher::ResponseMatcher;
pub use run_fold::{
    AttemptClass, AttemptResult, AttemptRow, Phase, RunFinish, RunFold, RunHeader, WaitRow,
};
pub use saved_request::{SAVED_REQUEST_FORMAT, SavedRequest};
pub use slug::slug;
pub use status_set::{StatusRange, StatusSet};
pub use utf8_text::{NotUtf8, utf8_text};
pub use variables::{
    Resolved, SECRET_MASK, UUID_VARIABLE, UnknownVariable, Variables, fill_uuid, is_variable_name,
    mask_secret_values, only_references, resolve_spec, resolve_text, resolve_text_masked,
    uuid_template,
};

#[cfg(test)]
#[path = "id_tests.rs"]
mod id_tests;
