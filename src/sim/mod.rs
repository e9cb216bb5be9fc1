//! The strategy lab: pure, seeded simulations of retry strategies in virtual time.
//! No I/O, no clock; every RNG is a seeded [`PolicyRng`](crate::policy::PolicyRng).
//!
//! - [`distribution()`]: per-retry spread (min, p5, p50, p95, max) and histogram of a profile's
//!   waits and cumulative waiting beside the exact bounds, plus [`warnings()`].
//! - [`contention()`] / [`sweep()`]: N clients against one server (the AWS Architecture Blog post's
//!   optimistic-concurrency model, or a capacity-limited server answering 429/503), comparing
//!   the [`Contender`]s: total calls, completion time, server load, clients that gave up.
//! - [`analyse_stack`] / [`simulate_stack`]: layered retries (outer → inner) and how they
//!   multiply the attempts reaching a failing server.
//! - [`whatif()`]: recorded runs replayed under other profiles (DESIGN.md §12), with the
//!   estimate's sampling band and how it grows with the sampling interval; [`compare()`] is
//!   the what-if both faces run (the recorded profile marked current), [`whatif_table()`] its
//!   text.
//!
//! Waits come from the policy layer ([`crate::policy::sample_wait_ms`],
//! [`crate::policy::for_each_sampled_wait`], [`crate::policy::Policy`]), budgets from its
//! [`TokenBucket`](crate::policy::TokenBucket): the lab simulates the same formulas the engine
//! runs.

mod budget_check;
mod contender;
mod contention;
mod distribution;
mod event_queue;
mod network;
mod server_model;
mod spread;
mod stack;
mod sweep;
mod warnings;
mod whatif;
mod whatif_evidence;
mod whatif_run;
#[cfg(test)]
mod whatif_tests;
mod whatif_text;

pub use budget_check::{BudgetDry, budget_dry};
pub use contender::Contender;
pub use contention::{
    ContentionResult, ContentionSetup, POST_BASE_MS, POST_CAP_MS, contention, contention_with,
};
pub use distribution::{Distribution, RetryDistribution, distribution};
pub use network::NetworkDelay;
pub use server_model::ServerModel;
pub use spread::{HISTOGRAM_BINS, Histogram, Spread};
pub use stack::{
    STACK_ATTEMPT_BOUND, StackAnalysis, StackSetup, StackSimulation, analyse_stack,
    retries_failure, simulate_stack, simulate_stack_with,
};
pub use sweep::{MAX_CLIENTS, SweepPoint, sweep};
pub use warnings::{
    BUDGET_CHECK_RUNS, LabWarning, first_pinned_retry, warnings, worst_case_ms, worst_case_with,
};
pub use whatif::{
    ASSUMPTIONS, Band, CandidateEstimate, Comparison, RESOLUTION_MIN_RUNS, RESOLUTION_STEPS,
    RecordedWith, ResolutionRow, WHATIF_FORMAT, WhatIfCandidate, WhatIfResult, compare, endpoint,
    mixed_warning, whatif, with_recorded,
};
pub use whatif_run::WHATIF_MAX_ATTEMPTS;
pub use whatif_text::{
    WHATIF_COLUMNS, cells as whatif_cells, resolution_text, summary_lines as whatif_summary,
    table as whatif_table,
};
