//! HAR batch lists: every entry of a HAR 1.2 file (a browser's "Save all as HAR"), in file
//! order, read with the same rules as "Import HAR…" (pseudo-headers, Host, Connection and
//! Content-Length left out; redirects not followed, since an entry is one hop). Items are
//! named by their 1-based entry index.

use super::BatchList;
use super::item_check::check_spec;
use super::problem::{ListPlace, ListProblem, ListProblemKind};
use crate::interop::{HarError, HarFile};
use crate::model::BatchRequest;

/// Reads every entry of HAR `text` into `list`.
pub(super) fn parse(text: &str, list: &mut BatchList) {
    let har = match HarFile::parse(text) {
        Ok(har) => har,
        Err(e) => {
            list.problems.push(not_har(&e));
            return;
        }
    };
    for index in 0..har.summaries().len() {
        let ordinal = index as u64 + 1;
        let place = ListPlace::Entry { index: ordinal };
        let spec = match har.draft(index) {
            Ok(draft) => draft.spec_as_written(),
            Err(e) => {
                list.problems.push(ListProblem::new(
                    place,
                    ListProblemKind::NotHar {
                        message: e.to_string(),
                    },
                ));
                continue;
            }
        };
        match check_spec(&spec) {
            Ok(()) => list.items.push(BatchRequest {
                name: None,
                request: spec,
                profile: None,
                source_line: Some(ordinal),
            }),
            Err(kind) => list.problems.push(ListProblem::new(place, kind)),
        }
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
        let mut list = BatchList::default();
        parse(text, &mut list);
        assert_eq!(list.items.len(), 2);
        assert_eq!(
            list.items[0].request.headers.len(),
            1,
            "pseudo-header left out"
        );
        assert_eq!(list.items[1].source_line, Some(2));
        assert_eq!(list.problems.len(), 1);
        assert_eq!(list.problems[0].place, ListPlace::Entry { index: 3 });
    }

    #[test]
    fn a_broken_file_is_one_fatal_problem_with_its_position() {
        let mut list = BatchList::default();
        parse(
            "{\"log\": {\"entries\": [\n  {\"request\": 5}]}}",
            &mut list,
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
            shown.contains(": not a HAR file: invalid type: integer `5`"),
            "{shown}"
        );
        assert!(!shown.contains("at line"), "position said once: {shown}");
    }
}
