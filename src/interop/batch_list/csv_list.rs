//! CSV batch lists (RFC 4180, read with the `csv` crate): a header row, then one request per
//! record. Quoted fields may hold commas, quotes (`""`) and line breaks.
//!
//! Columns, named in the header row in any order and case: `url` (required), `method` (empty:
//! `GET`), `body` (sent as text; its Content-Type from a `header:Content-Type` column, else
//! `text/plain; charset=utf-8`), `name`, `profile`, and `header:NAME` for each header to send
//! (an empty cell sends no such header). Other columns are problems of the header row, which
//! make the whole list refused. Records whose cells are all empty are skipped.

use super::BatchList;
use super::item_check::{check_spec, is_token};
use super::problem::{ListPlace, ListProblem, ListProblemKind};
use crate::model::{BatchRequest, Body, KeyValue, RequestSpec, standard_method_case};

/// What a header-row column holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Column {
    Method,
    Url,
    Body,
    Name,
    Profile,
    Header(String),
    /// A column with a problem (reported once, for the header row); its cells are ignored.
    Ignored,
}

/// Finds the 1-based line where a record starts. The `csv` crate's own positions point at
/// the end of the previous record (its line feed, blank lines after it) and count lines from
/// there, so they are off by one or more; this counts line feeds up to the record's first
/// character instead, moving forward only (records come in order), so a whole file costs one
/// pass.
struct LineCounter<'a> {
    text: &'a [u8],
    /// Byte offset counted up to.
    at: usize,
    /// The line `at` is on.
    line: u64,
}

impl LineCounter<'_> {
    /// The line of the first character at or after `byte` that is not a line break.
    fn line_of(&mut self, byte: u64) -> u64 {
        let mut start = usize::try_from(byte)
            .unwrap_or(usize::MAX)
            .min(self.text.len());
        while start < self.text.len() && matches!(self.text[start], b'\r' | b'\n') {
            start += 1;
        }
        if start > self.at {
            // Pieces between line feeds, minus one: the line feeds.
            self.line += self.text[self.at..start].split(|b| *b == b'\n').count() as u64 - 1;
            self.at = start;
        }
        self.line
    }
}

/// Reads `text` into `list`.
pub(super) fn parse(text: &str, list: &mut super::Feed<'_>) {
    let mut lines = LineCounter {
        text: text.as_bytes(),
        at: 0,
        line: 1,
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut record = csv::StringRecord::new();
    let mut columns: Option<Vec<Column>> = None;
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return,
            Ok(true) => {
                let line = line_of(&record, &mut lines);
                // A quote left open reads the rest of the file into one field.
                if let Some(kind) = unclosed_quote(text, &record, reader.position().byte()) {
                    list.problems
                        .push(ListProblem::new(ListPlace::line(line), kind));
                    return;
                }
                if is_blank(&record) {
                    continue;
                }
                if let Some(columns) = &columns {
                    match read_record(&record, columns, line) {
                        Ok(item) => list.push_item(item),
                        Err(kind) => list
                            .problems
                            .push(ListProblem::new(ListPlace::line(line), kind)),
                    }
                    continue;
                }
                let header = read_header(&record, line, list);
                if !header.contains(&Column::Url) {
                    list.problems.push(ListProblem::new(
                        ListPlace::line(line),
                        ListProblemKind::NoUrlColumn,
                    ));
                    return;
                }
                columns = Some(header);
            }
            Err(e) => {
                list.problems.push(csv_problem(&e, &mut lines));
                if columns.is_none() {
                    return;
                }
            }
        }
    }
}

/// [`ListProblemKind::UnterminatedQuote`] when `record`, read up to byte `end` of `text`, ends the
/// text inside a quoted field: the `csv` crate then takes everything after the opening quote
/// as that field's text, without a word.
fn unclosed_quote(text: &str, record: &csv::StringRecord, end: u64) -> Option<ListProblemKind> {
    if usize::try_from(end).ok()? < text.len() {
        return None;
    }
    let start = usize::try_from(record.position()?.byte()).ok()?;
    let opened = open_quote(text.as_bytes().get(start..)?)? + start;
    let before = &text[..opened];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Some(ListProblemKind::UnterminatedQuote {
        line: before.matches('\n').count() as u64 + 1,
        column: before[line_start..].chars().count() as u64 + 1,
    })
}

/// The offset in `bytes` (a record's start to the end of the text) of a quote that opens a
/// field and is never closed, read as the `csv` crate reads RFC 4180: a quote opens a field
/// only as its first character, and `""` inside a quoted field is a quote.
fn open_quote(bytes: &[u8]) -> Option<usize> {
    #[derive(Clone, Copy)]
    enum At {
        FieldStart,
        Unquoted,
        Quoted(usize),
        QuoteInQuoted(usize),
    }
    let mut at = At::FieldStart;
    for (i, b) in bytes.iter().enumerate() {
        at = match (at, *b) {
            (At::FieldStart, b'"') => At::Quoted(i),
            (At::Quoted(open), b'"') => At::QuoteInQuoted(open),
            (At::Quoted(open), _) | (At::QuoteInQuoted(open), b'"') => At::Quoted(open),
            (_, b',' | b'\n' | b'\r') => At::FieldStart,
            _ => At::Unquoted,
        };
    }
    match at {
        At::Quoted(open) => Some(open),
        _ => None,
    }
}

/// Whether every cell of `record` is empty or spaces (a blank line, `,,`).
fn is_blank(record: &csv::StringRecord) -> bool {
    record.iter().all(|cell| cell.trim().is_empty())
}

/// The 1-based line a record starts on.
fn line_of(record: &csv::StringRecord, lines: &mut LineCounter<'_>) -> u64 {
    record.position().map_or(1, |p| lines.line_of(p.byte()))
}

fn csv_problem(e: &csv::Error, lines: &mut LineCounter<'_>) -> ListProblem {
    let line = e.position().map_or(1, |p| lines.line_of(p.byte()));
    ListProblem::new(
        ListPlace::line(line),
        ListProblemKind::Csv {
            message: e.to_string().to_lowercase(),
        },
    )
}

/// The columns of the header row; its problems go to `list`.
fn read_header(header: &csv::StringRecord, line: u64, list: &mut BatchList) -> Vec<Column> {
    let mut columns: Vec<Column> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut problem = |kind| {
        list.problems
            .push(ListProblem::new(ListPlace::line(line), kind));
    };
    for cell in header {
        let raw = cell.trim().trim_start_matches('\u{feff}');
        let lower = raw.to_ascii_lowercase();
        let column = match lower.as_str() {
            "method" => Column::Method,
            "url" => Column::Url,
            "body" => Column::Body,
            "name" => Column::Name,
            "profile" => Column::Profile,
            _ if lower.starts_with("header:") => {
                let name = raw["header:".len()..].trim();
                if is_token(name) {
                    Column::Header(name.to_owned())
                } else {
                    problem(ListProblemKind::BadHeaderColumn {
                        column: raw.to_owned(),
                    });
                    Column::Ignored
                }
            }
            _ => {
                problem(ListProblemKind::UnknownColumn {
                    column: raw.to_owned(),
                });
                Column::Ignored
            }
        };
        if column != Column::Ignored {
            // Header names compare without case, as HTTP does.
            let key = match &column {
                Column::Header(name) => format!("header:{}", name.to_ascii_lowercase()),
                _ => lower.clone(),
            };
            if seen.contains(&key) {
                problem(ListProblemKind::RepeatedColumn { column: key });
                columns.push(Column::Ignored);
                continue;
            }
            seen.push(key);
        }
        columns.push(column);
    }
    columns
}

/// One record as an item.
fn read_record(
    record: &csv::StringRecord,
    columns: &[Column],
    line: u64,
) -> Result<BatchRequest, ListProblemKind> {
    if record.len() != columns.len() {
        return Err(ListProblemKind::FieldCount {
            expected: columns.len(),
            found: record.len(),
        });
    }
    let mut spec = RequestSpec::get("");
    let mut name = None;
    let mut profile = None;
    for (column, cell) in columns.iter().zip(record) {
        match column {
            Column::Method if !cell.trim().is_empty() => {
                spec.method = standard_method_case(cell.trim());
            }
            Column::Url => cell.trim().clone_into(&mut spec.url),
            Column::Body if !cell.is_empty() => {
                spec.body = Body::Text {
                    text: cell.to_owned(),
                    content_type: None,
                };
            }
            Column::Name if !cell.trim().is_empty() => name = Some(cell.to_owned()),
            Column::Profile if !cell.trim().is_empty() => profile = Some(cell.trim().to_owned()),
            Column::Header(header) if !cell.is_empty() => {
                spec.headers.push(KeyValue::new(header.clone(), cell));
            }
            _ => {}
        }
    }
    check_spec(&spec)?;
    Ok(BatchRequest {
        name,
        request: spec,
        profile,
        source_line: Some(line),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> BatchList {
        super::super::parse_batch_list(text, super::super::BatchListFormat::Csv)
    }

    #[test]
    fn quoted_fields_headers_and_lines() {
        let list = read(concat!(
            "Method,URL,body,name,header:Content-Type,header:X-Trace\r\n",
            "post,http://127.0.0.1:8080/a,\"{\"\"a\"\": 1,\n\"\"b\"\": 2}\",\"two, lines\",application/json,\n",
            "\n",
            ",http://127.0.0.1:8080/b,,,,t-1\n",
        ));
        assert_eq!(list.problems, []);
        assert_eq!(list.items.len(), 2);
        let a = &list.items[0];
        assert_eq!(a.request.method, "POST");
        assert!(
            matches!(&a.request.body, Body::Text { text, .. } if text == "{\"a\": 1,\n\"b\": 2}")
        );
        assert_eq!(a.name.as_deref(), Some("two, lines"));
        assert_eq!(
            a.request.headers,
            [KeyValue::new("Content-Type", "application/json")]
        );
        assert_eq!(a.source_line, Some(2));
        let b = &list.items[1];
        assert_eq!(b.request.method, "GET");
        assert_eq!(b.request.headers, [KeyValue::new("X-Trace", "t-1")]);
        assert_eq!(b.request.body, Body::None);
        // The quoted body spans lines 2-3; the blank line 4 is skipped.
        assert_eq!(b.source_line, Some(5));
    }

    #[test]
    fn header_row_and_record_problems_are_all_reported() {
        let list = read(concat!(
            "url,method,colour,URL,header:Bad Name\n",
            "http://127.0.0.1/a,GET,red,x,y\n",
            "http://127.0.0.1/b,GET\n",
            "ftp://127.0.0.1/c,GET,red,x,y\n",
            "http://127.0.0.1/d\n",
        ));
        let shown: Vec<String> = list.problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "line 1: unknown column `colour` (columns: method, url, body, name, profile, header:NAME)",
                "line 1: column `url` is named twice in the header row",
                "line 1: column `header:Bad Name`: the header name is not a token (no spaces, colons or quotes)",
                "line 3: 2 fields, but the header row has 5",
                "line 4: scheme `ftp` is not supported; use http:// or https:// (URL ftp://127.0.0.1/c)",
                "line 5: 1 field, but the header row has 5",
            ]
        );
        assert_eq!(list.items.len(), 1);
        assert!(list.problems[..3].iter().all(|p| p.kind.is_fatal()));
    }

    #[test]
    fn an_unterminated_quote_is_named_where_it_opens() {
        let shown = |text: &str| -> Vec<String> {
            read(text)
                .problems
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        let list = read("url,method\n\"http://127.0.0.1/a,GET\nhttp://127.0.0.1/b,GET\n");
        assert_eq!(list.items, []);
        assert_eq!(
            shown("url,method\n\"http://127.0.0.1/a,GET\nhttp://127.0.0.1/b,GET\n"),
            [
                "line 2: unterminated quote that opens at 2:1: its field runs to the end of the file (close it with `\"`; write a quote inside a quoted field as `\"\"`)"
            ]
        );
        assert!(
            list.problems[0].kind.is_fatal(),
            "the lines after it were not read"
        );
        // In a later field of a later record, after a multi-line quoted field that is closed.
        let problems = shown(concat!(
            "url,name\n",
            "http://127.0.0.1/a,\"two\nlines\"\n",
            "http://127.0.0.1/é,\"open\n",
            "more\n",
        ));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("line 4: unterminated quote that opens at 4:20:"),
            "{problems:?}"
        );
        // In the header row.
        assert!(
            shown("\"url,method\nhttp://127.0.0.1/a,GET\n")[0]
                .starts_with("line 1: unterminated quote that opens at 1:1:")
        );
        // Closed quotes, `\"\"` inside them and a quote inside an unquoted field are fine.
        let list =
            read("url,name\nhttp://127.0.0.1/a,\"say \"\"hi\"\"\"\nhttp://127.0.0.1/b,5\"\n");
        assert_eq!(list.problems, []);
        assert_eq!(list.items.len(), 2);
    }

    #[test]
    fn no_url_column_stops_at_the_header_row() {
        let list = read("method,body\nGET,x\n");
        assert_eq!(list.items, []);
        assert_eq!(list.problems.len(), 1);
        assert_eq!(list.problems[0].kind, ListProblemKind::NoUrlColumn);
    }
}
