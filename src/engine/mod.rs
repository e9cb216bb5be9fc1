//! The attempt loop: tokio + reqwest. The only layer that touches the network.
//!
//! [`start_run`] runs one request under a profile on the current tokio runtime and reports
//! every step as a [`RunEvent`]; `crate::service::CoreLink` wraps that for a UI (on the core's
//! runtime, commands in, events out). The cycle is attempt → classify → decide → wait → attempt; see
//! `run_loop` for the exact event order and how a run ends.
//!
//! Transport facts the timeline relies on:
//! - every attempt is one fresh `reqwest::Request` (reqwest's own retries are off), with the same
//!   body bytes (a body file is read once, before attempt 1) and the same `Idempotency-Key`;
//! - redirects are followed by the engine, each hop recorded in its attempt (303 → GET without
//!   body except HEAD; 301/302 turn POST into GET as browsers do; 307/308 keep method and body;
//!   credentials are dropped when the origin changes); a retry repeats the last hop's request;
//! - DNS is done by the engine (measured as `resolve_ms`, bounded by the resolve timeout, skipped
//!   for IP literals; `.invalid` names fail without a query, RFC 6761) and pinned into the
//!   client; environment proxies are not used;
//! - TLS trusts the platform's roots plus the request's `ca_cert` file (a private CA, read once
//!   before attempt 1), unless verification is off;
//! - clients are shared per configuration and runtime (keep-alive across attempts, and across
//!   the runs given one [`ClientCache`]) unless the request asks for a new connection per
//!   attempt, which builds a fresh client each time; an `http://` run never loads the trust store;
//! - timings use tokio's monotonic clock (a paused test clock applies); wall-clock stamps are
//!   `chrono::Local` with offset.

mod attempt;
mod body_file;
mod body_preview;
mod body_sink;
mod budget_link;
mod classify;
mod client_cache;
mod emitter;
mod hop_request;
mod host_lookup;
mod multipart;
mod phase_probe;
mod precise_sleep;
mod resolver;
mod run_loop;
mod spec_error;
mod timeouts;
mod trusted_roots;

pub use body_file::{MAX_BODY_FILE_BYTES, check_body_file};
pub use body_preview::BODY_PREVIEW_CAP;
pub use body_sink::BodySink;
pub use budget_link::BudgetLink;
pub use client_cache::ClientCache;
pub use hop_request::check_spec;
pub use host_lookup::{HostLookup, HostLookupError, LookupFuture};
pub use spec_error::SpecError;
pub use timeouts::EffectiveTimeouts;
pub use trusted_roots::{MAX_CA_FILE_BYTES, read_trusted_roots};

use crate::model::{RequestSpec, RetryProfile, RunEvent, RunId};
use emitter::Emitter;
use run_loop::{RunControl, RunInput};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Called after each event is queued, so a UI can `request_repaint`. Must be cheap.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Options of one run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Run id carried by every event.
    pub run_id: RunId,
    /// Seed; `None` = the profile's seed, else a fresh random one (reported in `RunStarted`).
    pub seed: Option<u64>,
    /// The retry budget bucket to draw from (a shared one from `crate::service::BudgetRegistry`);
    /// `None` = a fresh bucket for this run when the profile has a `retry_budget`.
    pub budget: Option<BudgetLink>,
}

/// Controls one running run. Cloning gives another handle to the same run.
#[derive(Debug, Clone)]
pub struct RunHandle {
    /// The run's id.
    pub run_id: RunId,
    cancel: CancellationToken,
    skip: Arc<tokio::sync::Notify>,
    done: CancellationToken,
}

impl RunHandle {
    /// Ends the run within 50 ms, mid-request or mid-wait (`RunFinished` with `cancelled`).
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Ends the current wait now so the next attempt starts (no effect outside a wait: a skip
    /// pressed during an attempt does not shorten the wait after it).
    pub fn skip_wait(&self) {
        self.skip.notify_waiters();
    }

    /// True once the run has ended (after its `RunFinished` was queued, or its receiver was gone).
    pub fn is_finished(&self) -> bool {
        self.done.is_cancelled()
    }

    /// Waits until the run has ended.
    pub async fn finished(&self) {
        self.done.cancelled().await;
    }
}

/// Starts a run on the current tokio runtime; events go to `events` (bounded), then `waker` is called.
/// Must be called from within a tokio runtime.
///
/// The run stops early, without `RunFinished`, if `events`' receiver is dropped.
pub fn start_run(
    spec: RequestSpec,
    profile: RetryProfile,
    options: RunOptions,
    events: mpsc::Sender<RunEvent>,
    waker: Option<Waker>,
) -> RunHandle {
    let (handle, run) = prepare_run(spec, profile, options, events, waker);
    tokio::spawn(run.drive());
    handle
}

/// A run made ready but not started: [`PreparedRun::drive`] runs it on the calling task.
///
/// For front ends that await the run anyway (no spawned task, so no hand-over between tokio
/// workers per run); [`start_run`] is `prepare_run` + `tokio::spawn(run.drive())`.
pub struct PreparedRun {
    input: RunInput,
    emitter: Emitter,
    control: RunControl,
}

impl PreparedRun {
    /// Sends every attempt's whole response body to `sink` as it arrives, of any size; the
    /// `AttemptFinished` events still hold the first [`BODY_PREVIEW_CAP`] bytes. For a front end
    /// that saves the final body (`retryscope run -o FILE`, `-o -`); the window never asks for it.
    #[must_use]
    pub fn with_body_sink(mut self, sink: Arc<dyn BodySink>) -> Self {
        self.input.body_sink = Some(sink);
        self
    }

    /// Shares `clients` (connections kept alive, trust store loaded once) with the other runs
    /// given the same cache; without it, the run's clients are its own.
    #[must_use]
    pub fn with_clients(mut self, clients: &ClientCache) -> Self {
        self.input.clients = clients.clone();
        self
    }

    /// Looks host names up with `lookup` instead of the system resolver (`getaddrinfo`): for
    /// tests that must answer names without a DNS query leaving the machine. The resolve
    /// timeout still bounds each lookup; `.invalid` names still fail without asking it.
    #[must_use]
    pub fn with_host_lookup(mut self, lookup: Arc<dyn HostLookup>) -> Self {
        self.input.host_lookup = Some(lookup);
        self
    }

    /// Runs to the end (success, stop, give-up, deadline, cancel through the handle, or a dropped
    /// receiver), emitting every event.
    pub async fn drive(self) {
        run_loop::run(self.input, self.emitter, self.control).await;
    }
}

/// Like [`start_run`] without starting: returns the handle and the run to drive.
#[allow(
    clippy::needless_pass_by_value,
    reason = "the same by-value signature as `start_run`; RunOptions is two small fields"
)]
pub fn prepare_run(
    spec: RequestSpec,
    profile: RetryProfile,
    options: RunOptions,
    events: mpsc::Sender<RunEvent>,
    waker: Option<Waker>,
) -> (RunHandle, PreparedRun) {
    let handle = RunHandle {
        run_id: options.run_id,
        cancel: CancellationToken::new(),
        skip: Arc::new(tokio::sync::Notify::new()),
        done: CancellationToken::new(),
    };
    let input = RunInput {
        run_id: options.run_id,
        spec,
        profile,
        seed: options.seed,
        budget: options.budget,
        body_cap: BODY_PREVIEW_CAP,
        host_lookup: None,
        body_sink: None,
        clients: ClientCache::default(),
    };
    let control = RunControl {
        cancel: handle.cancel.clone(),
        skip: Arc::clone(&handle.skip),
        done: handle.done.clone(),
    };
    let run = PreparedRun {
        input,
        emitter: Emitter::new(events, waker),
        control,
    };
    (handle, run)
}
