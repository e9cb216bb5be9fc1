//! Watches in the history database (DESIGN.md §12, schema step 9): the watch record (request
//! masked by the one secrets rule, profile, schedule, state), one row per schedule slot (the
//! run it started, or why it was missed) and the runs that name the watch. Read and written on
//! the store actor's thread (jobs of [`super::HistoryWriter::call`]) or by a CLI reader.
//!
//! Whether a watch still runs is asked of the OS: the process running it holds
//! `locks/watch-ID.lock` ([`WatchClaim`]); a watch stored `running` whose lock nobody holds was
//! left by a process that died and reads as [`WatchState::Interrupted`].

use super::advisory_lock::{BatchLock, LockRefused, lock_holder};
use super::history::{HistoryStore, query_decoded, query_rows, sql, time};
use super::history_error::HistoryError;
use super::history_rows::{decode, encode};
use crate::model::{OutcomeKind, RequestSpec};
use crate::policy::WatchSchedule;
use chrono::{DateTime, FixedOffset};
use rusqlite::params;
use serde::{Deserialize, Serialize};

/// Where a watch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum WatchState {
    /// A live process sends its slots.
    Running,
    /// Stopped by the user (Ctrl-C, SIGTERM, SIGHUP, the window's Stop): resumable.
    Paused,
    /// Every slot of its schedule is past.
    Finished,
    /// Cancelled: not resumed.
    Cancelled,
    /// Its process died while it ran (found by its lock): resumable.
    Interrupted,
}

impl WatchState {
    /// The stored id: `running`, `paused`, `finished`, `cancelled`, `interrupted`.
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// Whether `watch --resume` may carry it on.
    pub fn resumable(self) -> bool {
        matches!(self, Self::Paused | Self::Interrupted)
    }
}

/// Why a slot was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum Missed {
    /// Its time passed by more than half an interval while nothing ran (the machine slept).
    Late,
    /// Its time passed while the watch's previous run was still going (one run at a time).
    Busy,
    /// Its time passed while no process ran the watch (paused, or the process died).
    Down,
}

impl Missed {
    /// The stored id: `late`, `busy`, `down`.
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// The sentence a slot line shows.
    pub fn text(self) -> &'static str {
        match self {
            Self::Late => "missed (its time passed while nothing could send: the machine slept?)",
            Self::Busy => "missed (the previous run was still going)",
            Self::Down => "missed (the watch was not running)",
        }
    }
}

/// One slot of a watch's schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchSlot {
    /// Slot index k (0-based).
    pub slot: u64,
    /// When it was due, Unix ms (with jitter).
    pub due_unix_ms: i64,
    /// The run it started (history id), when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Why it was not sent, when missed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missed: Option<Missed>,
    /// Its run was deleted from the history (`history delete`, retention).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub run_deleted: bool,
}

/// A watch to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewWatch {
    /// UUID v7.
    pub id: String,
    /// The request, secrets masked by the one rule.
    pub request: RequestSpec,
    /// Whether the sendable request (with its secrets) is kept in the secret store.
    pub has_secrets: bool,
    /// The profile's name.
    pub profile_name: String,
    /// The profile (its JSON form).
    pub profile: serde_json::Value,
    /// When its slots are due.
    pub schedule: WatchSchedule,
}

/// A stored watch, as `watch list` / `watch show` print it (docs/formats.md "Watch records").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchRecord {
    /// UUID v7.
    pub id: String,
    /// When it was created.
    pub created_at: DateTime<FixedOffset>,
    /// Method and URL (masked) of the request.
    pub method: String,
    /// URL, masked.
    pub url: String,
    /// The request, secrets masked.
    pub request: RequestSpec,
    /// Whether the sendable request is kept in the secret store.
    pub has_secrets: bool,
    /// The profile's name.
    pub profile_name: String,
    /// The profile snapshot.
    pub profile: serde_json::Value,
    /// When its slots are due.
    pub schedule: WatchSchedule,
    /// Where it stands (`interrupted` when stored `running` and nobody holds its lock).
    pub state: WatchState,
    /// When its state last changed.
    pub updated_at: DateTime<FixedOffset>,
    /// Its runs in the history (a run deleted from it is not counted).
    pub runs: u64,
    /// Slots missed.
    pub missed: u64,
    /// The first slot not recorded (where a resume carries on).
    pub next_slot: u64,
}

/// The running watch's claim: its OS lock, held until dropped (or until the process ends,
/// however it ends).
#[derive(Debug)]
pub struct WatchClaim {
    lock: BatchLock,
}

impl WatchClaim {
    /// Releases the claim of a watch that has ended for good (`finished`, `cancelled`: stored
    /// so first), deleting its lock file while still holding it.
    pub fn end(self) {
        self.lock.remove();
    }
}

/// `no watch `ID` (see …)`, the id quoted as input is; `no watch id given` for an empty one.
fn not_found_text(id: &str) -> String {
    if id.trim().is_empty() {
        "no watch id given (see `retryscope watch list`)".to_owned()
    } else {
        format!(
            "no watch `{}` (see `retryscope watch list`)",
            crate::model::quote::quote_input(id)
        )
    }
}

/// Why a watch cannot be claimed or found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WatchError {
    /// No watch has that id.
    #[error("{}", not_found_text(.0))]
    NotFound(String),
    /// The id prefix names several watches.
    #[error("`{}` names more than one watch; give more of the id", crate::model::quote::quote_input(.0))]
    Ambiguous(String),
    /// Another process (or this one) runs it.
    #[error("watch {id} is running in {}", .pid.map_or_else(|| "another process".to_owned(), |p| format!("process {p}")))]
    Busy {
        /// The watch.
        id: String,
        /// The process holding its lock, when its file says.
        pid: Option<u32>,
    },
    /// Finished or cancelled: nothing to resume.
    #[error("watch {id} is {} and cannot be resumed; start a new one", .state.id())]
    Ended {
        /// The watch.
        id: String,
        /// Its state.
        state: WatchState,
    },
    /// Its request holds secrets that no OS keyring keeps (the process that started it had
    /// none, or this one has none): only that process could carry it on.
    #[error(
        "watch {id} cannot be resumed: its request holds secrets that were kept in memory only (no OS keyring) by the process that started it; start a new watch"
    )]
    SecretsLost {
        /// The watch.
        id: String,
    },
    /// The history failed.
    #[error(transparent)]
    History(#[from] HistoryError),
}

const WATCH_COLUMNS: &str = "id, created_at, method, url, request_json, has_secrets, profile_name,
    profile_json, start_unix_ms, every_ms, jitter, seed, count, until_unix_ms, state, updated_at,
    (SELECT COUNT(*) FROM runs r WHERE r.watch_id = watches.id),
    (SELECT COUNT(*) FROM watch_slots s WHERE s.watch_id = watches.id AND s.missed IS NOT NULL),
    (SELECT COALESCE(MAX(slot) + 1, 0) FROM watch_slots s WHERE s.watch_id = watches.id)";

impl HistoryStore {
    /// Stores `watch` as `running` and takes its lock, in that order (the lock first: a watch
    /// stored running is never read as interrupted while its process lives).
    ///
    /// # Errors
    /// SQL and encode errors; the lock file's error (what and where).
    pub fn create_watch(&mut self, watch: &NewWatch) -> Result<WatchClaim, WatchError> {
        let claim = self.lock_watch(&watch.id)?;
        let now = chrono::Local::now().fixed_offset();
        let s = &watch.schedule;
        self.conn
            .execute(
                "INSERT INTO watches (id, created_at, created_unix_ms, method, url, request_json,
                 has_secrets, profile_name, profile_json, start_unix_ms, every_ms, jitter, seed,
                 count, until_unix_ms, state, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?2)",
                params![
                    watch.id,
                    now.to_rfc3339(),
                    now.timestamp_millis(),
                    watch.request.method,
                    watch.request.url,
                    encode(&watch.request)?,
                    watch.has_secrets,
                    watch.profile_name,
                    encode(&watch.profile)?,
                    s.start_unix_ms,
                    i64::try_from(s.every_ms).unwrap_or(i64::MAX),
                    s.jitter,
                    s.seed.to_string(),
                    s.count.map(|n| i64::try_from(n).unwrap_or(i64::MAX)),
                    s.until_unix_ms,
                    WatchState::Running.id(),
                ],
            )
            .map_err(sql("create a watch"))?;
        Ok(claim)
    }

    /// Claims watch `id` (a full id or a unique prefix) to carry it on: takes its lock and
    /// stores it `running`; returns the record as it was (its state `paused` or
    /// `interrupted`).
    ///
    /// # Errors
    /// [`WatchError::NotFound`], [`WatchError::Ambiguous`], [`WatchError::Busy`] while a
    /// process runs it, [`WatchError::Ended`] when finished or cancelled; SQL errors.
    pub fn claim_watch(&mut self, id: &str) -> Result<(WatchRecord, WatchClaim), WatchError> {
        let record = self.resumable_watch(id)?;
        let claim = self.lock_watch(&record.id)?;
        self.set_watch_state(&record.id, WatchState::Running)?;
        Ok((record, claim))
    }

    /// Watch `id` (a full id or a unique prefix) when it can be resumed (`paused` or
    /// `interrupted`), without claiming it.
    ///
    /// # Errors
    /// As [`Self::claim_watch`] (a `running` watch is [`WatchError::Busy`]).
    pub fn resumable_watch(&self, id: &str) -> Result<WatchRecord, WatchError> {
        let record = self.watch(id)?;
        match record.state {
            _ if record.state.resumable() => Ok(record),
            WatchState::Running => Err(WatchError::Busy {
                id: record.id,
                pid: None,
            }),
            state => Err(WatchError::Ended {
                id: record.id,
                state,
            }),
        }
    }

    fn lock_watch(&self, id: &str) -> Result<WatchClaim, WatchError> {
        BatchLock::take_named(self.data_dir(), "watch", id)
            .map(|lock| WatchClaim { lock })
            .map_err(|e| match e {
                LockRefused::Held(pid) => WatchError::Busy {
                    id: id.to_owned(),
                    pid,
                },
                LockRefused::Io(message) => WatchError::History(HistoryError::Sql {
                    action: "claim a watch",
                    message,
                }),
            })
    }

    /// Stores watch `id`'s state (a full id).
    ///
    /// # Errors
    /// SQL errors.
    pub fn set_watch_state(&mut self, id: &str, state: WatchState) -> Result<(), HistoryError> {
        self.conn
            .execute(
                "UPDATE watches SET state = ?2, updated_at = ?3 WHERE id = ?1",
                params![
                    id,
                    state.id(),
                    chrono::Local::now().fixed_offset().to_rfc3339()
                ],
            )
            .map_err(sql("store a watch's state"))?;
        Ok(())
    }

    /// Records `slots` of watch `id` in one transaction (a slot recorded again is replaced).
    ///
    /// # Errors
    /// SQL errors; nothing is kept then.
    pub fn record_slots(&mut self, id: &str, slots: &[WatchSlot]) -> Result<(), HistoryError> {
        let tx = self.conn.transaction().map_err(sql("begin"))?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO watch_slots (watch_id, slot, due_unix_ms, run_id, missed)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(sql("record a watch slot"))?;
            for s in slots {
                stmt.execute(params![
                    id,
                    i64::try_from(s.slot).unwrap_or(i64::MAX),
                    s.due_unix_ms,
                    s.run_id,
                    s.missed.map(Missed::id)
                ])
                .map_err(sql("record a watch slot"))?;
            }
        }
        tx.commit().map_err(sql("commit watch slots"))
    }

    /// Watches, newest first, at most `limit`.
    ///
    /// # Errors
    /// SQL and decode errors.
    pub fn watches(&self, limit: u32) -> Result<Vec<WatchRecord>, HistoryError> {
        self.select_watches(
            "ORDER BY created_unix_ms DESC, id DESC LIMIT ?1",
            &i64::from(limit),
        )
    }

    /// The runs of each watch of `ids` (full ids) by outcome (`None`: not finished), in one
    /// GROUP BY over `runs.watch_id`: `(watch id, outcome, runs)`.
    ///
    /// # Errors
    /// SQL errors.
    pub fn watch_outcomes(
        &self,
        ids: &[&str],
    ) -> Result<Vec<(String, Option<OutcomeKind>, u64)>, HistoryError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; ids.len()].join(", ");
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT watch_id, outcome, COUNT(*) FROM runs WHERE watch_id IN ({marks})
                 GROUP BY watch_id, outcome"
            ))
            .map_err(sql("count a watch's outcomes"))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(ids), |r| {
                let outcome: Option<String> = r.get(1)?;
                Ok((
                    r.get(0)?,
                    outcome.as_deref().and_then(OutcomeKind::from_id),
                    u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                ))
            })
            .map_err(sql("count a watch's outcomes"))?;
        rows.collect::<Result<_, _>>()
            .map_err(sql("count a watch's outcomes"))
    }

    /// The watches `tail` (a WHERE / ORDER BY / LIMIT clause with one parameter) selects.
    fn select_watches(
        &self,
        tail: &str,
        param: &dyn rusqlite::ToSql,
    ) -> Result<Vec<WatchRecord>, HistoryError> {
        query_decoded(
            &self.conn,
            &format!("SELECT {WATCH_COLUMNS} FROM watches {tail}"),
            [param],
            ("read watches", "read a watch"),
            |r| Ok(self.watch_row(r)),
        )
    }

    /// Watch `id` (a full id or a unique prefix).
    ///
    /// # Errors
    /// [`WatchError::NotFound`], [`WatchError::Ambiguous`]; SQL and decode errors.
    pub fn watch(&self, id: &str) -> Result<WatchRecord, WatchError> {
        let id = id.trim().to_ascii_lowercase();
        if id.is_empty() {
            // An empty prefix would name every watch.
            return Err(WatchError::NotFound(id));
        }
        let mut found = self.select_watches("WHERE id >= ?1 AND id < ?1 || '~' LIMIT 2", &id)?;
        match found.len() {
            0 => Err(WatchError::NotFound(id)),
            1 => Ok(found.remove(0)),
            _ => Err(WatchError::Ambiguous(id)),
        }
    }

    /// The slots of watch `id` (a full id) recorded so far, in order.
    ///
    /// # Errors
    /// SQL errors.
    pub fn watch_slots(&self, id: &str) -> Result<Vec<WatchSlot>, HistoryError> {
        query_rows(
            &self.conn,
            "SELECT slot, due_unix_ms, run_id, missed, run_deleted FROM watch_slots
             WHERE watch_id = ?1 ORDER BY slot",
            [id],
            "read watch slots",
            |r| {
                Ok(WatchSlot {
                    slot: u64::try_from(r.get::<_, i64>(0)?).unwrap_or(0),
                    due_unix_ms: r.get(1)?,
                    run_id: r.get(2)?,
                    missed: r
                        .get::<_, Option<String>>(3)?
                        .as_deref()
                        .and_then(|id| id.parse().ok()),
                    run_deleted: r.get(4)?,
                })
            },
        )
    }

    fn watch_row(&self, r: &rusqlite::Row<'_>) -> Result<WatchRecord, HistoryError> {
        let get = |e: rusqlite::Error| HistoryError::Decode {
            id: "watch".into(),
            message: e.to_string(),
        };
        let id: String = r.get(0).map_err(get)?;
        let request: RequestSpec = decode(&r.get::<_, String>(4).map_err(get)?, &id, "request")?;
        let profile: serde_json::Value =
            decode(&r.get::<_, String>(7).map_err(get)?, &id, "profile")?;
        let seed: String = r.get(11).map_err(get)?;
        let count = |i: usize| -> Result<u64, HistoryError> {
            Ok(u64::try_from(r.get::<_, i64>(i).map_err(get)?).unwrap_or(0))
        };
        let stored: String = r.get(14).map_err(get)?;
        let mut state = stored
            .parse::<WatchState>()
            .ok()
            .ok_or_else(|| HistoryError::Decode {
                id: id.clone(),
                message: format!("unknown state `{stored}`"),
            })?;
        if state == WatchState::Running && lock_holder(self.data_dir(), "watch", &id).is_none() {
            state = WatchState::Interrupted;
        }
        Ok(WatchRecord {
            created_at: time(&r.get::<_, String>(1).map_err(get)?, &id)?,
            method: r.get(2).map_err(get)?,
            url: r.get(3).map_err(get)?,
            request,
            has_secrets: r.get(5).map_err(get)?,
            profile_name: r.get(6).map_err(get)?,
            profile,
            schedule: WatchSchedule {
                start_unix_ms: r.get(8).map_err(get)?,
                every_ms: count(9)?,
                jitter: r.get(10).map_err(get)?,
                seed: seed.parse().unwrap_or(0),
                count: r
                    .get::<_, Option<i64>>(12)
                    .map_err(get)?
                    .map(|n| u64::try_from(n).unwrap_or(0)),
                until_unix_ms: r.get(13).map_err(get)?,
            },
            state,
            updated_at: time(&r.get::<_, String>(15).map_err(get)?, &id)?,
            runs: count(16)?,
            missed: count(17)?,
            next_slot: count(18)?,
            id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_id_is_the_json_name_and_reads_back() {
        use WatchState::{Cancelled, Finished, Interrupted, Paused, Running};
        for state in [Running, Paused, Finished, Cancelled, Interrupted] {
            let json = serde_json::to_value(state).expect("json");
            assert_eq!(json.as_str(), Some(state.id()));
            assert_eq!(state.id().parse::<WatchState>().ok(), Some(state));
        }
        for missed in [Missed::Late, Missed::Busy, Missed::Down] {
            let json = serde_json::to_value(missed).expect("json");
            assert_eq!(json.as_str(), Some(missed.id()));
            assert_eq!(missed.id().parse::<Missed>().ok(), Some(missed));
        }
        assert_eq!(WatchState::Interrupted.id(), "interrupted");
        assert!("Running".parse::<WatchState>().is_err());
    }

    fn new_watch(id: &str) -> NewWatch {
        NewWatch {
            id: id.to_owned(),
            request: RequestSpec::get("http://127.0.0.1:9/x"),
            has_secrets: false,
            profile_name: "p".into(),
            profile: serde_json::json!({"name": "p"}),
            schedule: WatchSchedule {
                start_unix_ms: 1000,
                every_ms: 200,
                jitter: 0.0,
                seed: 1,
                count: Some(5),
                until_unix_ms: None,
            },
        }
    }

    #[test]
    fn a_watch_reads_running_while_its_lock_is_held_then_interrupted_and_resumable() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open_in(dir.path()).unwrap();
        let id = "0190aaaa-0000-7000-8000-000000000001";
        let claim = store.create_watch(&new_watch(id)).unwrap();
        store
            .record_slots(
                id,
                &[
                    WatchSlot {
                        slot: 0,
                        due_unix_ms: 1000,
                        run_id: Some("r0".into()),
                        missed: None,
                        run_deleted: false,
                    },
                    WatchSlot {
                        slot: 1,
                        due_unix_ms: 1200,
                        run_id: None,
                        missed: Some(Missed::Busy),
                        run_deleted: false,
                    },
                ],
            )
            .unwrap();
        let w = store.watch("0190aaaa").unwrap();
        // Run r0 is not in the history: a slot's run is counted once the run exists.
        assert_eq!(
            (w.state, w.runs, w.missed, w.next_slot),
            (WatchState::Running, 0, 1, 2)
        );
        assert!(matches!(
            store.claim_watch(id),
            Err(WatchError::Busy { .. })
        ));
        // The process "dies": its lock goes with it.
        drop(claim);
        assert_eq!(store.watch(id).unwrap().state, WatchState::Interrupted);
        let (before, _claim) = store.claim_watch(id).unwrap();
        assert_eq!(before.state, WatchState::Interrupted);
        assert_eq!(store.watch(id).unwrap().state, WatchState::Running);
        assert_eq!(store.watch_slots(id).unwrap()[1].missed, Some(Missed::Busy));
        store.set_watch_state(id, WatchState::Finished).unwrap();
        assert!(matches!(
            store.claim_watch(id),
            Err(WatchError::Ended { .. })
        ));
        assert!(matches!(
            store.watch("0190bbbb"),
            Err(WatchError::NotFound(_))
        ));
    }
}
