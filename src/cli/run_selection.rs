//! The recorded runs `report` and `whatif` read: the history's runs filtered by URL and start
//! time, oldest first, as the report's input ([`crate::report::ObservedRun`]).

#![allow(
    clippy::doc_markdown,
    reason = "clap prints these doc comments as --help text, where backticks would show"
)]

use super::exit::CliError;
use super::history_cmd::DataDirArg;
use crate::model::RequestSpec;
use crate::report::{ObservedRun, observed_run};
use crate::store::{self, RunQuery};
use chrono::{DateTime, FixedOffset};
use clap::Args;
use std::collections::BTreeMap;

/// Runs read from the database per query.
const PAGE: u32 = 1000;

/// Which recorded runs to read.
#[derive(Debug, Clone, Args)]
pub struct RunSelection {
    /// Only runs whose URL contains TEXT (case-insensitive, as `history list --url`).
    #[arg(long, value_name = "TEXT")]
    pub url: Option<String>,
    /// Only the runs of watch ID (full, or a unique start of it; see `retryscope watch list`).
    #[arg(long, value_name = "ID", conflicts_with = "url")]
    pub watch: Option<String>,
    /// Only runs started at or after WHEN: an RFC 3339 time (2026-12-05T10:00:00Z), a date
    /// (2026-12-05, local midnight) or a time ago (8h, 90m, 30s, 2h30m, 7d).
    #[arg(long, value_name = "WHEN", value_parser = parse_when)]
    pub since: Option<DateTime<FixedOffset>>,
    /// Only runs started before WHEN (same forms as --since).
    #[arg(long, value_name = "WHEN", value_parser = parse_when)]
    pub until: Option<DateTime<FixedOffset>>,
    /// Where the database lives.
    #[command(flatten)]
    pub data_dir: DataDirArg,
}

/// The selected runs, with what the newest of them sent and ran under.
#[derive(Debug, Default)]
pub struct SelectedRuns {
    /// Oldest first.
    pub runs: Vec<ObservedRun>,
    /// The newest run's request (masked as recorded).
    pub request: Option<RequestSpec>,
    /// The newest run's profile (its recorded JSON).
    pub profile: Option<std::sync::Arc<serde_json::Value>>,
}

impl RunSelection {
    /// The history query of this selection (oldest first).
    pub fn query(&self) -> RunQuery {
        RunQuery {
            url_contains: self.url.clone().unwrap_or_default(),
            since_unix_ms: self.since.map(|t| t.timestamp_millis()),
            until_unix_ms: self.until.map(|t| t.timestamp_millis()),
            ..RunQuery::default()
        }
    }

    /// The selection as the report shows it (`url`, `since`, `until`).
    pub fn described(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        if let Some(watch) = &self.watch {
            out.insert("watch".to_owned(), watch.trim().to_owned());
        }
        if let Some(url) = &self.url {
            out.insert("url".to_owned(), crate::model::secrets::mask_url(url));
        }
        for (key, at) in [("since", self.since), ("until", self.until)] {
            if let Some(at) = at {
                out.insert(
                    key.to_owned(),
                    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
                );
            }
        }
        out
    }

    /// Reads the selected runs.
    ///
    /// # Errors
    /// Exit 2 when no run is recorded or none matches, or for a blank or too long `--url`;
    /// exit 1 when the database cannot be read.
    pub fn load(&self) -> Result<SelectedRuns, CliError> {
        if let Some(text) = &self.url
            && (text.trim().is_empty() || text.len() > store::URL_FILTER_MAX_BYTES)
        {
            return Err(CliError::usage(format!(
                "--url must hold 1 to {} bytes of the URL the runs had",
                store::URL_FILTER_MAX_BYTES
            )));
        }
        let history = super::watch_cmd::open_history(&self.data_dir, "runs")?;
        let failed = |e: store::HistoryError| CliError::failed(e.to_string());
        let query = self.query();
        let ids = if let Some(watch) = &self.watch {
            let watch = history
                .watch(watch)
                .map_err(super::watch_cmd::watch_error)?;
            history
                .watch_run_ids(&watch.id, query.since_unix_ms, query.until_unix_ms)
                .map_err(failed)?
        } else {
            let mut ids = Vec::new();
            loop {
                let page = history
                    .page_runs(&query, ids.len() as u64, PAGE)
                    .map_err(failed)?;
                let last = page.len() < PAGE as usize;
                ids.extend(page.into_iter().map(|summary| summary.id));
                if last {
                    break ids;
                }
            }
        };
        let mut selected = SelectedRuns::default();
        for id in &ids {
            // A run deleted between the list and this read is skipped.
            if let Some(stored) = history.run(id).map_err(failed)? {
                selected.runs.push(observed_run(&stored));
                selected.request = Some(stored.run.request);
                selected.profile = Some(stored.run.profile);
            }
        }
        if selected.runs.is_empty() {
            let db = self.data_dir.resolve()?.join(store::HISTORY_FILE);
            return Err(CliError::usage(format!(
                "no recorded run matches (see `retryscope history list`): {}",
                db.display()
            )));
        }
        Ok(selected)
    }
}

impl RunSelection {
    /// The timelines of the runs `ids` (the report's informative runs), each drawn from its
    /// stored fold under the title `titles` gives it; a run deleted meanwhile is left out.
    ///
    /// # Errors
    /// Exit 1 when the database cannot be read.
    pub fn timelines<'a>(
        &self,
        picks: impl IntoIterator<Item = (&'a str, String)>,
    ) -> Result<crate::report::Timelines, CliError> {
        let failed = |e: store::HistoryError| CliError::failed(e.to_string());
        let history = super::watch_cmd::open_history(&self.data_dir, "runs")?;
        let mut out = crate::report::Timelines::new();
        for (id, title) in picks {
            if let Some(stored) = history.run(id).map_err(failed)? {
                out.insert(
                    id.to_owned(),
                    crate::report::timeline_plot(&stored.fold, &title),
                );
            }
        }
        Ok(out)
    }
}

/// A duration as typed: Go-style (`200ms`, `30s`, `1m30s`, `8h`) or whole days (`7d`), in ms.
pub fn duration_ms(text: &str) -> Option<u64> {
    let t = text.trim();
    let days = t
        .strip_suffix('d')
        .and_then(|n| n.parse::<u64>().ok())
        .and_then(|d| d.checked_mul(86_400_000));
    days.or_else(|| crate::interop::retry_formats::durations::parse_go(t).ok())
}

/// `--since` / `--until`: an RFC 3339 time, a date (local midnight) or a Go-style duration ago.
///
/// # Errors
/// A message naming the three forms.
pub fn parse_when(text: &str) -> Result<DateTime<FixedOffset>, String> {
    let t = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(t) {
        return Ok(at);
    }
    let now = chrono::Local::now();
    if let Ok(day) = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d")
        && let Some(midnight) = day
            .and_hms_opt(0, 0, 0)
            .and_then(|m| m.and_local_timezone(chrono::Local).earliest())
    {
        return Ok(midnight.fixed_offset());
    }
    duration_ms(t)
        .and_then(|ms| now.checked_sub_signed(chrono::Duration::milliseconds(i64::try_from(ms).ok()?)))
        .map(|at| at.fixed_offset())
        .ok_or_else(|| {
            format!(
                "expected an RFC 3339 time (2026-12-05T10:00:00Z), a date (2026-12-05) or a time ago (8h, 90m, 2h30m, 7d), found {}",
                crate::model::quote::quote_input(t)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::parse_when;

    #[test]
    fn when_takes_a_time_a_date_or_a_time_ago() {
        let at = parse_when("2026-12-05T10:00:00Z").expect("rfc 3339");
        assert_eq!(at.timestamp(), 1_796_464_800);
        assert!(parse_when("2026-12-05").is_ok());
        let ago = parse_when("2h").expect("ago");
        let expected = chrono::Local::now() - chrono::Duration::hours(2);
        assert!((ago.timestamp() - expected.timestamp()).abs() <= 2);
        let e = parse_when("yesterday").expect_err("garbage");
        assert!(e.contains("RFC 3339") && e.contains("yesterday"), "{e}");
    }
}
