//! The recorded runs `report` and `whatif` read: the history's runs filtered by URL and start
//! time, oldest first, as the report's input ([`crate::report::ObservedRun`]).

use super::exit::CliError;
use super::history_cmd::DataDirArg;
use crate::service::report_file::{SelectedRuns, select_runs};
use crate::store::{self, HistoryStore, RunQuery};
use chrono::{DateTime, FixedOffset};
use clap::Args;

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
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true, value_parser = parse_when)]
    pub since: Option<DateTime<FixedOffset>>,
    /// Only runs started before WHEN (same forms as --since).
    #[arg(long, value_name = "WHEN", allow_hyphen_values = true, value_parser = parse_when)]
    pub until: Option<DateTime<FixedOffset>>,
    /// Where the database lives.
    #[command(flatten)]
    pub data_dir: DataDirArg,
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

    /// Opens the history this selection reads, with the query of its runs (a `--watch` id
    /// resolved to the watch's full id).
    ///
    /// # Errors
    /// Exit 2 when no run is recorded, for a blank or too long `--url`, or for times no run
    /// can match (`--since` in the future, `--until` not after `--since`); exit 1 when the
    /// database cannot be opened.
    pub fn open(&self) -> Result<(HistoryStore, RunQuery), CliError> {
        self.check_times(chrono::Local::now().fixed_offset())?;
        if let Some(text) = &self.url
            && (text.trim().is_empty() || text.len() > store::URL_FILTER_MAX_BYTES)
        {
            return Err(CliError::usage(format!(
                "--url must hold 1 to {} bytes of the URL the runs had",
                store::URL_FILTER_MAX_BYTES
            )));
        }
        let history = super::watch_cmd::open_history(&self.data_dir, "runs")?;
        let mut query = self.query();
        if let Some(watch) = &self.watch {
            let watch = history
                .watch(watch)
                .map_err(super::watch_cmd::watch_error)?;
            query.watch_id = Some(watch.id);
        }
        Ok((history, query))
    }

    /// Refuses `--since` after `now` and an `--until` not after `--since`, naming both times.
    fn check_times(&self, now: DateTime<FixedOffset>) -> Result<(), CliError> {
        let shown = |t: &DateTime<FixedOffset>| crate::report::time_text(t);
        if let Some(since) = &self.since
            && *since > now
        {
            return Err(CliError::usage(format!(
                "--since {} is in the future: no run can match yet",
                shown(since)
            )));
        }
        // Within a second: `--since 1h --until 1h` reads the clock twice.
        if let (Some(since), Some(until)) = (&self.since, &self.until)
            && *until - *since < chrono::Duration::seconds(1)
        {
            let midnight = |t: &DateTime<FixedOffset>| {
                t.with_timezone(&chrono::Local).time() == chrono::NaiveTime::MIN
            };
            let hint = if midnight(since) && midnight(until) {
                let day = since.with_timezone(&chrono::Local).date_naive();
                format!(
                    "a date is its local midnight: for the whole of {day} give --until {}",
                    day.succ_opt().unwrap_or(day)
                )
            } else {
                "a time ago counts back from now: --since 2h --until 1h".to_owned()
            };
            return Err(CliError::usage(format!(
                "--until {} is not after --since {}: no run can match ({hint})",
                shown(until),
                shown(since)
            )));
        }
        Ok(())
    }

    /// Reads the selected runs ([`select_runs`]).
    ///
    /// # Errors
    /// As [`Self::open`], and exit 2 when no run matches ([`no_match`]).
    pub fn load(&self) -> Result<SelectedRuns, CliError> {
        let (history, query) = self.open()?;
        let selected =
            select_runs(&history, &query).map_err(|e| CliError::failed(e.to_string()))?;
        if selected.runs.is_empty() {
            return Err(no_match());
        }
        Ok(selected)
    }
}

/// The error of a selection that matches no run (exit 2).
pub fn no_match() -> CliError {
    CliError::usage("no recorded run matches (see `retryscope history list`)")
}

pub use crate::service::watch_service::duration_ms;

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
    match duration_ms(t) {
        // At most 292 years ago (`duration_ms`'s limit), always a time chrono holds.
        Ok(ms) => {
            if let Some(at) = i64::try_from(ms)
                .ok()
                .and_then(|ms| now.checked_sub_signed(chrono::Duration::milliseconds(ms)))
            {
                return Ok(at.fixed_offset());
            }
        }
        Err(e) if e.starts_with("too long") => return Err(format!("a time ago {e}")),
        Err(_) => {}
    }
    if chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f").is_ok() {
        // A parsed time holds no control character: it is shown as typed.
        return Err(format!(
            "{t} has no time zone: add `Z` for UTC or an offset ({t}Z, {t}+01:00)"
        ));
    }
    Err(format!(
        "expected an RFC 3339 time (2026-12-05T10:00:00Z), a date (2026-12-05) or a time ago (8h, 90m, 2h30m, 7d), found {}",
        crate::model::quote::quote_input(t)
    ))
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
        let e = parse_when("2026-12-01T10:00:00").expect_err("no zone");
        assert_eq!(
            e,
            "2026-12-01T10:00:00 has no time zone: add `Z` for UTC or an offset (2026-12-01T10:00:00Z, 2026-12-01T10:00:00+01:00)"
        );
        let e = parse_when("yesterday").expect_err("garbage");
        assert!(e.contains("RFC 3339") && e.contains("yesterday"), "{e}");
        let e = parse_when("99999999999h").expect_err("too long");
        assert!(
            e.starts_with("a time ago too long: at most 2562047h"),
            "{e}"
        );
        assert!(parse_when("2562047h").is_ok(), "292 years ago");
    }

    #[test]
    fn times_no_run_can_match_are_named() {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            selection: super::RunSelection,
        }
        let selection = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("t").chain(args.iter().copied()))
                .expect("parses")
                .selection
        };
        let now = parse_when("2026-12-06T12:00:00Z").expect("now");
        let future = selection(&["--since", "2026-12-07T00:00:00Z"]).check_times(now);
        let e = future.expect_err("in the future");
        assert!(
            e.message.starts_with("--since 2026-12-07 "),
            "{}",
            e.message
        );
        assert!(
            e.message
                .ends_with("is in the future: no run can match yet")
        );
        let inverted = selection(&[
            "--since",
            "2026-12-06T10:00:00Z",
            "--until",
            "2026-12-06T09:00:00Z",
        ]);
        let e = inverted.check_times(now).expect_err("inverted");
        assert!(e.message.contains("is not after --since"), "{}", e.message);
        let same = selection(&["--since", "1h", "--until", "1h"]);
        let e = same
            .check_times(chrono::Local::now().fixed_offset())
            .expect_err("same time ago");
        assert!(
            e.message
                .ends_with("(a time ago counts back from now: --since 2h --until 1h)")
        );
        let one_day = selection(&["--since", "2026-12-06", "--until", "2026-12-06"]);
        let e = one_day.check_times(now).expect_err("one date twice");
        assert!(
            e.message
                .ends_with("(a date is its local midnight: for the whole of 2026-12-06 give --until 2026-12-07)"),
            "{}",
            e.message
        );
        let fine = selection(&[
            "--since",
            "2026-12-06T09:00:00Z",
            "--until",
            "2026-12-06T10:00:00Z",
        ]);
        assert!(fine.check_times(now).is_ok());
    }
}
