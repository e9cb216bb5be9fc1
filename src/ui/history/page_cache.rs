//! The window of list rows the History panel holds: the rows of one query from one offset,
//! the query's total, and which page to ask for next so the rows on screen are covered.

use crate::store::{RunQuery, RunSummary};

/// Rows asked for per page; the page starts a quarter of a page above the first row on screen.
pub const PAGE_ROWS: u32 = 200;

/// The rows held and what was last asked for.
#[derive(Debug, Default)]
pub struct PageCache {
    query: Option<RunQuery>,
    offset: u64,
    rows: Vec<RunSummary>,
    total: Option<u64>,
    db_bytes: Option<u64>,
    /// The last page asked for (answered or not).
    asked: Option<(RunQuery, u64)>,
    /// False from [`Self::invalidate`] until the next answer: the rows held may be out of date.
    fresh: bool,
}

impl PageCache {
    /// Forgets what was asked, so the next [`Self::wanted`] asks again (the rows stay shown
    /// until the answer comes).
    pub fn invalidate(&mut self) {
        self.asked = None;
        self.fresh = false;
    }

    /// Takes a page answer; answers to an older query, or from before [`Self::invalidate`],
    /// are dropped.
    pub fn accept(
        &mut self,
        query: RunQuery,
        offset: u64,
        total: u64,
        rows: Vec<RunSummary>,
        db_bytes: u64,
    ) {
        // Nothing asked since an invalidation (the answer predates it), or asked for another
        // query: the answer is stale.
        if self.asked.as_ref().is_none_or(|(q, _)| *q != query) {
            return;
        }
        self.query = Some(query);
        self.offset = offset;
        self.rows = rows;
        self.total = Some(total);
        self.db_bytes = Some(db_bytes);
        self.fresh = true;
    }

    /// Runs the current query selects (the last answer's, while a new one is asked).
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// The database size of the last answer, bytes.
    pub fn db_bytes(&self) -> Option<u64> {
        self.db_bytes
    }

    /// Row `index` of the list, when held.
    pub fn row(&self, index: u64) -> Option<&RunSummary> {
        let i = usize::try_from(index.checked_sub(self.offset)?).ok()?;
        self.rows.get(i)
    }

    /// The page (offset) to ask for so rows `visible` of `query` are held, or `None` when
    /// they are, or that page was already asked for. Marks it asked.
    pub fn wanted(&mut self, query: &RunQuery, visible: std::ops::Range<u64>) -> Option<u64> {
        let same_query = self.query.as_ref() == Some(query);
        let end = self
            .total
            .filter(|_| same_query)
            .map_or(visible.end, |t| visible.end.min(t));
        let held_end = self.offset + self.rows.len() as u64;
        let covered = self.fresh && same_query && visible.start >= self.offset && end <= held_end;
        if covered {
            return None;
        }
        let offset = if same_query || self.asked.as_ref().is_some_and(|(q, _)| q == query) {
            visible.start.saturating_sub(u64::from(PAGE_ROWS / 4))
        } else {
            // A new filter: start from the top of the list.
            0
        };
        if self.asked.as_ref() == Some(&(query.clone(), offset)) {
            return None;
        }
        self.asked = Some((query.clone(), offset));
        Some(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: u64) -> RunSummary {
        RunSummary {
            id: format!("{i:08}"),
            started_at: chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00+00:00")
                .expect("rfc3339"),
            method: "GET".into(),
            url: format!("http://127.0.0.1/{i}"),
            outcome: None,
            last_status: None,
            attempts: 1,
            elapsed_ms: None,
            profile_name: "p".into(),
        }
    }

    #[test]
    fn asks_once_per_page_and_again_only_when_scrolled_past_it() {
        let q = RunQuery::default();
        let mut cache = PageCache::default();
        assert_eq!(cache.wanted(&q, 0..20), Some(0));
        assert_eq!(cache.wanted(&q, 0..20), None, "already asked");
        cache.accept(q.clone(), 0, 100_000, (0..200).map(row).collect(), 1);
        assert_eq!(cache.wanted(&q, 150..170), None, "held");
        assert_eq!(cache.row(150).map(|r| r.id.as_str()), Some("00000150"));
        assert_eq!(cache.wanted(&q, 190..210), Some(140));
        assert_eq!(cache.row(250), None);
        // An answer to an older query is dropped.
        let other = RunQuery {
            url_contains: "x".into(),
            ..RunQuery::default()
        };
        assert_eq!(cache.wanted(&other, 190..210), Some(0), "new filter: top");
        cache.accept(q, 140, 100_000, Vec::new(), 1);
        assert_eq!(
            cache.row(0).map(|r| r.id.as_str()),
            Some("00000000"),
            "the stale answer was dropped"
        );
        assert_eq!(cache.total(), Some(100_000));
        // After an invalidation an answer already on its way is stale: asked again.
        cache.invalidate();
        cache.accept(RunQuery::default(), 0, 7, Vec::new(), 1);
        assert_eq!(cache.total(), Some(100_000));
        // Asked where the list is scrolled to, not from the top.
        assert_eq!(cache.wanted(&RunQuery::default(), 20..40), Some(0));
        assert_eq!(cache.wanted(&RunQuery::default(), 120..140), Some(70));
    }
}
