//! HAR batch lists: every entry of a HAR 1.2 file (a browser's "Save all as HAR"), in file
//! order, read with the same rules as "Import HAR…" (pseudo-headers, Host, Connection and
//! Content-Length left out; redirects not followed, since an entry is one hop). Items are
//! named by their 1-based entry index.
//!
//! A HAR written by `retryscope run --har` has one entry per attempt (`_retryscope.attempt`):
//! an entry whose attempt follows the entry before it (attempt n + 1 after attempt n) is a
//! retry of the same run, not another request, so it is folded into the item of the run's
//! first entry, and a note on that item says how many were folded.

use super::item_check::check_spec;
use super::problem::{ListPlace, ListProblem, ListProblemKind};
use super::{BatchList, ListNote};
use crate::interop::{HarError, HarFile};
use crate::model::BatchRequest;

/// Reads every entry of HAR `text` into `list`.
pub(super) fn parse(text: &str, list: &mut super::Feed<'_>) {
    // Entry by entry: a bad entry is a bad line (skipped with the others when asked), not a
    // bad file.
    let (har, each) = match HarFile::parse_each(text) {
        Ok(read) => read,
        Err(e) => {
            list.problems.push(not_har(&e));
            return;
        }
    };
    // (entry ordinal of the run's first entry, retries folded into it, last attempt seen)
    let mut run: Option<(u64, u64, u64)> = None;
    let mut folded_runs: Vec<(u64, u64)> = Vec::new();
    // Bad entries: (ordinal, field path inside the entry, what), placed at the end.
    let mut bad: Vec<(u64, String, ListProblemKind)> = Vec::new();
    for (position, entry) in (0u64..).zip(each) {
        let ordinal = position + 1;
        match (entry.attempt, &mut run) {
            (Some(n), Some((_, folded, last))) if n > 1 && n == *last + 1 => {
                *folded += 1;
                *last = n;
                continue;
            }
            (attempt, _) => {
                if let Some((first, folded, _)) = run.take()
                    && folded > 0
                {
                    folded_runs.push((first, folded));
                }
                run = attempt.map(|n| (ordinal, 0, n));
            }
        }
        let field = entry.field;
        let read = entry
            .read
            .map_err(|message| ListProblemKind::BadEntry { message });
        let spec = match read.and_then(|index| {
            har.draft(index).map_err(|e| ListProblemKind::BadEntry {
                message: e.to_string(),
            })
        }) {
            Ok(draft) => draft.spec_as_written(),
            Err(kind) => {
                bad.push((ordinal, field, kind));
                continue;
            }
        };
        match check_spec(&spec) {
            Ok(()) => list.push_item(BatchRequest {
                name: None,
                request: spec,
                profile: None,
                source_line: Some(ordinal),
            }),
            Err(kind) => bad.push((ordinal, String::new(), kind)),
        }
    }
    if let Some((first, folded, _)) = run
        && folded > 0
    {
        folded_runs.push((first, folded));
    }
    placed(text, bad, list);
    for (first, folded) in folded_runs {
        list.notes.push(ListNote {
            place: ListPlace::Entry { index: first },
            message: format!(
                "{folded} retr{} of this run (_retryscope.attempt 2–{}) folded into its item: a retry is not another request",
                if folded == 1 { "y" } else { "ies" },
                folded + 1
            ),
        });
    }
}

/// Each bad entry as a problem at the line and column of its field (of the entry itself when
/// the field is not in the text), named `entries[N].FIELD`. The text is parsed for positions
/// only when there is a bad entry.
fn placed(text: &str, bad: Vec<(u64, String, ListProblemKind)>, list: &mut BatchList) {
    use crate::profile::{Positions, Step, parse_field_path};
    if bad.is_empty() {
        return;
    }
    let positions = Positions::of(text);
    for (ordinal, field, kind) in bad {
        let mut steps = vec![
            Step::Key("log".into()),
            Step::Key("entries".into()),
            Step::Index(usize::try_from(ordinal.saturating_sub(1)).unwrap_or(usize::MAX)),
        ];
        steps.extend(parse_field_path(&field));
        let at = positions.locate(&steps);
        list.problems.push(ListProblem::new(
            ListPlace::EntryField {
                index: ordinal,
                field,
                line: at.line as u64,
                column: at.column as u64,
            },
            kind,
        ));
    }
}

/// A file-level HAR error as a problem at its line and column.
fn not_har(e: &HarError) -> ListProblem {
    match e {
        HarError::Json {
            message,
            line,
            column,
        } => {
            let suffix = format!(" at line {line} column {column}");
            ListProblem::new(
                ListPlace::Line {
                    line: *line as u64,
                    column: (*column > 0).then_some(*column as u64),
                },
                ListProblemKind::NotHar {
                    message: message.strip_suffix(&suffix).unwrap_or(message).to_owned(),
                },
            )
        }
        HarError::NoEntry { .. } => ListProblem::new(
            ListPlace::line(1),
            ListProblemKind::NotHar {
                message: e.to_string(),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_becomes_an_item_and_bad_ones_are_named() {
        let text = r#"{"log": {"version": "1.2", "entries": [
            {"request": {"method": "GET", "url": "http://127.0.0.1:8080/a", "headers": [{"name": ":authority", "value": "x"}, {"name": "Accept", "value": "*/*"}]}},
            {"request": {"method": "POST", "url": "http://127.0.0.1:8080/b", "postData": {"mimeType": "application/json", "text": "{\"a\":1}"}}},
            {"request": {"method": "GET", "url": "chrome-extension://abc/x"}}
        ]}}"#;
        let list = super::super::parse_batch_list(text, super::super::BatchListFormat::Har);
        assert_eq!(list.items.len(), 2);
        assert_eq!(
            list.items[0].request.headers.len(),
            1,
            "pseudo-header left out"
        );
        assert_eq!(list.items[1].source_line, Some(2));
        assert_eq!(list.problems.len(), 1);
        assert_eq!(
            list.problems[0].place,
            ListPlace::EntryField {
                index: 3,
                field: String::new(),
                line: 4,
                column: 13
            }
        );
    }

    #[test]
    fn a_bad_field_is_named_by_its_path_at_its_line_and_column() {
        let text = "{\"log\": {\"version\": \"1.2\", \"entries\": [\n  {\"request\": {\"method\": \"GET\", \"url\": \"http://127.0.0.1:8080/a\",\n    \"headers\": \"nope\"}}\n]}}";
        let list = super::super::parse_batch_list(text, super::super::BatchListFormat::Har);
        assert_eq!(
            list.problems[0].located("bad.har"),
            "bad.har:3:5: entries[0].request.headers: not a HAR entry: expected a list, found the string \"nope\""
        );
    }

    #[test]
    fn a_bad_entry_is_a_problem_of_its_own_named_by_its_place() {
        let text = r#"{"log": {"entries": [
            {"request": {"method": "GET", "url": "http://127.0.0.1:8080/a"}},
            {"request": 5},
            {"request": {"method": "GET", "url": {"x": 1}}},
            {"request": {"method": "GET", "url": "http://127.0.0.1:8080/d"}}
        ]}}"#;
        let list = super::super::parse_batch_list(text, super::super::BatchListFormat::Har);
        assert_eq!(list.items.len(), 2);
        assert_eq!(
            list.items[1].source_line,
            Some(4),
            "numbered as in the file"
        );
        let shown: Vec<String> = list.problems.iter().map(|p| p.located("x.har")).collect();
        assert_eq!(
            shown,
            [
                "x.har:3:14: entries[1].request: not a HAR entry: expected a HAR request (an object with `method` and `url`), found the number 5",
                "x.har:4:43: entries[2].request.url: not a HAR entry: expected a string, found an object",
            ]
        );
        assert!(list.problems.iter().all(|p| !p.kind.is_fatal()));
        assert_eq!(
            list.accept(crate::interop::batch_list::OnBadLines::Skip)
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn a_broken_file_is_one_fatal_problem_with_its_position() {
        let list = super::super::parse_batch_list(
            "{\"log\": {\"entries\": [\n  {\"request\": 5}]",
            super::super::BatchListFormat::Har,
        );
        assert_eq!(list.items, []);
        assert_eq!(list.problems.len(), 1);
        assert!(list.problems[0].kind.is_fatal());
        assert!(matches!(
            list.problems[0].place,
            ListPlace::Line {
                line: 2,
                column: Some(_)
            }
        ));
        let shown = list.problems[0].to_string();
        assert!(shown.starts_with("line 2, column "), "{shown}");
        assert!(
            shown.contains(": not a HAR file: the text ends inside"),
            "{shown}"
        );
        assert!(!shown.contains("at line"), "position said once: {shown}");
    }
}
