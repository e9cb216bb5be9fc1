//! What the window's History panel asks of the database: a filtered, sorted count and one
//! window of light rows at a time (so 100,000 runs never load whole), the file's size,
//! keep-the-newest-N retention, and many writes in one transaction (benchmarks, imports).

use super::history::{HistoryStore, query_decoded, sql, time};
use super::history_error::HistoryError;
use super::history_records::HistoryWrite;
use super::outcome_filter::OutcomeFilter;
use super::url_filter::{URL_FORMS, url_like_patterns};
use crate::model::OutcomeKind;
use chrono::{DateTime, FixedOffset};
use rusqlite::params;

/// The column a run list is sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunSort {
    /// Start time.
    #[default]
    Started,
    /// HTTP method.
    Method,
    /// URL (masked, as stored).
    Url,
    /// Outcome id.
    Outcome,
    /// Attempts made.
    Attempts,
    /// Elapsed ms.
    Elapsed,
}

impl RunSort {
    fn column(self) -> &'static str {
        match self {
            Self::Started => "started_unix_ms",
            Self::Method => "method",
            Self::Url => "url",
            Self::Outcome => "outcome",
            Self::Attempts => "attempts",
            Self::Elapsed => "elapsed_ms",
        }
    }
}

/// Which runs a list shows and in what order. Empty / `None` fields filter nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunQuery {
    /// Only runs whose (masked) URL contains this text as typed or as the URL parser stores it
    /// (percent-encoded, punycode host; [`super::url_filter_forms`]), case-insensitive (ASCII).
    pub url_contains: String,
    /// Only runs of this method (case-insensitive).
    pub method: Option<String>,
    /// Only runs with this outcome, or only those still running.
    pub outcome: Option<OutcomeFilter>,
    /// Only runs started at or after this instant, Unix ms.
    pub since_unix_ms: Option<i64>,
    /// Only runs started before this instant, Unix ms.
    pub until_unix_ms: Option<i64>,
    /// Only the runs of this watch (its full id).
    pub watch_id: Option<String>,
    /// Sort column.
    pub sort: RunSort,
    /// Largest first (newest first for [`RunSort::Started`]).
    pub descending: bool,
}

/// One run as a list row: what the History table shows, without the request and profile.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// UUID v7.
    pub id: String,
    /// Wall-clock start with offset.
    pub started_at: DateTime<FixedOffset>,
    /// Method of attempt 1.
    pub method: String,
    /// URL of attempt 1, masked.
    pub url: String,
    /// How it ended; `None` while running.
    pub outcome: Option<OutcomeKind>,
    /// Status of the last response.
    pub last_status: Option<u16>,
    /// Attempts finished.
    pub attempts: u32,
    /// Monotonic ms from start to end; `None` until the run ends.
    pub elapsed_ms: Option<f64>,
    /// Profile name.
    pub profile_name: String,
}

/// `WHERE` clause and its eight parameters ([`FilterParams`]): the URL's three forms (as typed,
/// percent-encoded, punycode; a missing one is NULL and matches nothing), method, outcome (an
/// outcome id, or [`RUNNING`](super::RUNNING) for runs without one), since, until, watch id.
const WHERE: &str = "WHERE (?1 IS NULL OR url LIKE ?1 ESCAPE '\\'
          OR url LIKE ?2 ESCAPE '\\' OR url LIKE ?3 ESCAPE '\\')
      AND (?4 IS NULL OR method = ?4 COLLATE NOCASE)
      AND (?5 IS NULL OR outcome = ?5 OR (?5 = 'running' AND outcome IS NULL))
      AND (?6 IS NULL OR started_unix_ms >= ?6)
      AND (?7 IS NULL OR started_unix_ms < ?7)
      AND (?8 IS NULL OR watch_id = ?8)";

/// The values of [`WHERE`]'s `?1` to `?8`.
type FilterParams = (
    [Option<String>; URL_FORMS],
    Option<String>,
    Option<&'static str>,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

fn filter_params(q: &RunQuery) -> FilterParams {
    let mut urls: [Option<String>; URL_FORMS] = Default::default();
    for (slot, pattern) in urls.iter_mut().zip(url_like_patterns(&q.url_contains)) {
        *slot = Some(pattern);
    }
    (
        urls,
        q.method
            .as_ref()
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty()),
        q.outcome.map(OutcomeFilter::id),
        q.since_unix_ms,
        q.until_unix_ms,
        q.watch_id.clone(),
    )
}

impl HistoryStore {
    /// How many runs `query` selects.
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn count_runs(&self, query: &RunQuery) -> Result<u64, HistoryError> {
        let ([u1, u2, u3], method, outcome, since, until, watch) = filter_params(query);
        let n: i64 = self
            .conn
            .query_row(
                &format!("SELECT COUNT(*) FROM runs {WHERE}"),
                params![u1, u2, u3, method, outcome, since, until, watch],
                |r| r.get(0),
            )
            .map_err(sql("count runs"))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// At most `limit` rows of `query`'s list from row `offset` (0-based), in its order (ties
    /// broken by id, so pages never overlap).
    ///
    /// # Errors
    /// [`HistoryError::Sql`], [`HistoryError::Decode`] for a start time this version cannot read.
    pub fn page_runs(
        &self,
        query: &RunQuery,
        offset: u64,
        limit: u32,
    ) -> Result<Vec<RunSummary>, HistoryError> {
        let ([u1, u2, u3], method, outcome, since, until, watch) = filter_params(query);
        let dir = if query.descending { "DESC" } else { "ASC" };
        let query = format!(
            // The attempt count includes one in flight, as `RUN_COLUMNS` does.
            "SELECT id, started_at, method, url, outcome, last_status,
             MAX(attempts, COALESCE(started_attempt, 0)), elapsed_ms, profile_name
             FROM runs {WHERE}
             ORDER BY {col} {dir}, id {dir} LIMIT ?9 OFFSET ?10",
            col = query.sort.column()
        );
        let params = params![
            u1,
            u2,
            u3,
            method,
            outcome,
            since,
            until,
            watch,
            i64::from(limit),
            i64::try_from(offset).unwrap_or(i64::MAX)
        ];
        query_decoded(
            &self.conn,
            &query,
            params,
            ("list runs", "read a run"),
            |r| {
                let id: String = r.get(0)?;
                let started: String = r.get(1)?;
                let started_at = match time(&started, &id) {
                    Ok(at) => at,
                    Err(e) => return Ok(Err(e)),
                };
                Ok(Ok(RunSummary {
                    started_at,
                    method: r.get(2)?,
                    url: r.get(3)?,
                    outcome: r
                        .get::<_, Option<String>>(4)?
                        .as_deref()
                        .and_then(OutcomeKind::from_id),
                    last_status: r.get(5)?,
                    attempts: r.get(6)?,
                    elapsed_ms: r.get(7)?,
                    profile_name: r.get(8)?,
                    id,
                }))
            },
        )
    }

    /// Bytes the database takes on disk: the file plus its write-ahead log.
    pub fn file_size(&self) -> u64 {
        let size = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
        let mut wal = self.path().as_os_str().to_owned();
        wal.push("-wal");
        size(self.path()) + size(std::path::Path::new(&wal))
    }

    /// Deletes all but the `keep` newest runs (by start time); returns how many were deleted.
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn keep_newest(&mut self, keep: u64) -> Result<usize, HistoryError> {
        self.conn
            .execute(
                "DELETE FROM runs WHERE id IN (SELECT id FROM runs
                 ORDER BY started_unix_ms DESC, id DESC LIMIT -1 OFFSET ?1)",
                [i64::try_from(keep).unwrap_or(i64::MAX)],
            )
            .map_err(sql("prune runs"))
    }

    /// Applies `writes` in order in one transaction (all or nothing): fast bulk loads such as
    /// the 100,000-run benchmark database. Live runs use [`Self::apply`], one commit each.
    ///
    /// # Errors
    /// The first failing write's error; nothing is committed then.
    pub fn apply_batch(&mut self, writes: &[HistoryWrite]) -> Result<(), HistoryError> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(sql("begin"))?;
        for w in writes {
            if let Err(e) = self.apply(w) {
                let _ = self.conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
        self.conn.execute_batch("COMMIT").map_err(sql("commit"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::RUNNING;
    use super::*;

    #[test]
    fn blank_filters_select_everything_and_running_is_a_word_no_outcome_is_stored_as() {
        let q = RunQuery {
            url_contains: " ".into(),
            method: Some(" ".into()),
            ..RunQuery::default()
        };
        assert_eq!(filter_params(&q), Default::default());
        let q = RunQuery {
            url_contains: "ünï".into(),
            outcome: Some(OutcomeFilter::Running),
            ..RunQuery::default()
        };
        let (urls, _, outcome, _, _, _) = filter_params(&q);
        assert!(urls.iter().all(Option::is_some), "{urls:?}");
        assert_eq!(outcome, Some(RUNNING));
        assert!(WHERE.contains(&format!("?5 = '{RUNNING}'")));
        assert!(OutcomeKind::ALL.iter().all(|o| o.id() != RUNNING));
    }
}
