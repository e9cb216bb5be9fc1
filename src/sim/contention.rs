//! The contention simulator: N clients start together, each must complete one operation against
//! one shared server; discrete events in virtual time, seeded, no clock.
//!
//! Each run draws from its own ChaCha8 stream (`seed`, stream = run index), so runs are
//! independent, every contender sees the same seeds, and a result depends only on the setup.

use super::contender::{ClientState, Contender, Step};
use super::event_queue::{EventKind, EventQueue};
use super::network::NetworkDelay;
use super::server_model::{CapacityBucket, ServerModel, failure_outcome};
use crate::model::{AttemptOutcome, BudgetScope};
use crate::policy::{TokenBucket, rng_from_seed};
use std::collections::HashMap;

/// The inputs of one contention simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContentionSetup {
    /// Clients starting together at time 0 (1…1000 in the lab).
    pub clients: u32,
    /// Runs averaged (the post: 100).
    pub runs: u32,
    /// Seed of run 0's stream.
    pub seed: u64,
    /// Network delay of every message.
    pub network: NetworkDelay,
    /// The server.
    pub model: ServerModel,
    /// Status of a failed attempt (a lost write, an answer over capacity), as a profile's
    /// triage sees it: 503 or 429 (see [`ServerModel::default_status`]).
    pub failure_status: u16,
    /// Width of one server-load bucket, ms.
    pub bucket_ms: f64,
    /// Virtual time after which a run stops; clients still going count as given up, ms.
    pub horizon_ms: f64,
    /// Whether to keep the server load over time ([`ContentionResult::load`]).
    pub keep_load: bool,
}

impl ContentionSetup {
    /// The post's setup: 100 clients, 100 runs, OCC server (lost writes are 503), network
    /// N(10 ms, 2 ms), seed 1,
    /// 10 ms load buckets, a 1 h horizon, load series kept. (The strategies' base 5 ms and cap
    /// 2000 ms are the contenders', see [`POST_BASE_MS`] and [`POST_CAP_MS`].)
    pub fn post() -> Self {
        Self {
            clients: 100,
            runs: 100,
            seed: 1,
            network: NetworkDelay::default(),
            model: ServerModel::Occ,
            failure_status: 503,
            bucket_ms: 10.0,
            horizon_ms: 3_600_000.0,
            keep_load: true,
        }
    }
}

/// The post's base delay, ms.
pub const POST_BASE_MS: u64 = 5;
/// The post's max delay, ms.
pub const POST_CAP_MS: u64 = 2000;

/// One contender's result, each figure the mean over the runs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContentionResult {
    /// [`Contender::id`].
    pub strategy: String,
    /// [`Contender::label`].
    pub label: String,
    /// Clients per run.
    pub clients: u32,
    /// Runs averaged.
    pub runs: u32,
    /// Calls reaching the server per run (OCC: conditional writes).
    pub total_calls: f64,
    /// Time until the last client completed or gave up, ms.
    pub completion_ms: f64,
    /// Clients that gave up (not retryable, out of retries, deadline, budget, or the horizon).
    pub gave_up: f64,
    /// Highest load in one bucket, calls per second.
    pub peak_load: f64,
    /// Calls per second over the run (calls / completion time).
    pub mean_load: f64,
    /// Load per bucket (bucket i covers `[i·bucket_ms, (i+1)·bucket_ms)`), calls per second,
    /// averaged over the runs; empty unless [`ContentionSetup::keep_load`].
    pub load: Vec<f64>,
    /// The bucket width, ms.
    pub bucket_ms: f64,
}

/// What one run produced.
#[derive(Debug, Default)]
struct RunTotals {
    calls: u64,
    completion_ms: f64,
    gave_up: u32,
    load: Vec<u32>,
}

/// Simulates `setup.runs` runs of `contender` and averages them.
///
/// ```
/// use retryscope::sim::{Contender, ContentionSetup, contention};
/// let mut setup = ContentionSetup::post();
/// (setup.clients, setup.runs) = (10, 5);
/// let full = &Contender::standard(5, 2000)[1];
/// let r = contention(&setup, full);
/// assert_eq!((r.strategy.as_str(), r.gave_up), ("full_jitter", 0.0));
/// assert!(r.total_calls >= 10.0); // every client writes at least once
/// ```
pub fn contention(setup: &ContentionSetup, contender: &Contender) -> ContentionResult {
    // A control that never stops gives a result.
    contention_with(setup, contender, &mut |_| true).unwrap_or_default()
}

/// [`contention`] with `control(runs_done)` asked after every run; `false` abandons the
/// strategy (`None`).
pub fn contention_with(
    setup: &ContentionSetup,
    contender: &Contender,
    control: &mut dyn FnMut(u32) -> bool,
) -> Option<ContentionResult> {
    let runs = setup.runs.max(1);
    let bucket_ms = if setup.bucket_ms > 0.0 {
        setup.bucket_ms
    } else {
        10.0
    };
    let mut out = ContentionResult {
        strategy: contender.id.clone(),
        label: contender.label.clone(),
        clients: setup.clients,
        runs,
        bucket_ms,
        ..ContentionResult::default()
    };
    let mut load_sum: Vec<f64> = Vec::new();
    let per_second = 1000.0 / bucket_ms;
    for run in 0..runs {
        let t = run_once(setup, contender, run, bucket_ms);
        out.total_calls += t.calls as f64;
        out.completion_ms += t.completion_ms;
        out.gave_up += f64::from(t.gave_up);
        out.peak_load += f64::from(t.load.iter().copied().max().unwrap_or(0)) * per_second;
        if t.completion_ms > 0.0 {
            out.mean_load += t.calls as f64 * 1000.0 / t.completion_ms;
        }
        if setup.keep_load {
            if load_sum.len() < t.load.len() {
                load_sum.resize(t.load.len(), 0.0);
            }
            for (sum, &n) in load_sum.iter_mut().zip(&t.load) {
                *sum += f64::from(n);
            }
        }
        if !control(run + 1) {
            return None;
        }
    }
    let n = f64::from(runs);
    out.total_calls /= n;
    out.completion_ms /= n;
    out.gave_up /= n;
    out.peak_load /= n;
    out.mean_load /= n;
    out.load = load_sum.into_iter().map(|s| s / n * per_second).collect();
    Some(out)
}

impl RunTotals {
    /// One call reaches the server at `at` ms.
    fn count_call(&mut self, at: f64, bucket_ms: f64) {
        self.calls += 1;
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "non-negative virtual time below the horizon, in buckets"
        )]
        let i = (at / bucket_ms) as usize;
        if self.load.len() <= i {
            self.load.resize(i + 1, 0);
        }
        self.load[i] += 1;
    }
}

fn run_once(setup: &ContentionSetup, contender: &Contender, run: u32, bucket_ms: f64) -> RunTotals {
    let mut rng = rng_from_seed(setup.seed);
    rng.set_stream(u64::from(run));
    let n = setup.clients;
    let net = setup.network;
    let mut clients = vec![ClientState::default(); n as usize];
    let mut buckets: Vec<TokenBucket> = match contender.budget() {
        Some(b) if b.scope == BudgetScope::Run => {
            (0..n).map(|_| TokenBucket::new(b, "lab")).collect()
        }
        Some(b) => vec![TokenBucket::new(b, "lab")],
        None => Vec::new(),
    };
    let shared = buckets.len() == 1;
    let mut queue = EventQueue::with_capacity(n as usize * 2);
    for c in 0..n {
        queue.push(net.sample(&mut rng), c, EventKind::Arrive);
    }
    let mut version: u64 = 0;
    let mut capacity = match setup.model {
        ServerModel::Capacity {
            per_second,
            retry_after,
        } => Some((CapacityBucket::new(per_second), retry_after)),
        ServerModel::Occ => None,
    };
    // The answers a failed attempt gets, built once per run (a profile's policy reads them).
    let status = setup.failure_status;
    let plain = failure_outcome(status, None);
    let mut with_header: HashMap<u64, AttemptOutcome> = HashMap::new();
    let mut totals = RunTotals::default();
    let mut open = n;
    while let Some(ev) = queue.pop() {
        if ev.at > setup.horizon_ms {
            break;
        }
        let at = ev.at;
        let c = ev.client;
        match ev.kind {
            EventKind::Arrive => {
                if let Some((bucket, retry_after)) = &mut capacity {
                    totals.count_call(at, bucket_ms);
                    let answer = bucket.take(at);
                    let reply = EventKind::Reply {
                        ok: answer.is_ok(),
                        retry_after_s: answer.err().filter(|_| *retry_after),
                    };
                    queue.push(at + net.sample(&mut rng), c, reply);
                } else {
                    // OCC: the read returns the version; the write reaches the server one
                    // round trip later.
                    let back = at + net.sample(&mut rng) + net.sample(&mut rng);
                    queue.push(back, c, EventKind::Write(version));
                }
            }
            EventKind::Write(read) => {
                totals.count_call(at, bucket_ms);
                let ok = read == version;
                if ok {
                    version += 1;
                }
                let reply = EventKind::Reply {
                    ok,
                    retry_after_s: None,
                };
                queue.push(at + net.sample(&mut rng), c, reply);
            }
            EventKind::Reply { ok, retry_after_s } => {
                let state = &mut clients[c as usize];
                let bucket = match (shared, buckets.is_empty()) {
                    (_, true) => None,
                    (true, false) => buckets.first_mut(),
                    (false, false) => buckets.get_mut(c as usize),
                };
                let step = if ok {
                    Contender::succeeded(state, bucket);
                    None
                } else {
                    let outcome: &AttemptOutcome = match retry_after_s {
                        Some(s) if contender.reads_outcome() => with_header
                            .entry(s)
                            .or_insert_with(|| failure_outcome(status, Some(s))),
                        _ => &plain,
                    };
                    Some(contender.failed(state, outcome, at, &mut rng, bucket))
                };
                match step {
                    Some(Step::Retry(wait)) => {
                        queue.push(
                            at + wait as f64 + net.sample(&mut rng),
                            c,
                            EventKind::Arrive,
                        );
                    }
                    Some(Step::GiveUp) => {
                        totals.gave_up += 1;
                        open -= 1;
                        totals.completion_ms = at;
                    }
                    None => {
                        open -= 1;
                        totals.completion_ms = at;
                    }
                }
            }
        }
    }
    // Clients still going at the horizon gave up there.
    if open > 0 {
        totals.gave_up += open;
        totals.completion_ms = setup.horizon_ms;
    }
    totals
}
