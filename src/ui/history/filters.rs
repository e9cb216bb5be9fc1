//! The History panel's filter and sort fields, and the query they make.

use crate::store::{OutcomeFilter, RunQuery, RunSort};

/// What the user typed and picked above the list (kept across restarts).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct HistoryFilters {
    /// URL text (case-insensitive, anywhere in the masked URL, as typed or percent-encoded:
    /// [`crate::store::url_filter_forms`], the rule of `history list --url`).
    pub url: String,
    /// Method ("" = any).
    pub method: String,
    /// Outcome, or runs still running (`None` = any), as `history list --outcome` takes it.
    pub outcome: Option<OutcomeFilter>,
    /// First day, `YYYY-MM-DD` local ("" = no limit).
    pub since: String,
    /// Last day, `YYYY-MM-DD` local, inclusive ("" = no limit).
    pub until: String,
    /// Sort column.
    pub sort: RunSort,
    /// Largest / newest first.
    pub descending: bool,
}

impl Default for HistoryFilters {
    /// Everything, newest first.
    fn default() -> Self {
        Self {
            url: String::new(),
            method: String::new(),
            outcome: None,
            since: String::new(),
            until: String::new(),
            sort: RunSort::Started,
            descending: true,
        }
    }
}

/// Local midnight starting `text` (`YYYY-MM-DD`), Unix ms; `None` when it is not such a date.
///
/// ```
/// assert!(retryscope::ui::history::parse_day("2026-12-01").is_some());
/// assert_eq!(retryscope::ui::history::parse_day("1 Dec"), None);
/// ```
pub fn parse_day(text: &str) -> Option<i64> {
    use chrono::TimeZone as _;
    let date = chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()?;
    let midnight = date.and_hms_opt(0, 0, 0)?;
    chrono::Local
        .from_local_datetime(&midnight)
        .earliest()
        .map(|t| t.timestamp_millis())
}

impl HistoryFilters {
    /// The query, and a problem naming a date field that is not a date (that bound is left out).
    pub fn query(&self) -> (RunQuery, Option<String>) {
        let mut problem = None;
        let mut day = |text: &str, field: &str| {
            if text.trim().is_empty() {
                return None;
            }
            let parsed = parse_day(text);
            if parsed.is_none() {
                problem = Some(format!(
                    "{field}: `{}` is not a date like 2026-12-01 (ignored)",
                    text.trim()
                ));
            }
            parsed
        };
        let since = day(&self.since, "From");
        let until = day(&self.until, "To").map(|ms| ms + 24 * 3600 * 1000);
        (
            RunQuery {
                url_contains: self.url.clone(),
                method: (!self.method.is_empty()).then(|| self.method.clone()),
                outcome: self.outcome,
                since_unix_ms: since,
                until_unix_ms: until,
                watch_id: None,
                sort: self.sort,
                descending: self.descending,
            },
            problem,
        )
    }

    /// Sorts by `column`; the same column again flips the direction.
    pub fn sort_by(&mut self, column: RunSort) {
        if self.sort == column {
            self.descending = !self.descending;
        } else {
            self.sort = column;
            self.descending = matches!(
                column,
                RunSort::Started | RunSort::Elapsed | RunSort::Attempts
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_day_is_inclusive_and_a_bad_date_is_named() {
        let f = HistoryFilters {
            since: "2026-12-01".into(),
            until: "2026-12-01".into(),
            ..HistoryFilters::default()
        };
        let (q, problem) = f.query();
        assert_eq!(problem, None);
        assert_eq!(
            q.until_unix_ms.zip(q.since_unix_ms).map(|(u, s)| u - s),
            Some(24 * 3600 * 1000)
        );
        let bad = HistoryFilters {
            until: "tomorrow".into(),
            ..HistoryFilters::default()
        };
        let (q, problem) = bad.query();
        assert_eq!(q.until_unix_ms, None);
        assert!(problem.is_some_and(|p| p.starts_with("To: `tomorrow`")));
    }
}
