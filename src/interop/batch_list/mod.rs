//! Batch lists in (issue 9): a file of requests read into [`BatchRequest`]s, in one of four
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
        let n = self.problems.len();
        let first = self
            .problems
            .first()
            .map(ToString::to_string)
            .unwrap_or_default();
        if self.fatal {
            write!(f, "the list cannot be queued: {first}")
        } else {
            write!(
                f,
                "{n} malformed line{} (first: {first}); nothing was queued: fix {} or skip bad lines to queue the other {}",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" },
                self.good
            )
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
        let n = self.problems.len();
        if self.fatal {
            "the list cannot be queued (see above)".to_owned()
        } else {
            format!(
                "{n} malformed line{} (above); nothing was queued: fix {} or skip bad lines to queue the other {}",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" },
                self.good
            )
        }
    }
}

impl std::error::Error for BatchListRefused {}

impl BatchList {
    /// Moves every item whose profile name `known` does not know from the items to the
    /// problems (a [`ListProblemKind::UnknownProfile`] at its line, or its entry in a HAR list
    /// read as `format`), so such lines are counted, refused and skipped as the malformed ones
    /// are. Each distinct name is asked once.
    ///
    /// ```
    /// use retryscope::interop::batch_list::{BatchListFormat, OnBadLines, parse_batch_list};
    /// let text = "{\"url\": \"http://127.0.0.1:9/a\", \"profile\": \"nope\"}\n{\"url\": 5}\n{\"url\": \"http://127.0.0.1:9/c\"}\n";
    /// let mut list = parse_batch_list(text, BatchListFormat::JsonLines);
    /// list.refuse_unknown_profiles(BatchListFormat::JsonLines, |name| name == "aws-standard");
    /// let refused = list.accept(OnBadLines::Refuse).unwrap_err();
    /// assert!(refused.to_string().starts_with("2 malformed lines (first: line 1: unknown profile `nope`"));
    /// ```
    pub fn refuse_unknown_profiles(
        &mut self,
        format: BatchListFormat,
        known: impl FnMut(&str) -> bool,
    ) {
        self.refuse_unknown_profiles_saying(format, known, |_| None);
    }

    /// [`Self::refuse_unknown_profiles`], where `why` may give the sentence for a name that is
    /// not known (a library file of that name that does not load, with its load error): such
    /// an item's problem is a [`ListProblemKind::BrokenProfile`] saying it.
    pub fn refuse_unknown_profiles_saying(
        &mut self,
        format: BatchListFormat,
        mut known: impl FnMut(&str) -> bool,
        why: impl Fn(&str) -> Option<String>,
    ) {
        let mut answers: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
        self.refuse_items(format, |item| {
            let name = item.profile.as_deref()?;
            let is_known = if let Some(k) = answers.get(name) {
                *k
            } else {
                let k = known(name);
                answers.insert(name.to_owned(), k);
                k
            };
            if is_known {
                return None;
            }
            Some(why(name).map_or_else(
                || ListProblemKind::UnknownProfile {
                    name: name.to_owned(),
                },
                |message| ListProblemKind::BrokenProfile { message },
            ))
        });
    }

    /// Moves every item for which `problem` gives a [`ListProblemKind`] from the items to the
    /// problems (at its line, or its entry in a HAR list read as `format`), so such lines are
    /// counted, refused and skipped as the malformed ones are. `problem` may change the items
    /// it keeps (the caller resolves body file paths against the list's folder).
    pub fn refuse_items(
        &mut self,
        format: BatchListFormat,
        mut problem: impl FnMut(&mut BatchRequest) -> Option<ListProblemKind>,
    ) {
        let mut kept = Vec::with_capacity(self.items.len());
        let mut moved = false;
        for mut item in std::mem::take(&mut self.items) {
            let Some(kind) = problem(&mut item) else {
                kept.push(item);
                continue;
            };
            let ordinal = item.source_line.unwrap_or(0);
            let place = if format == BatchListFormat::Har {
                ListPlace::Entry { index: ordinal }
            } else {
                ListPlace::line(ordinal)
            };
            self.problems.push(ListProblem::new(place, kind));
            moved = true;
        }
        self.items = kept;
        if moved {
            self.problems.sort_by_key(|p| p.place.ordinal());
        }
    }

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
    pub fn accept(self, on_bad: OnBadLines) -> Result<Vec<BatchRequest>, BatchListRefused> {
        if self.problems.is_empty() {
            return Ok(self.items);
        }
        let fatal = self.has_fatal_problem() || self.items.is_empty();
        if on_bad == OnBadLines::Skip && !fatal {
            return Ok(self.items);
        }
        Err(BatchListRefused {
            good: self.items.len(),
            problems: self.problems,
            fatal,
        })
    }
}

/// Reads list `text` in `format`: every line, in one pass. A leading byte-order mark is
/// ignored. A list with no request and no other problem gets one [`ListProblemKind::Empty`].
pub fn parse_batch_list(text: &str, format: BatchListFormat) -> BatchList {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut list = BatchList::default();
    match format {
        BatchListFormat::JsonLines => json_lines::parse(text, &mut list),
        BatchListFormat::Csv => csv_list::parse(text, &mut list),
        BatchListFormat::Curl => curl_list::parse(text, &mut list),
        BatchListFormat::Har => har_list::parse(text, &mut list),
    }
    if list.items.is_empty() && list.problems.is_empty() {
        list.problems
            .push(ListProblem::new(ListPlace::line(1), ListProblemKind::Empty));
    }
    list.problems.sort_by_key(|p| p.place.ordinal());
    list
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
    let end = byte_column.saturating_sub(1).min(line.len());
    let chars = (0..=end)
        .rev()
        .find_map(|at| line.get(..at))
        .map_or(0, |s| s.chars().count());
    chars as u64 + 1
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
    fn byte_columns_become_character_columns() {
        assert_eq!(char_column("abc", 1), 1);
        assert_eq!(char_column("é☕x", 6), 3);
        // Inside a multi-byte character: the character's own column.
        assert_eq!(char_column("é☕x", 4), 2);
        assert_eq!(char_column("ab", 99), 3);
        assert_eq!(char_column("", 0), 1);
    }
}
