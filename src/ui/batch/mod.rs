//! The Batch tab's state: import a list, start / pause / resume / cancel it, progress
//! with counts per state, rate and ETA, a virtualised table of items filtered by state whose
//! rows open the item's run, "re-run failed".
//!
//! The panel sends [`BatchCommand`]s through a [`CoreSender`]; the workbench hands it the core's
//! replies ([`BatchPanel::accept`]); the frame never touches SQLite and never waits. Only one page of rows ([`PAGE_ROWS`]) is held.
//!
//! Earlier batches are listed with Open / Resume / Cancel. At start-up the batches this window
//! was working when it was closed or killed are resumed by themselves (one after the other);
//! the other unfinished ones (paused with the Pause button, cancelled, or left by the CLI) are
//! only offered. A status line says so ([`BatchPanel::take_startup_line`], kept current by
//! [`BatchPanel::startup_line`] until nothing it names is left; docs/DECISIONS.md "Window
//! resumes its own batches").

mod assertion_fields;
mod earlier_view;
mod panel_view;

pub use assertion_fields::AssertionFields;

use crate::model::{BatchCounts, BatchEvent, BatchItemState, BatchOptions, RetryProfile, counted};
use crate::service::{BatchCommand, BatchReply, CoreCommand, CoreSender, Interrupted};
use crate::store::{BatchItemRecord, BatchRecord};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The importer the window's Batch tab uses: [`crate::service::read_batch_list`] with the
/// format from the file's extension; a list with a malformed line is refused whole, naming
/// every such line, unless "Skip bad lines" is ticked (the CLI's `--skip-bad-lines`).
pub fn list_importer() -> crate::service::BatchImporter {
    std::sync::Arc::new(|path: &std::path::Path, on_bad, profiles: &_| {
        crate::service::read_batch_list(path, None, on_bad, Some(profiles))
    })
}

/// Rows read per page.
pub const PAGE_ROWS: u64 = 200;

/// Shortest gap between two reloads of the shown page while a batch runs.
pub const RELOAD_EVERY: Duration = Duration::from_millis(250);

/// What the tab asks the workbench to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchAction {
    /// Open a file picker for the list; answer with [`BatchPanel::set_list_path`].
    PickList,
    /// Show the recorded run with this history id in the timeline.
    OpenRun(String),
}

/// The Batch tab's state.
#[derive(Default)]
pub struct BatchPanel {
    service: Option<CoreSender>,
    problem: Option<String>,
    notice: Option<String>,
    /// The list file to import.
    pub list_path: String,
    /// Items in flight at once.
    pub concurrency: usize,
    /// Starts per second per host (empty: no limit).
    pub rate: String,
    /// Queue the good lines of a list with malformed ones (each is still reported).
    pub skip_bad_lines: bool,
    /// Give every item its stable `Idempotency-Key` ([`BatchOptions::idempotency_keys`]).
    pub idempotency_keys: bool,
    /// The batch's assertions as typed.
    pub assertions: AssertionFields,
    /// Earlier batches, newest first (`None` until the service answers).
    batches: Option<Vec<BatchRecord>>,
    /// The batch the service works, if any (from its `BatchStarted`).
    worked: Option<String>,
    /// What start-up found and did (set by the first list of batches).
    startup: Option<Startup>,
    /// The start-up line was handed to the workbench.
    startup_taken: bool,
    batch: Option<String>,
    counts: BatchCounts,
    working: bool,
    /// When the current work began and how many items were finished then (rate and ETA).
    started: Option<(Instant, u64)>,
    filter: Option<BatchItemState>,
    page: Option<(u64, Vec<BatchItemRecord>)>,
    asked: Option<(Option<BatchItemState>, u64)>,
    stale_since: Option<Instant>,
    last_ask: Option<Instant>,
    selected: Option<u64>,
    /// A resume held back: the batch, its counts, and the items in flight when it stopped that
    /// may have reached the server (the tab asks whether to send them again).
    resend_ask: Option<(String, BatchCounts, Vec<BatchItemRecord>)>,
}

/// What the first list of batches held: batches to resume by themselves and batches offered.
#[derive(Debug, Default)]
struct Startup {
    /// Batches the window was working when it was closed or killed, still to be resumed.
    to_resume: VecDeque<String>,
    /// The one resumed by itself now, if any.
    resuming: Option<String>,
    /// Unfinished batches only offered (the tab's Resume sends them).
    offered: Vec<String>,
}

impl BatchPanel {
    /// A panel without a service (it says so until [`Self::attach`]).
    pub fn new() -> Self {
        Self {
            concurrency: crate::model::DEFAULT_CONCURRENCY,
            ..Self::default()
        }
    }

    /// Connects the panel to the core (which works batches).
    pub fn attach(&mut self, service: CoreSender) {
        self.service = Some(service);
        self.problem = None;
        self.send(BatchCommand::List);
    }

    /// Earlier batches, newest first, as last listed (`None` until the service answers).
    pub fn batches(&self) -> Option<&[BatchRecord]> {
        self.batches.as_deref()
    }

    /// Listed batches with items left `pending` or `running` that no one here works: paused,
    /// or left by a process that was closed or killed.
    pub fn unfinished(&self) -> Vec<&BatchRecord> {
        self.batches
            .iter()
            .flatten()
            .filter(|b| b.counts.pending + b.counts.running > 0)
            .filter(|b| self.worked.as_deref() != Some(b.id.as_str()))
            .collect()
    }

    /// Once, after the first list of batches: the status line saying which batch was resumed
    /// by itself (and how many items it has left) and how many unfinished ones are offered;
    /// `None` when there is nothing to say.
    pub fn take_startup_line(&mut self) -> Option<String> {
        if self.startup_taken || self.startup.is_none() {
            return None;
        }
        self.startup_taken = true;
        self.startup_line()
    }

    /// The start-up line as it stands now (see [`Self::take_startup_line`]): the count of items
    /// left follows the work, and the line is `None` once every batch it named was resumed,
    /// finished, paused or cancelled.
    pub fn startup_line(&self) -> Option<String> {
        let startup = self.startup.as_ref()?;
        let mut parts = Vec::new();
        if let Some(id) = &startup.resuming {
            let counts = if self.batch.as_deref() == Some(id.as_str()) {
                Some(self.counts)
            } else {
                self.listed(id).map(|b| b.counts)
            };
            let left = counts.map_or(0, |c| c.pending + c.running);
            parts.push(format!(
                "resumed batch …{} where it was left when Retryscope closed: {} left (Pause is in the Batch tab)",
                short_id(id),
                counted(left, "item", "items")
            ));
            if !startup.to_resume.is_empty() {
                parts.push(format!(
                    "{} to resume after it",
                    counted(startup.to_resume.len() as u64, "more batch", "more batches")
                ));
            }
        }
        let offered: Vec<&BatchRecord> = startup
            .offered
            .iter()
            .filter_map(|id| self.listed(id))
            .filter(|b| b.counts.pending + b.counts.running > 0)
            .filter(|b| !self.is_worked(&b.id))
            .collect();
        match offered.as_slice() {
            [] => {}
            [one] => parts.push(format!(
                "1 unfinished batch ({} left): resume it from the Batch tab's Earlier batches",
                counted(one.counts.pending + one.counts.running, "item", "items")
            )),
            more => parts.push(format!(
                "{} unfinished batches: resume them from the Batch tab's Earlier batches",
                more.len()
            )),
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// The batch being resumed by itself at start-up, if any (the workbench shows the tab).
    pub fn resuming_at_startup(&self) -> Option<&str> {
        self.startup.as_ref()?.resuming.as_deref()
    }

    /// True when batch `id` is worked here, or was just asked to be (its start not answered
    /// yet).
    fn is_worked(&self, id: &str) -> bool {
        match &self.worked {
            Some(w) => w == id,
            None => self.working && self.batch.as_deref() == Some(id),
        }
    }

    fn listed(&self, id: &str) -> Option<&BatchRecord> {
        self.batches.iter().flatten().find(|b| b.id == id)
    }

    /// The first list of batches: resume the first of those the window was working when it was
    /// closed or killed, offer the other unfinished ones.
    fn on_first_list(&mut self) {
        let mut startup = Startup::default();
        // Oldest first: the order they were queued in.
        for b in self.batches.iter().flatten().rev() {
            if b.resumes_in_window() {
                startup.to_resume.push_back(b.id.clone());
            } else if b.counts.pending + b.counts.running > 0 && !b.held_elsewhere {
                startup.offered.push(b.id.clone());
            }
        }
        startup.offered.reverse();
        self.startup = Some(startup);
        self.resume_next_at_startup();
    }

    /// Resumes the next batch left to resume at start-up, unless one is worked.
    fn resume_next_at_startup(&mut self) {
        if self.working {
            return;
        }
        let Some(startup) = self.startup.as_mut() else {
            return;
        };
        startup.resuming = startup.to_resume.pop_front();
        let Some(id) = startup.resuming.clone() else {
            return;
        };
        let counts = self.listed(&id).map(|b| b.counts).unwrap_or_default();
        self.resume(&id, counts, Interrupted::Ask);
    }

    /// Shows the items of listed batch `id` in the table (as its Open button does); false when
    /// it is not in the last list.
    pub fn open_batch(&mut self, id: &str) -> bool {
        let Some(counts) = self.listed(id).map(|b| b.counts) else {
            return false;
        };
        self.open(id, counts);
        true
    }

    /// True when the shown batch's page of rows is held and no page is asked for (nothing to
    /// wait for).
    pub fn is_idle(&self) -> bool {
        self.asked.is_none() && (self.batch.is_none() || self.page.is_some())
    }

    /// Shows batch `id` (its items in the table); `counts` as last known.
    fn open(&mut self, id: &str, counts: BatchCounts) {
        if self.batch.as_deref() != Some(id) {
            self.batch = Some(id.to_owned());
            self.counts = counts;
            self.started = None;
            self.selected = None;
            self.notice = None;
        }
        self.reload();
    }

    /// Shows batch `id` and works its pending items (and those a dead process left running);
    /// `interrupted` says what to do with those that were in flight and are not safe to send
    /// twice (`Ask`: the tab asks first).
    fn resume(&mut self, id: &str, counts: BatchCounts, interrupted: Interrupted) {
        self.resend_ask = None;
        self.open(id, counts);
        self.send(BatchCommand::Resume {
            id: id.to_owned(),
            interrupted,
        });
        self.working = true;
    }

    /// The held-back resume's interrupted items, if the tab is asking about them.
    pub fn resend_risk(&self) -> Option<&[BatchItemRecord]> {
        self.resend_ask
            .as_ref()
            .map(|(_, _, items)| items.as_slice())
    }

    /// Answers the question about interrupted items: `Some(Resend)` or `Some(Skip)` resumes,
    /// `None` leaves the batch as it is.
    pub fn answer_resend(&mut self, answer: Option<Interrupted>) {
        let Some((id, counts, _)) = self.resend_ask.take() else {
            return;
        };
        if let Some(answer) = answer {
            self.resume(&id, counts, answer);
        }
    }

    /// True when the batch shown is the one being worked (or asked to be).
    fn shown_is_worked(&self) -> bool {
        self.working && (self.worked.is_none() || self.worked == self.batch)
    }

    /// Says why batches are not available.
    pub fn set_unavailable(&mut self, reason: String) {
        self.service = None;
        self.problem = Some(reason);
    }

    /// The picked list file (answer to [`BatchAction::PickList`]).
    pub fn set_list_path(&mut self, path: &std::path::Path) {
        self.list_path = path.display().to_string();
    }

    /// The batch shown, if any.
    pub fn batch_id(&self) -> Option<&str> {
        self.batch.as_deref()
    }

    /// The problem shown, if any.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// The notice shown (queued, finished, skipped lines), if any.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Items per state of the batch shown.
    pub fn counts(&self) -> BatchCounts {
        self.counts
    }

    /// True while this window works a batch (shown or not).
    pub fn works_a_batch(&self) -> bool {
        self.working
    }

    /// True while the batch shown is being worked.
    pub fn is_working(&self) -> bool {
        self.shown_is_worked()
    }

    /// Takes one of the core's batch replies (the workbench passes them on as they arrive).
    pub fn accept(&mut self, reply: BatchReply, now: Instant) {
        match reply {
            BatchReply::Queued { id, items, notes } => {
                let queued = format!("queued {} as batch {id}", counted(items, "item", "items"));
                self.notice = Some(
                    std::iter::once(queued)
                        .chain(notes)
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
                self.counts = BatchCounts {
                    pending: items,
                    ..BatchCounts::default()
                };
                self.batch = Some(id);
                self.started = None;
                self.selected = None;
                self.reload();
                self.send(BatchCommand::List);
            }
            BatchReply::Cancelled { id, items } => {
                self.notice = Some(format!(
                    "cancelled {} of batch {id}",
                    counted(items, "item", "items")
                ));
                if self.batch.as_deref() == Some(id.as_str()) {
                    self.reload();
                }
                self.send(BatchCommand::List);
            }
            BatchReply::Event(event) => self.apply(&event, now),
            BatchReply::Ended(summary) => {
                let shown = self.worked.is_none() || self.worked == self.batch;
                self.working = false;
                self.worked = None;
                self.send(BatchCommand::List);
                if let Some(startup) = self.startup.as_mut()
                    && startup.resuming.take().is_some()
                {
                    if summary.stopped {
                        // Paused or cancelled by the user: the rest wait for the next start.
                        startup.to_resume.clear();
                    } else {
                        self.resume_next_at_startup();
                    }
                }
                if !shown {
                    return;
                }
                self.counts = summary.counts;
                self.notice = Some(if summary.stopped {
                    format!(
                        "paused: {} pending (Resume sends them)",
                        counted(summary.counts.pending, "item", "items")
                    )
                } else {
                    format!("finished: {}", summary.counts.summary())
                });
                self.reload();
            }
            BatchReply::Page {
                id,
                state,
                offset,
                counts,
                rows,
            } => {
                if self.batch.as_deref() == Some(id.as_str()) && state == self.filter {
                    self.counts = counts;
                    self.page = Some((offset, rows));
                }
                self.asked = None;
            }
            BatchReply::Batches(list) => {
                self.batches = Some(list);
                if self.startup.is_none() {
                    self.on_first_list();
                }
            }
            BatchReply::ResendRisk { id, items } => {
                self.working = false;
                let counts = self.listed(&id).map_or(self.counts, |b| b.counts);
                self.resend_ask = Some((id, counts, items));
            }
            BatchReply::Problem(p) => self.problem = Some(p),
        }
    }

    fn apply(&mut self, event: &BatchEvent, now: Instant) {
        let batch_id = match event {
            BatchEvent::BatchStarted { batch_id, .. }
            | BatchEvent::ItemStarted { batch_id, .. }
            | BatchEvent::ItemFinished { batch_id, .. }
            | BatchEvent::BatchFinished { batch_id, .. } => batch_id,
        };
        if matches!(event, BatchEvent::BatchStarted { .. }) {
            self.worked = Some(batch_id.clone());
            self.working = true;
        }
        if self.batch.as_ref() != Some(batch_id) {
            // Another batch than the one shown (the table shows that one's counts).
            return;
        }
        match event {
            BatchEvent::BatchStarted { counts, .. } => {
                self.counts = *counts;
                self.working = true;
                self.started = Some((now, counts.finished()));
            }
            BatchEvent::ItemStarted { .. } => self
                .counts
                .moved(BatchItemState::Pending, BatchItemState::Running),
            BatchEvent::ItemFinished { state, .. } => {
                self.counts.moved(BatchItemState::Running, *state);
            }
            BatchEvent::BatchFinished { counts, .. } => self.counts = *counts,
        }
        self.stale_since.get_or_insert(now);
    }

    /// Items finished per second since the work began, and the time left at that rate.
    pub fn rate_and_eta(&self, now: Instant) -> Option<(f64, Option<Duration>)> {
        let (since, finished_then) = self.started?;
        let secs = now.saturating_duration_since(since).as_secs_f64();
        if secs <= 0.0 {
            return None;
        }
        let rate = self.counts.finished().saturating_sub(finished_then) as f64 / secs;
        let left = self.counts.pending + self.counts.running;
        let eta = (rate > 0.0).then(|| Duration::from_secs_f64(left as f64 / rate));
        Some((rate, eta))
    }

    fn send(&mut self, command: BatchCommand) {
        match &self.service {
            Some(s) if s.send(CoreCommand::Batch(command)) => {}
            Some(_) => self.problem = Some("the core is not taking commands; restart".into()),
            None => self.problem = Some("batches are not available".into()),
        }
    }

    /// Drops the held page so the shown rows are read again.
    fn reload(&mut self) {
        self.page = None;
        self.asked = None;
        self.stale_since = None;
    }

    /// Asks for the page holding row `index` unless it is held or asked for.
    fn want_row(&mut self, index: u64, now: Instant) {
        let offset = index / PAGE_ROWS * PAGE_ROWS;
        let held = self.page.as_ref().is_some_and(|(o, _)| *o == offset);
        let asked = self.asked == Some((self.filter, offset));
        let stale = self.stale_since.is_some_and(|_| {
            self.last_ask
                .is_none_or(|t| now.saturating_duration_since(t) >= RELOAD_EVERY)
        });
        if (held && !stale) || asked {
            return;
        }
        let Some(id) = self.batch.clone() else {
            return;
        };
        self.asked = Some((self.filter, offset));
        self.last_ask = Some(now);
        self.stale_since = None;
        self.send(BatchCommand::Page {
            id,
            state: self.filter,
            offset,
            limit: PAGE_ROWS,
        });
    }

    /// The held row `index`, if its page is here.
    fn row(&self, index: u64) -> Option<&BatchItemRecord> {
        let (offset, rows) = self.page.as_ref()?;
        let i = usize::try_from(index.checked_sub(*offset)?).ok()?;
        rows.get(i)
    }

    fn import(&mut self, profile: &RetryProfile) {
        let rate = self.rate.trim();
        let rate_per_host = match rate.parse::<f64>() {
            _ if rate.is_empty() => None,
            Ok(r) if r.is_finite() && r > 0.0 => Some(r),
            _ => {
                self.problem = Some(format!(
                    "the rate per host must be a number above 0 (requests per second), found `{rate}`"
                ));
                return;
            }
        };
        if self.list_path.trim().is_empty() {
            self.problem = Some("choose a list file first".into());
            return;
        }
        let Ok(assertions) = self.assertions.parsed() else {
            self.problem = Some("fix the assertions first (the errors are under them)".into());
            return;
        };
        self.problem = None;
        self.send(BatchCommand::Import {
            path: self.list_path.trim().into(),
            profile: Box::new(profile.clone()),
            options: BatchOptions {
                concurrency: self.concurrency,
                rate_per_host,
                assertions,
                idempotency_keys: self.idempotency_keys,
            },
            skip_bad_lines: self.skip_bad_lines,
        });
    }

    /// Draws the tab; `profile` is the workbench's current profile (the batch profile on
    /// import), `now` the frame's clock. Returns what the workbench must do.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        profile: &RetryProfile,
        now: Instant,
    ) -> Vec<BatchAction> {
        panel_view::show(self, ui, profile, now)
    }
}

/// The last 8 characters of a batch id (ids made within a minute share their first 8, UUID v7;
/// `batch --resume` takes a unique suffix too).
pub(crate) fn short_id(id: &str) -> &str {
    id.get(id.len().saturating_sub(8)..).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_move_counts_and_rate_and_eta_follow() {
        let mut p = BatchPanel::new();
        p.batch = Some("b".into());
        let t0 = Instant::now();
        p.apply(
            &BatchEvent::BatchStarted {
                batch_id: "b".into(),
                counts: BatchCounts {
                    pending: 10,
                    ..BatchCounts::default()
                },
                requeued: 0,
            },
            t0,
        );
        for _ in 0..4 {
            p.apply(
                &BatchEvent::ItemStarted {
                    batch_id: "b".into(),
                    position: 0,
                    run_id: None,
                },
                t0,
            );
            p.apply(
                &BatchEvent::ItemFinished {
                    batch_id: "b".into(),
                    position: 0,
                    state: BatchItemState::Done,
                    attempts: 1,
                    last_status: Some(200),
                    error_kind: None,
                    reason: String::new(),
                },
                t0,
            );
        }
        assert_eq!(p.counts().done, 4);
        assert_eq!(p.counts().pending, 6);
        let (rate, eta) = p.rate_and_eta(t0 + Duration::from_secs(2)).expect("rate");
        assert!((rate - 2.0).abs() < 1e-9);
        assert_eq!(eta, Some(Duration::from_secs(3)));
        assert!(p.is_working());
    }
}
