//! What-if replay (DESIGN.md §12): what other retry profiles would have done against the
//! endpoint a set of recorded runs saw. The recorded attempts are samples of the endpoint's
//! state over time; each candidate profile is replayed once per recorded run, from the run's
//! start (when its first attempt was sent), in virtual time: an attempt at time t gets the answer (status or error kind, with the
//! recorded delay headers) and the duration of the recorded attempt nearest to t, and waits
//! follow the candidate's formulas with a seeded RNG.
//!
//! Assumptions (said with every result): the state between two samples is unknown (the
//! nearest sample stands for it), a retry does not change the server's state (no load
//! feedback), and the estimate's resolution is the sampling interval.
//!
//! Uncertainty: besides the 95 % Wilson interval of the success share (runs are finite), every
//! candidate is replayed twice more with the answer between two samples taken as the worse
//! (low) or the better (high) of the two: the *sampling band*. The band is computed again with
//! the evidence thinned to every 2nd, 4th and 8th run, so it shows how the estimate's
//! uncertainty grows with the sampling interval.

use super::whatif_evidence::{Evidence, Lookup};
use super::whatif_run::Replayer;
use crate::model::{BudgetScope, OutcomeKind, RetryProfile};
use crate::policy::{PolicyError, TokenBucket, rng_from_seed};
use crate::report::{ObservedRun, Percentiles, Proportion, outcome_id};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The `format` of a what-if result's JSON.
pub const WHATIF_FORMAT: &str = "retryscope-whatif/1";

/// Thinning steps of the resolution table: the evidence of every k-th run.
pub const RESOLUTION_STEPS: [usize; 4] = [1, 2, 4, 8];

/// Fewest runs a thinned evidence keeps for its row to be shown.
pub const RESOLUTION_MIN_RUNS: usize = 4;

/// One profile to replay.
#[derive(Debug, Clone)]
pub struct WhatIfCandidate {
    /// How the user named it (`azure-sdk`, `my.json`).
    pub id: String,
    /// The profile.
    pub profile: RetryProfile,
    /// Whether it is the profile the runs were recorded with (marked in the table).
    pub current: bool,
}

/// What-if of `candidates` over recorded runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhatIfResult {
    /// [`WHATIF_FORMAT`].
    pub format: String,
    /// The RNG seed of every replay (the same seed gives the same result).
    pub seed: u64,
    /// Runs replayed: the recorded runs that succeeded or failed (cancelled and unfinished runs
    /// are not replayed, but their attempts are evidence).
    pub runs: u64,
    /// Recorded attempts used as samples.
    pub samples: u64,
    /// Median time between the starts of consecutive recorded runs, ms: the sampling interval.
    pub sampling_interval_ms: f64,
    /// The recorded runs' own success share (succeeded over replayed runs), with its interval.
    pub recorded: Proportion,
    /// Different profiles (by content) the selected runs were recorded under ([`RecordedWith`]).
    #[serde(default = "one")]
    pub recorded_profiles: u64,
    /// Different endpoints (method and URL, [`endpoint`]) the selected runs were sent to.
    #[serde(default = "one")]
    pub recorded_endpoints: u64,
    /// Said when the runs mix profiles or endpoints ([`mixed_warning`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The assumptions of the model, as sentences.
    pub assumptions: Vec<String>,
    /// One estimate per candidate, best first.
    pub candidates: Vec<CandidateEstimate>,
}

/// What one candidate would have done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateEstimate {
    /// Place in the ranking, 1 = best: the highest success share, then the lowest p95 time to
    /// success, then the fewest attempts.
    pub rank: u32,
    /// How the user named it.
    pub id: String,
    /// The profile's name.
    pub name: String,
    /// Whether the runs were recorded with it (the newest run's profile when they were
    /// recorded under several: [`WhatIfResult::recorded_profiles`]).
    pub current: bool,
    /// Share of runs that would have succeeded (nearest sample), with its 95 % Wilson interval.
    pub success: Proportion,
    /// The sampling band of the success share: [worse, better] of the two samples around each
    /// simulated attempt.
    pub band: Band,
    /// Time to success of the runs that would have succeeded, ms.
    pub time_to_success: Percentiles,
    /// Attempts all runs would have sent (the load on the server).
    pub attempts: u64,
    /// Mean attempts per run.
    pub attempts_per_run: f64,
    /// Runs that would have ended at the deadline.
    pub deadline_hits: u64,
    /// Runs by how they would have ended (`succeeded`, `gave_up`, …).
    pub outcomes: BTreeMap<String, u64>,
    /// The estimate and its band with the evidence thinned to every k-th run
    /// ([`RESOLUTION_STEPS`]): how the uncertainty grows with the sampling interval.
    pub resolution: Vec<ResolutionRow>,
}

/// The low and high end of a success share, in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Band {
    /// Answers between samples taken as the worse of the two.
    pub low: f64,
    /// Answers between samples taken as the better of the two.
    pub high: f64,
}

/// One row of the resolution table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ResolutionRow {
    /// Evidence of every k-th run.
    pub every: u32,
    /// Median time between the kept runs' starts, ms.
    pub sampling_interval_ms: f64,
    /// Success share with the nearest sample.
    pub success_share: f64,
    /// Its sampling band.
    pub band: Band,
}

/// A comparison as both faces run it ([`compare`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The ranked estimates.
    pub result: WhatIfResult,
    /// The recorded runs' own profile is not in the table: none was given, or its stored JSON
    /// no longer loads.
    pub recorded_left_out: bool,
}

/// The candidates of a comparison: `listed` (how the user named each, its profile) in order,
/// the first one equal to the recorded runs' own profile `recorded` marked current, or
/// `recorded` put first as `recorded` when none equals it (so it is replayed once, always).
pub fn with_recorded(
    listed: Vec<(String, RetryProfile)>,
    recorded: Option<RetryProfile>,
) -> Vec<WhatIfCandidate> {
    let mut out: Vec<WhatIfCandidate> = listed
        .into_iter()
        .map(|(id, profile)| WhatIfCandidate {
            id,
            profile,
            current: false,
        })
        .collect();
    if let Some(own) = recorded {
        match out.iter_mut().find(|c| c.profile == own) {
            Some(c) => c.current = true,
            None => out.insert(
                0,
                WhatIfCandidate {
                    id: "recorded".to_owned(),
                    profile: own,
                    current: true,
                },
            ),
        }
    }
    out
}

/// What the selected runs were recorded with: their different profiles (by content) and
/// endpoints ([`endpoint`]). A watch's runs are one of each.
#[derive(Debug, Clone, Default)]
pub struct RecordedWith {
    profiles: Vec<Arc<serde_json::Value>>,
    endpoints: BTreeSet<String>,
}

impl RecordedWith {
    /// Counts a run recorded under `profile` (its stored JSON) that sent `method` to `url`.
    pub fn add(&mut self, profile: &Arc<serde_json::Value>, method: &str, url: &str) {
        if !self
            .profiles
            .iter()
            .any(|p| Arc::ptr_eq(p, profile) || p == profile)
        {
            self.profiles.push(Arc::clone(profile));
        }
        self.endpoints.insert(endpoint(method, url));
    }

    /// How many different profiles.
    pub fn profiles(&self) -> u64 {
        self.profiles.len() as u64
    }

    /// How many different endpoints.
    pub fn endpoints(&self) -> u64 {
        self.endpoints.len() as u64
    }
}

/// A run's endpoint as the what-if tells them apart: the method and the URL with its query
/// (`GET http://127.0.0.1:8080/outage?down_s=2&period_s=10`), the host in lower case, a
/// default port and the fragment (never sent) left out. The query stays: it often selects
/// what the server does (a scenario, a version, a filter).
pub fn endpoint(method: &str, url: &str) -> String {
    let url = match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => url.split('#').next().unwrap_or(url).to_owned(),
    };
    format!("{} {url}", method.to_ascii_uppercase())
}

/// The warning of `runs` selected runs recorded under more than one profile or sent to more
/// than one endpoint (`None` otherwise): the replay takes them as samples of one endpoint, and
/// the current profile is the newest run's.
pub fn mixed_warning(runs: u64, with: &RecordedWith) -> Option<String> {
    let (profiles, endpoints) = (with.profiles(), with.endpoints());
    if profiles <= 1 && endpoints <= 1 {
        return None;
    }
    Some(format!(
        "the {} selected (cancelled and unfinished ones included) were recorded under {} and sent to {} (method and URL): the replay takes them all as samples of one endpoint, and the current profile is the newest run's, not every run's; select the runs of one profile and one endpoint to compare like with like",
        crate::model::counted(runs, "run", "runs"),
        crate::model::counted(profiles, "profile", "profiles"),
        crate::model::counted(endpoints, "endpoint", "endpoints"),
    ))
}

/// The what-if of `retryscope whatif` and of the Watches tab: each of `specs` (blank ones
/// skipped) resolved by `resolve` (the face's lookup of a built-in id, a library name or a
/// file), compared once when several resolve to the same profile (the first name kept); the
/// newest run's profile `recorded` (its stored JSON) marked current by [`with_recorded`];
/// then [`whatif`] over `runs` with `seed`, with what the runs were recorded `with` and the
/// [`mixed_warning`] it calls for.
///
/// # Errors
/// A sentence for the user: the message of the first spec `resolve` refuses, a candidate whose
/// script or matchers do not compile, or no run to replay (each one cancelled or unfinished).
pub fn compare(
    runs: &[ObservedRun],
    recorded: Option<&serde_json::Value>,
    with: &RecordedWith,
    specs: &[String],
    mut resolve: impl FnMut(&str) -> Result<RetryProfile, String>,
    seed: u64,
) -> Result<Comparison, String> {
    let mut listed: Vec<(String, RetryProfile)> = Vec::new();
    for spec in specs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let profile = resolve(spec)?;
        if !listed.iter().any(|(_, seen)| *seen == profile) {
            listed.push((spec.to_owned(), profile));
        }
    }
    let own = recorded.and_then(|json| crate::profile::load_str(&json.to_string()).ok());
    let recorded_left_out = own.is_none();
    let candidates = with_recorded(listed, own);
    let mut result =
        whatif(runs, &candidates, seed).map_err(|e| format!("cannot replay a profile: {e}"))?;
    if result.runs == 0 {
        return Err(nothing_to_replay(runs.len() as u64));
    }
    result.recorded_profiles = with.profiles().max(1);
    result.recorded_endpoints = with.endpoints().max(1);
    result.warning = mixed_warning(runs.len() as u64, with);
    Ok(Comparison {
        result,
        recorded_left_out,
    })
}

/// Why `selected` runs, none of which succeeded or failed, give nothing to replay.
fn nothing_to_replay(selected: u64) -> String {
    let why = match selected {
        0 => "no run is selected".to_owned(),
        1 => "the run selected was cancelled or did not finish".to_owned(),
        n => format!("the {n} runs selected were all cancelled or unfinished"),
    };
    format!(
        "nothing to replay: {why}, so no run has an outcome (succeeded or failed) to compare with"
    )
}

/// Replays every candidate over `runs` (any order) with `seed`.
///
/// # Errors
/// [`PolicyError`] when a candidate's script or matchers do not compile.
pub fn whatif(
    runs: &[ObservedRun],
    candidates: &[WhatIfCandidate],
    seed: u64,
) -> Result<WhatIfResult, PolicyError> {
    let mut runs: Vec<&ObservedRun> = runs.iter().collect();
    runs.sort_by(|a, b| (a.started_at, &a.id).cmp(&(b.started_at, &b.id)));
    let owned: Vec<ObservedRun> = runs.into_iter().cloned().collect();
    let all = Evidence::new(&owned, &|_| true);
    let replayed: Vec<usize> = (0..owned.len())
        .filter(|&i| owned[i].succeeded() || owned[i].failed())
        .collect();
    let recorded_ok = replayed.iter().filter(|&&i| owned[i].succeeded()).count() as u64;
    let mut estimates = Vec::with_capacity(candidates.len());
    for c in candidates {
        let replayer = Replayer::new(&c.profile)?;
        let pass = |evidence: &Evidence, lookup| {
            replay_all(&replayer, &owned, &replayed, evidence, lookup, seed)
        };
        let nearest = pass(&all, Lookup::Nearest);
        let band = Band {
            low: pass(&all, Lookup::Worse).success_share(),
            high: pass(&all, Lookup::Better).success_share(),
        };
        let resolution = RESOLUTION_STEPS
            .iter()
            .filter(|&&k| owned.len() / k >= RESOLUTION_MIN_RUNS)
            .map(|&k| {
                let thinned = Evidence::new(&owned, &|i| i % k == 0);
                ResolutionRow {
                    every: u32::try_from(k).unwrap_or(u32::MAX),
                    sampling_interval_ms: start_gap(owned.iter().step_by(k)),
                    success_share: pass(&thinned, Lookup::Nearest).success_share(),
                    band: Band {
                        low: pass(&thinned, Lookup::Worse).success_share(),
                        high: pass(&thinned, Lookup::Better).success_share(),
                    },
                }
            })
            .collect();
        estimates.push(nearest.estimate(c, band, resolution));
    }
    estimates.sort_by(|a, b| {
        b.success
            .value
            .total_cmp(&a.success.value)
            .then(
                a.time_to_success
                    .p95_ms
                    .total_cmp(&b.time_to_success.p95_ms),
            )
            .then(a.attempts.cmp(&b.attempts))
    });
    for (i, e) in estimates.iter_mut().enumerate() {
        e.rank = u32::try_from(i + 1).unwrap_or(u32::MAX);
    }
    Ok(WhatIfResult {
        format: WHATIF_FORMAT.to_owned(),
        seed,
        runs: replayed.len() as u64,
        samples: all.samples.len() as u64,
        sampling_interval_ms: start_gap(owned.iter()),
        recorded: Proportion::wilson(recorded_ok, replayed.len() as u64),
        recorded_profiles: 1,
        recorded_endpoints: 1,
        warning: None,
        assumptions: ASSUMPTIONS.iter().map(|s| (*s).to_owned()).collect(),
        candidates: estimates,
    })
}

/// The model's assumptions, as [`WhatIfResult::assumptions`] states them.
pub const ASSUMPTIONS: [&str; 4] = [
    "the endpoint's state between two recorded attempts is unknown: a simulated attempt gets the answer and duration of the recorded attempt nearest in time (the band takes the worse or the better of the two around it)",
    "a retry does not change the server's state (no load feedback)",
    "the estimate's resolution is the sampling interval: an outage shorter than the time between samples may be missed",
    "a response is judged by its status and recorded delay headers only (bodies and other headers are not recorded as evidence); a recorded answer slower than the candidate's total timeout becomes a timeout",
];

/// 1: the serde default of a count of what the runs were recorded with.
fn one() -> u64 {
    1
}

/// The median gap between consecutive runs' starts, ms (0 with fewer than two runs).
fn start_gap<'a>(runs: impl Iterator<Item = &'a ObservedRun>) -> f64 {
    let starts: Vec<i64> = runs.map(ObservedRun::start_unix_ms).collect();
    let gaps: Vec<f64> = starts.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
    Percentiles::of(gaps).p50_ms
}

/// The tallies of one pass over the runs.
#[derive(Debug, Default)]
struct Tally {
    runs: u64,
    succeeded: u64,
    attempts: u64,
    deadline_hits: u64,
    times: Vec<f64>,
    outcomes: BTreeMap<String, u64>,
}

impl Tally {
    fn success_share(&self) -> f64 {
        Proportion::wilson(self.succeeded, self.runs).value
    }

    fn estimate(
        self,
        c: &WhatIfCandidate,
        band: Band,
        resolution: Vec<ResolutionRow>,
    ) -> CandidateEstimate {
        CandidateEstimate {
            rank: 0,
            id: c.id.clone(),
            name: c.profile.name.clone(),
            current: c.current,
            success: Proportion::wilson(self.succeeded, self.runs),
            band,
            time_to_success: Percentiles::of(self.times),
            attempts: self.attempts,
            attempts_per_run: if self.runs == 0 {
                0.0
            } else {
                self.attempts as f64 / self.runs as f64
            },
            deadline_hits: self.deadline_hits,
            outcomes: self.outcomes,
            resolution,
        }
    }
}

/// One pass: every run of `replayed` under `replayer`, answers from `evidence` by `lookup`.
fn replay_all(
    replayer: &Replayer,
    runs: &[ObservedRun],
    replayed: &[usize],
    evidence: &Evidence,
    lookup: Lookup,
    seed: u64,
) -> Tally {
    let good: Vec<bool> = evidence
        .samples
        .iter()
        .map(|s| replayer.is_success(&s.outcome))
        .collect();
    let mut shared = replayer
        .budget()
        .filter(|b| b.scope != BudgetScope::Run)
        .map(|b| TokenBucket::new(b, "whatif"));
    let mut tally = Tally::default();
    for &i in replayed {
        let run = &runs[i];
        let mut own = replayer
            .budget()
            .filter(|b| b.scope == BudgetScope::Run)
            .map(|b| TokenBucket::new(b, "whatif"));
        let bucket = own.as_mut().or(shared.as_mut());
        // One RNG per run, so the three lookups draw the same waits until their answers differ.
        let mut rng =
            rng_from_seed(seed.wrapping_add((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        let mut at = |t: f64| {
            evidence.pick(t, lookup, &good).map(|k| {
                (
                    evidence.samples[k].outcome.clone(),
                    evidence.samples[k].duration_ms,
                )
            })
        };
        let e = replayer.replay(
            &run.method,
            run.idempotency_key,
            // From the moment its first attempt was sent, so attempt 1 is the recorded one.
            run.start_unix_ms() as f64 + run.attempts.first().map_or(0.0, |a| a.offset_ms),
            &mut at,
            &mut rng,
            bucket,
        );
        tally.runs += 1;
        tally.attempts += u64::from(e.attempts);
        tally.succeeded += u64::from(e.outcome == OutcomeKind::Succeeded);
        tally.deadline_hits += u64::from(e.outcome == OutcomeKind::Deadline);
        tally.times.extend(e.time_to_success_ms);
        *tally
            .outcomes
            .entry(outcome_id(Some(e.outcome)).to_owned())
            .or_default() += 1;
    }
    tally
}
