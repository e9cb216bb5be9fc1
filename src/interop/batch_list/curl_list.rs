//! Curl batch lists: one curl command per line, read with the same parser as "Import curl…"
//! and `retryscope curl`. Blank lines and lines starting with `#` are skipped; a line ending
//! in `\` (bash) or `^` (Windows cmd) continues on the next, so a browser's multi-line
//! "Copy as curl" can be pasted as is. A continued command is named by its first line.
//!
//! Options the draft cannot hold (`-s`, `--compressed`, …) are notes, not problems: the
//! request is queued without them, as the single-command import does.

use super::ListNote;
use super::item_check::check_spec;
use super::problem::{ListPlace, ListProblem, ListProblemKind};
use crate::interop::{CurlError, parse_curl};
use crate::model::BatchRequest;

/// Whether `line` continues on the next one: an odd count of trailing backslashes (an even
/// count is escaped backslashes), or a trailing cmd `^`.
fn continues(line: &str) -> bool {
    let trimmed = line.trim_end();
    let backslashes = trimmed.len() - trimmed.trim_end_matches('\\').len();
    backslashes % 2 == 1 || trimmed.ends_with('^')
}

/// Reads every command of `text` into `list`.
pub(super) fn parse(text: &str, list: &mut super::Feed<'_>) {
    let mut lines = text.split('\n').enumerate();
    while let Some((index, raw)) = lines.next() {
        let first = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = first.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let line_no = index as u64 + 1;
        let mut command = first.to_owned();
        let mut last = first;
        while continues(last) {
            let Some((_, next)) = lines.next() else { break };
            let next = next.strip_suffix('\r').unwrap_or(next);
            command.push('\n');
            command.push_str(next);
            last = next;
        }
        match read_command(&command, line_no) {
            Ok((item, notes)) => {
                list.push_item(item);
                list.notes.extend(notes.into_iter().map(|message| ListNote {
                    place: ListPlace::line(line_no),
                    message,
                }));
            }
            Err(problem) => list.problems.push(problem),
        }
    }
}

/// One command (its lines joined with `\n`) as an item and its notes.
fn read_command(command: &str, line_no: u64) -> Result<(BatchRequest, Vec<String>), ListProblem> {
    let import = parse_curl(command).map_err(|e| {
        let column = match &e {
            CurlError::Quote { offset } => quote_column(command, *offset),
            _ => None,
        };
        ListProblem::new(
            ListPlace::Line {
                line: line_no,
                column,
            },
            ListProblemKind::Curl(e),
        )
    })?;
    let spec = import.draft.spec_as_written();
    check_spec(&spec).map_err(|kind| ListProblem::new(ListPlace::line(line_no), kind))?;
    Ok((
        BatchRequest {
            name: None,
            request: spec,
            profile: None,
            source_line: Some(line_no),
        },
        import
            .unsupported
            .iter()
            .cloned()
            .chain(import.output_notes())
            .collect(),
    ))
}

/// The 1-based column of an unclosed quote at character `offset` of the trimmed command, when
/// the parser read the line as written (one line, no `$'…'` or cmd quoting to rewrite first).
fn quote_column(command: &str, offset: usize) -> Option<u64> {
    if command.contains(['\n', '^']) || command.contains("$'") {
        return None;
    }
    let leading = command.chars().take_while(|c| c.is_whitespace()).count();
    u64::try_from(leading + offset + 1).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Body;

    fn read(text: &str) -> super::super::BatchList {
        super::super::parse_batch_list(text, super::super::BatchListFormat::Curl)
    }

    #[test]
    fn a_curl_exe_line_is_a_command() {
        let list = read(
            "curl.exe \"http://127.0.0.1:8080/a\" -H \"X: 1\"\nC:\\Windows\\System32\\curl.exe http://127.0.0.1:8080/b\n",
        );
        assert_eq!(list.problems, []);
        let urls: Vec<_> = list.items.iter().map(|i| i.request.url.as_str()).collect();
        assert_eq!(urls, ["http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b"]);
    }

    #[test]
    fn comments_continuations_and_notes() {
        let list = read(concat!(
            "# smoke list\n",
            "curl http://127.0.0.1:8080/a\n",
            "\n",
            "curl -X POST http://127.0.0.1:8080/b \\\n",
            "  -H 'Content-Type: application/json' \\\n",
            "  -d '{\"a\":1}' --compressed\n",
            "  # indented comment\n",
            "curl -u alice:s3cret http://127.0.0.1:8080/c\r\n",
        ));
        assert_eq!(list.problems, []);
        let lines: Vec<_> = list.items.iter().map(|i| i.source_line).collect();
        assert_eq!(lines, [Some(2), Some(4), Some(8)]);
        let b = &list.items[1].request;
        assert_eq!(b.method, "POST");
        assert!(
            matches!(&b.body, Body::Json { text } | Body::Text { text, .. } if text == "{\"a\":1}")
        );
        assert_eq!(list.notes.len(), 1);
        assert_eq!(list.notes[0].place, ListPlace::line(4));
        let c = &list.items[2].request;
        assert!(
            c.headers
                .iter()
                .any(|h| h.name == "Authorization" && h.value.starts_with("Basic ") && h.secret),
            "{:?}",
            c.headers
        );
    }

    #[test]
    fn bad_commands_are_named_by_line_and_column() {
        let list = read(concat!(
            "curl http://127.0.0.1:8080/ok\n",
            "wget http://127.0.0.1:8080/x\n",
            "  curl -d 'open http://127.0.0.1:8080/x\n",
            "curl -H\n",
            "curl http://127.0.0.1:8080/a --next http://127.0.0.1:8080/b\n",
            "curl 'http://{{host}}/x' -X 'G T'\n",
        ));
        assert_eq!(list.items.len(), 1);
        let shown: Vec<String> = list.problems.iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 5, "{shown:?}");
        assert_eq!(
            shown[0],
            "line 2: this is not a curl command: it should start with `curl`"
        );
        assert!(
            shown[1].starts_with("line 3, column 11: a quote opened"),
            "{}",
            shown[1]
        );
        assert!(shown[2].starts_with("line 4: `-H`"), "{}", shown[2]);
        assert!(shown[3].starts_with("line 5: `--next`"), "{}", shown[3]);
        // The curl parser's own method check, with its word position.
        assert!(
            shown[4].starts_with("line 6: `-X` (word 2)"),
            "{}",
            shown[4]
        );
    }
}
