//! Batch lists in: a file of requests read into [`BatchRequest`]s, in one of four
//! formats ([`BatchListFormat`]): JSON Lines, CSV, curl commands (one per line) or HAR.
//!
//! One pass reads the whole list and keeps both the good items and every problem
//! ([`BatchList`]), each with its 1-based line (and column where the parser gives one), so
//! the caller can show them all, then refuse the list (the default) or queue the good items
//! only when the user asks ([`OnBadLines`]). No input panics; nothing is read from disk here
//! (the caller reads the bytes) and `{{variables}}` are kept as written.
//!
//! ```
//! use retryscope::interop::batch_list::{BatchListFormat, OnBadLines, parse_batch_list};
//! let text = "{\"url\": \"http://127.0.0.1:8080/status/200\"}\n{\"url\": 5}\n";
//! let list = parse_batch_list(text, BatchListFormat::JsonLines);
//! assert_eq!(list.items.len(), 1);
//! assert_eq!(list.problems[0].located("smoke.jsonl"), "smoke.jsonl:2:9: expected a string, found the number 5");
//! assert!(list.clone().accept(OnBadLines::Refuse).is_err());
//! assert_eq!(list.accept(OnBadLines::Skip).map(|items| items.len()), Ok(1));
//! ```

mod csv_list;
mod curl_list;
mod format;
mod har_list;
mod item_check;
mod json_lines;
mod problem;

pub use format::{BatchListFormat, UnknownListFormat};
pub use problem::{ListPlace, ListProblem, ListProblemKind};

use crate::model::BatchRequest;
use std::fmt;

/// A note about a line that was imported all the same (a curl option the draft cannot hold:
/// `-s (ignored: output option)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListNote {
    /// The line it is about.
    pub place: ListPlace,
    /// What was left out; never an option's value (it may be a secret).
    pub message: String,
}

/// What one pass over a list found: the good items in file order, every problem in file
/// order, and notes on imported lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BatchList {
    /// The items read without a problem; `source_line` is set on each.
    pub items: Vec<BatchRequest>,
    /// Every malformed line or entry (and file-level problems, see
    /// [`ListProblemKind::is_fatal`]), in file order.
    pub problems: Vec<ListProblem>,
    /// Notes on lines that were imported.
    pub notes: Vec<ListNote>,
}

/// What to do with a list that has malformed lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnBadLines {
    /// Queue nothing (the default: a half-imported list is easy to miss).
    #[default]
    Refuse,
    /// Queue the good items and leave the malformed lines out (the user said so).
    Skip,
}

/// Why a list was not accepted: its problems, all of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchListRefused {
    /// Every problem, in file order.
    pub problems: Vec<ListProblem>,
    /// How many items were good.
    pub good: usize,
    /// Whether skipping bad lines would not help: a problem spoils the whole list, or no
    /// item is good.
    pub fatal: bool,
}

impl fmt::Display for BatchListRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = self
            .problems
            .first()
            .map(ToString::to_string)
            .unwrap_or_default();
        if self.fatal {
            write!(f, "the list cannot be queued: {first}")
        } else {
            f.write_str(&self.not_queued(&format!("first: {first}")))
        }
    }
}

impl BatchListRefused {
    /// The refusal as the last line under a listing of every problem (the CLI prints each
    /// problem on its own line first): the same sentence as [`fmt::Display`] without repeating
    /// the first problem.
    ///
    /// ```
    /// use retryscope::interop::batch_list::{BatchListFormat, OnBadLines, parse_batch_list};
    /// let list = parse_batch_list("{\"url\": 5}\n{\"url\": \"http://127.0.0.1:9/b\"}\n", BatchListFormat::JsonLines);
    /// let refused = list.accept(OnBadLines::Refuse).unwrap_err();
    /// assert_eq!(
    ///     refused.below_listing(),
    ///     "1 malformed line (above); nothing was queued: fix it or skip bad lines to queue the other 1"
    /// );
    /// ```
    pub fn below_listing(&self) -> String {
        if self.fatal {
            "the list cannot be queued (see above)".to_owned()
        } else {
            self.not_queued("above")
        }
    }

    /// `3 malformed lines ({where_}); nothing was queued: fix them or skip bad lines to queue
    /// the other 5`.
    fn not_queued(&self, where_: &str) -> String {
        let n = self.problems.len();
        let (s, them) = if n == 1 { ("", "it") } else { ("s", "them") };
        format!(
            "{n} malformed line{s} ({where_}); nothing was queued: fix {them} or skip bad lines to queue the other {}",
            self.good
        )
    }
}

impl std::error::Error for BatchListRefused {}

impl BatchList {
    /// Whether the list has no problem at all.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// Whether a problem spoils the whole list ([`ListProblemKind::is_fatal`]).
    pub fn has_fatal_problem(&self) -> bool {
        self.problems.iter().any(|p| p.kind.is_fatal())
    }

    /// The items to queue: all of them when the list is clean; with problems, none
    /// ([`OnBadLines::Refuse`]) or the good ones ([`OnBadLines::Skip`]).
    ///
    /// # Errors
    /// [`BatchListRefused`] with every problem when the list has problems and `on_bad` is
    /// `Refuse`, or when skipping cannot help: a fatal problem, or no good item.
    pub fn accept(mut self, on_bad: OnBadLines) -> Result<Vec<BatchRequest>, BatchListRefused> {
        match self.refusal(self.items.len(), on_bad) {
            Some(refused) => Err(refused),
            None => Ok(self.items),
        }
    }

    /// [`Self::accept`]'s decision for a list whose `good` items went elsewhere
    /// ([`parse_batch_list_streaming`]): `None` to queue them, else the refusal, which takes
    /// the problems.
    pub fn refusal(&mut self, good: usize, on_bad: OnBadLines) -> Option<BatchListRefused> {
        if self.problems.is_empty() {
            return None;
        }
        let fatal = self.has_fatal_problem() || good == 0;
        if on_bad == OnBadLines::Skip && !fatal {
            return None;
        }
        Some(BatchListRefused {
            good,
            problems: std::mem::take(&mut self.problems),
            fatal,
        })
    }
}

/// What a sink says of an item it was handed, with whether the list has had a problem so far
/// (a list that will be refused need not be queued): `None` when it took it, else the problem
/// that makes its line a bad one (a body file that cannot be read, an unknown profile).
pub type ItemSink<'s> = dyn FnMut(BatchRequest, bool) -> Option<ListProblemKind> + 's;

/// A list being read: problems and notes gathered in a [`BatchList`], items kept in it or
/// handed one by one to a sink (so a long list is never held as requests).
pub(super) struct Feed<'s> {
    list: BatchList,
    format: BatchListFormat,
    sink: Option<&'s mut ItemSink<'s>>,
    good: usize,
}

impl Feed<'_> {
    /// Adds a good item: to the list, or to the sink, whose refusal becomes a problem at the
    /// item's line (or HAR entry).
    pub(super) fn push_item(&mut self, item: BatchRequest) {
        let Some(sink) = self.sink.as_mut() else {
            self.list.items.push(item);
            self.good += 1;
            return;
        };
        let ordinal = item.source_line.unwrap_or(0);
        match sink(item, !self.list.problems.is_empty()) {
            None => self.good += 1,
            Some(kind) => {
                let place = if self.format == BatchListFormat::Har {
                    ListPlace::Entry { index: ordinal }
                } else {
                    ListPlace::line(ordinal)
                };
                self.list.problems.push(ListProblem::new(place, kind));
            }
        }
    }
}

impl std::ops::Deref for Feed<'_> {
    type Target = BatchList;
    fn deref(&self) -> &BatchList {
        &self.list
    }
}

impl std::ops::DerefMut for Feed<'_> {
    fn deref_mut(&mut self) -> &mut BatchList {
        &mut self.list
    }
}

/// Reads list `text` in `format`: every line, in one pass. A leading byte-order mark is
/// ignored. A list with no request and no other problem gets one [`ListProblemKind::Empty`].
pub fn parse_batch_list(text: &str, format: BatchListFormat) -> BatchList {
    parse_into(text, format, None).0
}

/// [`parse_batch_list`] that hands each good item to `sink` as it is read instead of keeping
/// it (the list's `items` stay empty); returns the problems and notes, and how many items the
/// sink took. Memory holds one item at a time, whatever the list's length.
pub fn parse_batch_list_streaming<'s>(
    text: &str,
    format: BatchListFormat,
    sink: &'s mut ItemSink<'s>,
) -> (BatchList, usize) {
    parse_into(text, format, Some(sink))
}

fn parse_into<'s>(
    text: &str,
    format: BatchListFormat,
    sink: Option<&'s mut ItemSink<'s>>,
) -> (BatchList, usize) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut feed = Feed {
        list: BatchList::default(),
        format,
        sink,
        good: 0,
    };
    match format {
        BatchListFormat::JsonLines => json_lines::parse(text, &mut feed),
        BatchListFormat::Csv => csv_list::parse(text, &mut feed),
        BatchListFormat::Curl => curl_list::parse(text, &mut feed),
        BatchListFormat::Har => har_list::parse(text, &mut feed),
    }
    let Feed { mut list, good, .. } = feed;
    if good == 0 && list.problems.is_empty() {
        list.problems
            .push(ListProblem::new(ListPlace::line(1), ListProblemKind::Empty));
    }
    list.problems.sort_by_key(|p| p.place.ordinal());
    (list, good)
}

/// [`parse_batch_list`] for the bytes of a file: bytes that are not UTF-8 are one fatal
/// [`ListProblemKind::NotUtf8`] at the line and column of the first bad byte
/// ([`ListProblemKind::Utf16`] at 1:1 for a file that starts with a UTF-16 byte-order mark).
pub fn parse_batch_list_bytes(bytes: &[u8], format: BatchListFormat) -> BatchList {
    match crate::model::utf8_text(bytes) {
        Ok(text) => parse_batch_list(text, format),
        Err(e) => {
            let (line, column, kind) = if e.utf16 {
                (1, 1, ListProblemKind::Utf16)
            } else {
                (e.line as u64, e.column as u64, ListProblemKind::NotUtf8)
            };
            BatchList {
                problems: vec![ListProblem::new(
                    ListPlace::Line {
                        line,
                        column: Some(column),
                    },
                    kind,
                )],
                ..BatchList::default()
            }
        }
    }
}

/// The 1-based character column of 1-based byte column `byte_column` in `line` (parsers
/// count bytes; people count characters). Past the end: one past the last character.
fn char_column(line: &str, byte_column: usize) -> u64 {
    crate::model::char_column(line, 1, byte_column) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_list_is_refused_even_when_skipping() {
        for format in BatchListFormat::ALL {
            let text = if format == BatchListFormat::Har {
                r#"{"log": {"entries": []}}"#
            } else if format == BatchListFormat::Csv {
                "method,url\n"
            } else {
                "\n  \n"
            };
            let list = parse_batch_list(text, format);
            assert_eq!(list.problems.len(), 1, "{format}");
            assert_eq!(list.problems[0].kind, ListProblemKind::Empty, "{format}");
            let refused = list.accept(OnBadLines::Skip).expect_err("empty");
            assert!(refused.fatal);
            assert_eq!(
                refused.to_string(),
                "the list cannot be queued: line 1: the list has no requests"
            );
        }
    }

    #[test]
    fn refusal_names_the_count_and_the_first_problem() {
        let text = "curl http://127.0.0.1:8080/a\nnope\ncurl http://127.0.0.1:8080/b\nnope again\n";
        let list = parse_batch_list(text, BatchListFormat::Curl);
        let refused = list
            .clone()
            .accept(OnBadLines::Refuse)
            .expect_err("two bad");
        assert!(!refused.fatal);
        assert_eq!(
            refused.to_string(),
            "2 malformed lines (first: line 2: this is not a curl command: it should start with `curl`); nothing was queued: fix them or skip bad lines to queue the other 2"
        );
        let items = list.accept(OnBadLines::Skip).expect("skip");
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn bad_utf8_is_located() {
        let list = parse_batch_list_bytes(
            b"curl http://127.0.0.1/\ncurl h\xff\n",
            BatchListFormat::Curl,
        );
        assert_eq!(list.items, []);
        assert_eq!(
            list.problems[0].located("l.txt"),
            "l.txt:2:7: not UTF-8 text (save the list as UTF-8)"
        );
        assert!(list.has_fatal_problem());
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(
                "curl http://127.0.0.1/\n"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        let list = parse_batch_list_bytes(&utf16, BatchListFormat::Curl);
        assert_eq!(
            list.problems[0].located("l.txt"),
            "l.txt:1:1: the list is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8"
        );
        assert!(list.has_fatal_problem());
    }

    #[test]
    fn a_streamed_list_keeps_no_items_and_a_sink_refusal_is_a_bad_line() {
        let text = "curl http://127.0.0.1:8080/a\nnope\ncurl http://127.0.0.1:8080/b\n";
        let mut taken = Vec::new();
        let mut sink = |item: BatchRequest, bad_so_far: bool| {
            taken.push((item.request.url.clone(), bad_so_far));
            item.request
                .url
                .ends_with("/b")
                .then(|| ListProblemKind::UnknownProfile { name: "x".into() })
        };
        let (mut list, good) = parse_batch_list_streaming(text, BatchListFormat::Curl, &mut sink);
        assert_eq!(good, 1);
        assert!(list.items.is_empty(), "nothing held");
        assert_eq!(
            taken,
            [
                ("http://127.0.0.1:8080/a".to_owned(), false),
                ("http://127.0.0.1:8080/b".to_owned(), true)
            ]
        );
        let places: Vec<u64> = list.problems.iter().map(|p| p.place.ordinal()).collect();
        assert_eq!(places, [2, 3]);
        assert!(list.refusal(good, OnBadLines::Skip).is_none());
        let refused = list.refusal(good, OnBadLines::Refuse).expect("refused");
        assert_eq!((refused.good, refused.problems.len()), (1, 2));
    }

    #[test]
    fn byte_columns_become_character_columns() {
        assert_eq!(char_column("abc", 1), 1);
        assert_eq!(char_column("é☕x", 6), 3);
        // Inside a multi-byte character: the character's own column.
        assert_eq!(char_column("é☕x", 4), 2);
        assert_eq!(char_column("ab", 99), 3);
        assert_eq!(char_column("", 0), 1);
    }
}
