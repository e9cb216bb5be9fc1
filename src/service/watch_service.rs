//! Watches (DESIGN.md §12): a request sent on a schedule, each slot a full engine run under the
//! profile, recorded in the history with the watch's id, on the process's core (its runtime,
//! budget registry, HTTP clients, store actor and keyring worker; no runtime, writer or
//! connection of its own).
//!
//! Faces drive watches through the link ([`super::WatchCommand`]); behind it [`start`] and
//! [`resume`] return a [`WatchHandle`] at once (the watch's events and its
//! [`WatchStop`]); [`watch_runs`] reads a watch, its slots and its runs. The loop never runs two
//! runs of one watch at once: a slot whose time passes while the previous run still goes is
//! missed (`busy`); a slot whose time passed by more than half an interval while nothing ran
//! (the machine slept: the wall clock jumped) is missed (`late`); slots that passed while no
//! process ran the watch are missed (`down`) when it is resumed. Missed slots are recorded,
//! never sent late in a burst (DESIGN.md §12 "Watches").

use super::budget_registry::BudgetRegistry;
use super::run_recording::{RunRecording, drive_events};
use crate::engine::{self, RunHandle, RunOptions};
use crate::model::{RequestSpec, RetryProfile, RunEvent, RunFold, RunId};
use crate::policy::WatchSchedule;
use crate::report::{ObservedRun, observed_fold};
use crate::store::{
    HistoryError, HistoryStore, HistoryWriter, Missed, NewWatch, SecretStore, WatchError,
    WatchRecord, WatchSlot, WatchState,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{mpsc, watch};

/// Longest sleep between two looks at the wall clock while waiting for a slot, ms: a machine
/// that slept is noticed within this much of waking.
pub const WALL_CLOCK_CHECK_MS: i64 = 1000;

/// The secret store key of a watch's sendable request and secret values (JSON), when its
/// request holds secrets.
pub fn watch_secret_key(watch_id: &str) -> String {
    format!("watch-request-{watch_id}")
}

/// `request` masked by the one secrets rule, and every secret value it masks (`secrets` and
/// the request's own).
fn masked_request(request: &RequestSpec, mut secrets: Vec<String>) -> (RequestSpec, Vec<String>) {
    secrets.extend(crate::model::secrets::secret_values(request));
    secrets.retain(|s| !s.is_empty());
    let masked = crate::model::secrets::mask_spec(request, &secrets).into_inner();
    (masked, secrets)
}

impl WatchPlan {
    /// Whether its request holds secrets (kept in the secret store for a resume in another
    /// process: with no OS keyring, none can resume it).
    pub fn holds_secrets(&self) -> bool {
        let (masked, secrets) = masked_request(&self.request, self.secrets.clone());
        masked != self.request || !secrets.is_empty()
    }
}

pub use super::watch_durations::{
    MAX_DURATION_MS, MIN_EVERY_MS, duration_ms, parse_every, parse_length,
};

/// A fresh watch id (UUID v7: ids sort by creation time).
pub fn new_watch_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The wall clock a watch's schedule is read on, Unix ms.
pub trait WallClock: Send + Sync {
    /// Now, Unix ms.
    fn now_unix_ms(&self) -> i64;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl WallClock for SystemClock {
    fn now_unix_ms(&self) -> i64 {
        chrono::Utc::now().timestamp_millis()
    }
}

/// A new watch.
#[derive(Debug, Clone)]
pub struct WatchPlan {
    /// Its id ([`new_watch_id`]), chosen by the face so that it can stop the watch at once.
    pub id: String,
    /// The request as sent (secrets included: kept in memory, or in the secret store).
    pub request: RequestSpec,
    /// The profile each run follows.
    pub profile: RetryProfile,
    /// Secret values to mask besides the request's own (secret variables).
    pub secrets: Vec<String>,
    /// Interval, ms (≥ 1).
    pub every_ms: u64,
    /// Jitter ratio in `[0, 0.5)`.
    pub jitter: f64,
    /// End after this many slots.
    pub count: Option<u64>,
    /// End this long after the start, ms.
    pub for_ms: Option<u64>,
    /// Most response body bytes kept per attempt in the history.
    pub body_cap: usize,
}

/// What a running watch reports, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchEvent {
    /// The watch runs (created, or claimed again by a resume).
    Started(Box<WatchRecord>),
    /// Slot `slot`'s run ended (masked, as recorded: its message is its outcome's banner).
    Ran {
        /// Slot index.
        slot: u64,
        /// The run as the report reads it.
        run: Box<ObservedRun>,
    },
    /// Slot `slot`'s run starts as run `run_id` of the face (its events follow as
    /// [`WatchEvent::Run`] when the watch is shown live).
    RunStarted {
        /// Slot index.
        slot: u64,
        /// The run's id among the face's runs.
        run_id: RunId,
    },
    /// An event of the run in flight, masked as recorded (only for a watch shown live).
    Run(Box<RunEvent>),
    /// Slots not sent, recorded as missed.
    Missed {
        /// Slot indexes.
        slots: std::ops::Range<u64>,
        /// Why.
        reason: Missed,
    },
    /// The watch stopped: `finished`, `paused` or `cancelled`.
    Ended(WatchState),
    /// The watch could not start or its history failed (what and where); it stopped.
    Failed(String),
}

/// A watch running on the core: its events and its stop.
#[derive(Debug)]
pub struct WatchHandle {
    /// Its events; closed after [`WatchEvent::Ended`] or [`WatchEvent::Failed`].
    pub events: mpsc::UnboundedReceiver<WatchEvent>,
    /// Its stop.
    pub stop: WatchStop,
}

/// Stops a watch.
#[derive(Debug)]
pub struct WatchStop(watch::Sender<Option<WatchState>>);

impl WatchStop {
    /// Stops the watch: a run in flight is cancelled (and recorded), then the watch is stored
    /// `state` — [`WatchState::Paused`] (resumable) or [`WatchState::Cancelled`].
    pub fn stop(&self, state: WatchState) {
        let _ = self.0.send(Some(state));
    }
}

/// The face's side of the runs it sees: its run-id counter and the handles of its runs in
/// flight (its Cancel and Retry now reach them), shared by its own runs and the runs of the
/// watches it shows live.
#[derive(Debug, Clone, Default)]
pub struct LiveRuns {
    /// The next run id.
    pub ids: Arc<AtomicU64>,
    /// The runs in flight, by id.
    pub handles: Arc<Mutex<HashMap<RunId, RunHandle>>>,
}

impl LiveRuns {
    /// The handles, locked (a poisoned lock is taken over: a handle map has no invariant to
    /// break).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RunId, RunHandle>> {
        self.handles.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The core's pieces a watch runs on: the store actor it records through, the secret store
/// that keeps a request with secrets (for a resume in another process), the budget registry
/// and the HTTP clients. `live`: the face's runs when the watch's runs are shown live (each
/// run takes its id from them, its handle is among them while it runs and its events are
/// passed on); `None`: slot k's run is run `k + 1` and its events stay inside.
#[derive(Clone)]
pub struct WatchParts {
    /// The store actor of the history the watch is recorded in.
    pub writer: Arc<HistoryWriter>,
    /// Where a request with secrets is kept.
    pub keyring: Arc<dyn SecretStore>,
    /// The core's budget registry.
    pub budgets: BudgetRegistry,
    /// The core's HTTP clients.
    pub clients: engine::ClientCache,
    /// The face's runs, when the watch's runs are shown live.
    pub live: Option<LiveRuns>,
}

/// What the loop runs with: the core's pieces it shares.
struct Context {
    id: String,
    request: RequestSpec,
    profile: RetryProfile,
    secrets: Vec<String>,
    schedule: WatchSchedule,
    body_cap: usize,
    parts: WatchParts,
    clock: Arc<dyn WallClock>,
    events: mpsc::UnboundedSender<WatchEvent>,
    /// Slot rows queued on the store actor and not yet known committed: the schedule never
    /// waits for the store (a database another program holds locked does not make a slot
    /// late); a failure ends the watch once it is known.
    slot_writes: std::sync::Mutex<Vec<tokio::sync::oneshot::Receiver<Result<(), HistoryError>>>>,
}

/// Starts watch `plan.id` of `plan` on the calling runtime, recorded through `parts.writer`;
/// returns at once (the watch is created on the store actor; its first slot is due when it is
/// stored). A store that fails is a [`WatchEvent::Failed`].
pub fn start(parts: WatchParts, plan: WatchPlan) -> WatchHandle {
    let id = plan.id.clone();
    let (handle, stop, events) = handle();
    // Start and end are set when the watch is stored (below).
    let schedule = WatchSchedule {
        start_unix_ms: 0,
        every_ms: plan.every_ms.max(1),
        jitter: plan.jitter,
        seed: rand::random(),
        count: plan.count,
        until_unix_ms: plan.for_ms.map(|ms| i64::try_from(ms).unwrap_or(i64::MAX)),
    };
    let (masked, secrets) = masked_request(&plan.request, plan.secrets);
    let has_secrets = masked != plan.request || !secrets.is_empty();
    let new = NewWatch {
        id: id.clone(),
        request: masked,
        has_secrets,
        profile_name: plan.profile.name.clone(),
        profile: serde_json::to_value(&plan.profile).unwrap_or(serde_json::Value::Null),
        schedule,
    };
    if has_secrets {
        let kept = serde_json::json!({ "request": plan.request, "secrets": secrets });
        // Queued on the keyring worker; a failure leaves the watch unresumable in another
        // process, which `--resume` then says.
        let _ = parts.keyring.set(&watch_secret_key(&id), &kept.to_string());
    }
    let writer = Arc::clone(&parts.writer);
    let mut ctx = Context {
        id,
        request: plan.request,
        profile: plan.profile,
        secrets,
        schedule,
        body_cap: plan.body_cap,
        parts,
        clock: Arc::new(SystemClock),
        events,
        slot_writes: std::sync::Mutex::default(),
    };
    tokio::spawn(async move {
        // Slot 0 is due when the watch is stored, so the time the store takes to get to it
        // never makes the first slot late.
        let clock = Arc::clone(&ctx.clock);
        let created = writer
            .call(move |q| {
                let mut new = new;
                let now = clock.now_unix_ms();
                new.schedule.start_unix_ms = now;
                new.schedule.until_unix_ms =
                    new.schedule.until_unix_ms.map(|ms| now.saturating_add(ms));
                let claim = q.history().create_watch(&new)?;
                let record = q.history().watch(&new.id)?;
                Ok::<_, WatchError>((claim, record))
            })
            .await
            .map_err(WatchError::from)
            .and_then(|r| r);
        match created {
            Ok((claim, record)) => {
                ctx.schedule = record.schedule;
                started(&ctx.events, record);
                release(claim, run_loop(ctx, stop, 0, Missed::Late).await);
            }
            Err(e) => fail(&ctx.events, &e),
        }
    });
    handle
}

/// Carries on watch `id` (a full id or a unique prefix) on the calling runtime: claims it, reads
/// its sendable request from the secret store when it holds secrets, records the slots that
/// passed meanwhile as missed (`down`) and goes on with the next one. Returns at once; a watch
/// that cannot be resumed (unknown, running elsewhere, finished, its secrets gone) is a
/// [`WatchEvent::Failed`].
pub fn resume(parts: WatchParts, id: &str) -> WatchHandle {
    let (handle, stop, events) = handle();
    let wanted = id.to_owned();
    tokio::spawn(async move {
        let writer = Arc::clone(&parts.writer);
        let claimed = writer
            .call(move |q| q.history().claim_watch(&wanted))
            .await
            .map_err(WatchError::from)
            .and_then(|r| r);
        let (record, claim) = match claimed {
            Ok(c) => c,
            Err(e) => return fail(&events, &e),
        };
        let sendable = match kept_request(&record, Arc::clone(&parts.keyring)).await {
            Ok(s) => s,
            Err(message) => {
                let _ = events.send(WatchEvent::Failed(message));
                let id = record.id.clone();
                let _ = writer
                    .call(move |q| q.history().set_watch_state(&id, WatchState::Paused))
                    .await;
                return drop(claim);
            }
        };
        let profile = match crate::profile::load_str(&record.profile.to_string()) {
            Ok(p) => p,
            Err(e) => {
                let _ = events.send(WatchEvent::Failed(format!(
                    "the watch's profile cannot be read: {e}"
                )));
                return drop(claim);
            }
        };
        let ctx = Context {
            id: record.id.clone(),
            request: sendable.0,
            profile,
            secrets: sendable.1,
            schedule: record.schedule,
            body_cap: crate::store::DEFAULT_BODY_CAP,
            parts,
            clock: Arc::new(SystemClock),
            events,
            slot_writes: std::sync::Mutex::default(),
        };
        let next = record.next_slot;
        started(&ctx.events, record);
        release(claim, run_loop(ctx, stop, next, Missed::Down).await);
    });
    handle
}

/// Watch `id` (full or a unique prefix) with its slots and its runs (oldest first), as the
/// report reads them; for `watch show` and a face's Watch view, on the store actor's thread.
///
/// # Errors
/// Not found, ambiguous, or the history's error.
pub async fn watch_runs(writer: &HistoryWriter, id: &str) -> Result<WatchRuns, WatchError> {
    let id = id.to_owned();
    writer.call(move |q| read_watch(q.history(), &id)).await?
}

/// `#12–#37  missed (the previous run was still going)`: slots missed for one reason as the
/// CLI prints them and the run log writes them (slots 1-based, a range as one line).
pub fn missed_text(slots: &std::ops::Range<u64>, reason: Missed) -> String {
    let which = if slots.end - slots.start == 1 {
        format!("#{}", slots.start + 1)
    } else {
        format!("#{}–#{}", slots.start + 1, slots.end)
    };
    format!("{which}  {}", reason.text())
}

/// `every 30 s ± 10 %, 5 slots, until 2026-12-06 12:00:00 +01:00`: a watch's schedule as the
/// CLI and the window write it (times in the local offset).
pub fn schedule_text(s: &crate::policy::WatchSchedule) -> String {
    use crate::report::{duration_text, time_text};
    use std::fmt::Write as _;
    let mut text = format!("every {}", duration_text(s.every_ms as f64));
    if s.jitter > 0.0 {
        // To 0.0001 %, trailing zeros dropped: 49.999 % (below the 50 % limit) must not read 50.
        let percent = format!("{:.4}", s.jitter * 100.0);
        let percent = percent.trim_end_matches('0').trim_end_matches('.');
        let _ = write!(text, " ± {percent} %");
    }
    if let Some(n) = s.count {
        let _ = write!(text, ", {}", crate::model::counted(n, "slot", "slots"));
    }
    if let Some(t) = s
        .until_unix_ms
        .and_then(chrono::DateTime::from_timestamp_millis)
    {
        let _ = write!(
            text,
            ", until {}",
            time_text(&t.with_timezone(&chrono::Local).fixed_offset())
        );
    }
    text
}

/// A watch, its slots and its runs (oldest first).
pub type WatchRuns = (WatchRecord, Vec<WatchSlot>, Vec<ObservedRun>);

/// [`watch_runs`] read from `store` directly (a CLI reader, or a job on the store actor).
///
/// # Errors
/// As [`watch_runs`].
pub fn read_watch(store: &HistoryStore, id: &str) -> Result<WatchRuns, WatchError> {
    let record = store.watch(id)?;
    let slots = store.watch_slots(&record.id)?;
    let query = crate::store::RunQuery {
        watch_id: Some(record.id.clone()),
        ..crate::store::RunQuery::default()
    };
    let runs = super::report_file::select_runs(store, &query)?.runs;
    Ok((record, slots, runs))
}

/// The loop's side of a [`WatchStop`]: `Some(state)` once a stop is asked.
pub type StopReceiver = watch::Receiver<Option<WatchState>>;

fn handle() -> (WatchHandle, StopReceiver, mpsc::UnboundedSender<WatchEvent>) {
    let (stop_tx, stop_rx) = watch::channel(None);
    let (events_tx, events) = mpsc::unbounded_channel();
    let stop = WatchStop(stop_tx);
    (WatchHandle { events, stop }, stop_rx, events_tx)
}

fn fail(events: &mpsc::UnboundedSender<WatchEvent>, e: &dyn std::fmt::Display) {
    // Also a start that was refused (its watch runs in another process): say what, not "stopped".
    tracing::warn!("watch not carried on here: {e}");
    let _ = events.send(WatchEvent::Failed(e.to_string()));
}

/// Logs that watch `record` runs (started, or resumed at its next slot) and says so.
fn started(events: &mpsc::UnboundedSender<WatchEvent>, record: WatchRecord) {
    let how = if record.next_slot > 0 {
        format!("resumed at slot #{}", record.next_slot + 1)
    } else {
        "started".to_owned()
    };
    tracing::info!(
        "watch {} {how}: {} {} under {}, {}",
        record.id,
        record.method,
        record.url,
        record.profile_name,
        schedule_text(&record.schedule)
    );
    let _ = events.send(WatchEvent::Started(Box::new(record)));
}

/// The watch's sendable request and secret values: the recorded (masked) request when it held
/// no secrets, else the secret store's copy (read on the blocking pool: a keyring may prompt).
async fn kept_request(
    record: &WatchRecord,
    keyring: Arc<dyn SecretStore>,
) -> Result<(RequestSpec, Vec<String>), String> {
    if !record.has_secrets {
        return Ok((record.request.clone(), Vec::new()));
    }
    let key = watch_secret_key(&record.id);
    let kept = tokio::task::spawn_blocking(move || keyring.get(&key))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| {
            format!(
                "cannot read the watch's secrets from the keyring: {}",
                e.message
            )
        })?;
    let lost = || {
        WatchError::SecretsLost {
            id: record.id.clone(),
        }
        .to_string()
    };
    let value: serde_json::Value = serde_json::from_str(&kept.ok_or_else(lost)?)
        .map_err(|e| format!("the watch's kept request cannot be read: {e}"))?;
    let request = serde_json::from_value(value["request"].clone())
        .map_err(|e| format!("the watch's kept request cannot be read: {e}"))?;
    let secrets = serde_json::from_value(value["secrets"].clone()).unwrap_or_default();
    Ok((request, secrets))
}

/// How a wait for a slot ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// The slot's time came (the wall clock reached it).
    Due,
    /// The watch was asked to stop, as this state.
    Stopped(WatchState),
}

/// Waits until the wall clock reaches `at` (Unix ms), looking at it at least every
/// [`WALL_CLOCK_CHECK_MS`] (the monotonic clock stops while the machine sleeps; the wall clock
/// does not), or until a stop is asked.
pub async fn wait_for(clock: &dyn WallClock, at: i64, stop: &mut StopReceiver) -> Waited {
    loop {
        if let Some(state) = *stop.borrow_and_update() {
            return Waited::Stopped(state);
        }
        let left = at - clock.now_unix_ms();
        if left <= 0 {
            return Waited::Due;
        }
        let nap = u64::try_from(left.min(WALL_CLOCK_CHECK_MS)).unwrap_or(0);
        tokio::select! {
            () = tokio::time::sleep(std::time::Duration::from_millis(nap)) => {}
            changed = stop.changed() => {
                if changed.is_err() {
                    // The handle is gone: nobody can stop it any more; it runs to its end.
                    tokio::time::sleep(std::time::Duration::from_millis(nap)).await;
                }
            }
        }
    }
}

/// Lets go of a watch's `claim` once its loop ended as `ended` (the state stored): the lock
/// file of a watch that ended for good is deleted, one that can be resumed keeps it.
fn release(claim: crate::store::WatchClaim, ended: Option<WatchState>) {
    match ended {
        Some(WatchState::Finished | WatchState::Cancelled) => claim.end(),
        _ => drop(claim),
    }
}

/// The watch's slots from `first` on until its schedule ends or a stop is asked; slots missed
/// before the first send are `initial` (`late` for a new watch, `down` for a resume). Returns
/// the state stored at its end (`None` when its history failed).
async fn run_loop(
    ctx: Context,
    mut stop: StopReceiver,
    first: u64,
    initial: Missed,
) -> Option<WatchState> {
    let mut next = first;
    let mut reason = initial;
    let end = loop {
        let now = ctx.clock.now_unix_ms();
        let plan = ctx.schedule.plan(next, now);
        if let Err(e) =
            slot_writes_failed(&ctx).and_then(|()| record_missed(&ctx, plan.missed.clone(), reason))
        {
            break Err(e);
        }
        next = next.max(plan.missed.end);
        let Some((slot, at)) = plan.next else {
            break Ok(WatchState::Finished);
        };
        if let Waited::Stopped(state) = wait_for(ctx.clock.as_ref(), at, &mut stop).await {
            break Ok(state);
        }
        if ctx.clock.now_unix_ms() - at > ctx.schedule.grace_ms() {
            // The wall clock jumped past the slot while waiting: the machine slept.
            reason = Missed::Late;
            continue;
        }
        match run_slot(&ctx, slot, at, &mut stop).await {
            Ok(stopped) => {
                next = slot + 1;
                reason = Missed::Busy;
                if let Some(state) = stopped {
                    // The slots due while the stopped run went were missed as busy, not as
                    // `down` by the resume.
                    let now = ctx.clock.now_unix_ms();
                    let busy = ctx
                        .schedule
                        .plan(next, now.saturating_add(ctx.schedule.grace_ms()))
                        .missed;
                    break record_missed(&ctx, busy, Missed::Busy).map(|()| state);
                }
            }
            Err(e) => break Err(e),
        }
    };
    // The watch's end is stored after every slot row it queued.
    let end = match end {
        Ok(state) => slot_writes_done(&ctx).await.map(|()| state),
        failed => failed,
    };
    match end {
        Ok(state) => {
            let id = ctx.id.clone();
            let stored = ctx
                .parts
                .writer
                .call(move |q| q.history().set_watch_state(&id, state))
                .await;
            match stored
                .map_err(WatchError::from)
                .and_then(|r| r.map_err(WatchError::from))
            {
                Ok(()) => {
                    tracing::info!("watch {} {}", ctx.id, state.id());
                    let _ = ctx.events.send(WatchEvent::Ended(state));
                    Some(state)
                }
                Err(e) => {
                    fail(&ctx.events, &e);
                    None
                }
            }
        }
        Err(e) => {
            fail(&ctx.events, &e);
            None
        }
    }
}

/// Records `slots` as missed for `reason` and says so (nothing when empty).
fn record_missed(
    ctx: &Context,
    slots: std::ops::Range<u64>,
    reason: Missed,
) -> Result<(), WatchError> {
    if slots.is_empty() {
        return Ok(());
    }
    let rows: Vec<WatchSlot> = slots
        .clone()
        .map(|slot| WatchSlot {
            slot,
            due_unix_ms: ctx.schedule.slot_time(slot),
            run_id: None,
            missed: Some(reason),
            run_deleted: false,
        })
        .collect();
    record_slots(ctx, rows)?;
    tracing::info!("watch {} {}", ctx.id, missed_text(&slots, reason));
    let _ = ctx.events.send(WatchEvent::Missed { slots, reason });
    Ok(())
}

/// Queues `slots`' rows on the store actor (committed in order, before the writes of any run
/// that starts later) without waiting for them ([`Context::slot_writes`]).
fn record_slots(ctx: &Context, slots: Vec<WatchSlot>) -> Result<(), WatchError> {
    let id = ctx.id.clone();
    let (reply, committed) = tokio::sync::oneshot::channel();
    ctx.parts.writer.queue_job(Box::new(move |q| {
        let _ = reply.send(q.history().record_slots(&id, &slots));
    }))?;
    if let Ok(mut pending) = ctx.slot_writes.lock() {
        pending.push(committed);
    }
    Ok(())
}

/// The first failure among the slot rows committed so far (those still queued are kept).
fn slot_writes_failed(ctx: &Context) -> Result<(), WatchError> {
    let Ok(mut pending) = ctx.slot_writes.lock() else {
        return Ok(());
    };
    let mut failure = None;
    pending.retain_mut(|committed| match committed.try_recv() {
        Ok(Ok(())) => false,
        Ok(Err(e)) => {
            failure.get_or_insert(e);
            false
        }
        Err(tokio::sync::oneshot::error::TryRecvError::Empty) => true,
        Err(tokio::sync::oneshot::error::TryRecvError::Closed) => {
            failure.get_or_insert(HistoryError::WriterGone("its thread ended".into()));
            false
        }
    });
    failure.map_or(Ok(()), |e| Err(WatchError::History(e)))
}

/// Waits until every queued slot row is committed; the first failure.
async fn slot_writes_done(ctx: &Context) -> Result<(), WatchError> {
    let pending = ctx
        .slot_writes
        .lock()
        .map(|mut p| std::mem::take(&mut *p))
        .unwrap_or_default();
    for committed in pending {
        committed
            .await
            .map_err(|_| HistoryError::WriterGone("its thread ended".into()))??;
    }
    Ok(())
}

/// Sends slot `slot` (due at `due`) as one run: its slot row naming the run is queued on the
/// store actor first (committed before the run's rows, never waited for), then the run is driven to its end, each event masked and recorded by
/// [`RunRecording`]. A stop asked meanwhile cancels the run; returns that stop.
async fn run_slot(
    ctx: &Context,
    slot: u64,
    due: i64,
    stop: &mut StopReceiver,
) -> Result<Option<WatchState>, WatchError> {
    // A run of its own: a fresh `{{uuid}}` (and automatic Idempotency-Key) each slot.
    let request = crate::model::fill_uuid(&ctx.request, &uuid::Uuid::new_v4().to_string());
    let mut recording = RunRecording::for_watch(
        &request,
        &ctx.profile,
        &ctx.secrets,
        Some(Arc::clone(&ctx.parts.writer)),
        ctx.body_cap,
        ctx.id.clone(),
    );
    let run_id = recording.history_id().unwrap_or_default().to_owned();
    record_slots(
        ctx,
        vec![WatchSlot {
            slot,
            due_unix_ms: due,
            run_id: Some(run_id.clone()),
            missed: None,
            run_deleted: false,
        }],
    )?;
    let (tx, rx) = mpsc::channel::<RunEvent>(super::RUN_EVENT_CAPACITY);
    let live = ctx.parts.live.as_ref();
    let face_run = live.map_or(slot + 1, |l| l.ids.fetch_add(1, Ordering::SeqCst));
    if live.is_some() {
        let _ = ctx.events.send(WatchEvent::RunStarted {
            slot,
            run_id: face_run,
        });
    }
    let options = RunOptions {
        run_id: face_run,
        seed: None,
        budget: ctx.parts.budgets.bucket_for(&ctx.profile, &request.url),
    };
    let (handle, run) = engine::prepare_run(request, ctx.profile.clone(), options, tx, None);
    if let Some(live) = live {
        live.lock().insert(face_run, handle.clone());
    }
    let asked = async {
        while stop.changed().await.is_ok() {
            if stop.borrow_and_update().is_some() {
                return;
            }
        }
        // The handle is gone: nobody can stop the watch any more.
        std::future::pending::<()>().await;
    };
    let mut fold = RunFold::new(face_run);
    let run = run.with_clients(&ctx.parts.clients);
    drive_events(run, &handle, rx, asked, |event| {
        let event = recording.observe(event);
        if live.is_some() {
            let _ = ctx.events.send(WatchEvent::Run(Box::new((*event).clone())));
        }
        fold.apply(event);
    })
    .await;
    if let Some(live) = live {
        live.lock().remove(&face_run);
    }
    if fold.finish.is_none() {
        return Err(WatchError::History(HistoryError::WriterGone(
            "the engine stopped without finishing a run".into(),
        )));
    }
    if let Some(e) = recording.take_failure() {
        return Err(WatchError::History(e));
    }
    if let Some(run) = observed_fold(&run_id, &fold, ctx.request.idempotency_key.is_some()) {
        let _ = ctx.events.send(WatchEvent::Ran {
            slot,
            run: Box::new(run),
        });
    }
    Ok(*stop.borrow())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicI64, Ordering};

    /// A wall clock that follows tokio's (paused) clock, plus jumps a test makes (a suspend:
    /// the wall clock moves, the monotonic clock does not).
    struct TestClock {
        base: i64,
        origin: tokio::time::Instant,
        jumped: AtomicI64,
    }

    impl WallClock for TestClock {
        fn now_unix_ms(&self) -> i64 {
            let ran = i64::try_from(self.origin.elapsed().as_millis()).unwrap_or(i64::MAX);
            self.base + ran + self.jumped.load(Ordering::SeqCst)
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_wait_ends_when_the_wall_clock_reaches_the_slot_even_after_a_suspend() {
        let clock = Arc::new(TestClock {
            base: 1_000_000,
            origin: tokio::time::Instant::now(),
            jumped: AtomicI64::new(0),
        });
        let (_stop_tx, mut stop) = watch::channel(None);
        // On the monotonic clock alone: due after 10 s.
        let began = tokio::time::Instant::now();
        assert_eq!(
            wait_for(clock.as_ref(), 1_010_000, &mut stop).await,
            Waited::Due
        );
        assert_eq!(began.elapsed().as_millis(), 10_000);
        // The machine sleeps an hour 2 s into a 10 s wait: noticed within a second of waking.
        let sleeper = Arc::clone(&clock);
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
            sleeper.jumped.store(3_600_000, Ordering::SeqCst);
        });
        let began = tokio::time::Instant::now();
        let at = clock.now_unix_ms() + 10_000;
        assert_eq!(wait_for(clock.as_ref(), at, &mut stop).await, Waited::Due);
        assert!(began.elapsed().as_millis() <= 3000, "{:?}", began.elapsed());
        // And the schedule then calls the slot missed, not due.
        let s = WatchSchedule {
            start_unix_ms: at,
            every_ms: 10_000,
            jitter: 0.0,
            seed: 1,
            count: None,
            until_unix_ms: None,
        };
        let plan = s.plan(0, clock.now_unix_ms());
        assert_eq!(plan.missed.start, 0);
        assert!(plan.missed.end >= 359, "{plan:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_stop_ends_the_wait_at_once() {
        let clock = SystemClock;
        let (stop_tx, mut stop) = watch::channel(None);
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            let _ = stop_tx.send(Some(WatchState::Paused));
        });
        let at = clock.now_unix_ms() + 3_600_000;
        assert_eq!(
            wait_for(&clock, at, &mut stop).await,
            Waited::Stopped(WatchState::Paused)
        );
    }

    #[test]
    fn the_schedule_text_gives_the_jitter_to_a_ten_thousandth_of_a_percent() {
        let schedule = |jitter| crate::policy::WatchSchedule {
            start_unix_ms: 0,
            every_ms: 30_000,
            jitter,
            seed: 1,
            count: Some(5),
            until_unix_ms: None,
        };
        assert_eq!(schedule_text(&schedule(0.1)), "every 30 s ± 10 %, 5 slots");
        assert_eq!(
            schedule_text(&schedule(0.4999)),
            "every 30 s ± 49.99 %, 5 slots"
        );
        assert_eq!(
            schedule_text(&schedule(0.005)),
            "every 30 s ± 0.5 %, 5 slots"
        );
        assert_eq!(schedule_text(&schedule(0.0)), "every 30 s, 5 slots");
    }
}
