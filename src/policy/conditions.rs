//! A profile's conditions on responses (DESIGN.md §8), compiled once per run by
//! [`super::Policy::new`]: `retry_on.response` and `success_when`.

use super::matchers::{MatcherError, MatcherList};
use crate::model::RetryProfile;

/// The compiled `retry_on.response` and `success_when` lists of one profile.
#[derive(Debug, Clone, Default)]
pub struct ResponseConditions {
    /// `retry_on.response`: a response matching one is retryable whatever its status.
    pub retry_on: MatcherList,
    /// `success_when`: a success status counts as success only if one holds (empty = always).
    pub success_when: MatcherList,
    /// `throttling.response`: a retryable response matching one is of the throttling class.
    pub throttling: MatcherList,
}

impl ResponseConditions {
    /// Compiles both lists of `profile`.
    ///
    /// # Errors
    /// The first [`MatcherError`], its path starting `retry_on.response[i]` or `success_when[i]`.
    pub fn compile(profile: &RetryProfile) -> Result<Self, MatcherError> {
        Ok(Self {
            retry_on: MatcherList::compile(&profile.retry_on.response, "retry_on.response")?,
            success_when: MatcherList::compile(&profile.success_when, "success_when")?,
            throttling: MatcherList::compile(&profile.throttling.response, "throttling.response")?,
        })
    }
}
