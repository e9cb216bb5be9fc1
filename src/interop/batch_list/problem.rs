//! What can be wrong with one line (or entry) of a batch list, as typed kinds with their place.

use crate::interop::CurlError;
use crate::model::quote::quote_input;
use std::fmt;

/// Where a problem is in the list file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListPlace {
    /// A line of a JSON Lines, CSV or curl list (a CSV record or a `\`-continued curl command
    /// is named by its first line).
    Line {
        /// 1-based line number.
        line: u64,
        /// 1-based character column, where the parser gives one.
        column: Option<u64>,
    },
    /// An entry of a HAR file.
    Entry {
        /// 1-based position in `log.entries`.
        index: u64,
    },
    /// A field of a HAR entry (or the entry itself), at its line and column in the file:
    /// `FILE:3:45: entries[0].request.headers: …`.
    EntryField {
        /// 1-based position in `log.entries`.
        index: u64,
        /// The field path inside the entry (`request.headers`; empty for the entry itself).
        field: String,
        /// 1-based line of the field (its key) or the entry.
        line: u64,
        /// 1-based character column.
        column: u64,
    },
}

impl ListPlace {
    /// Line `line` without a column.
    pub fn line(line: u64) -> Self {
        Self::Line { line, column: None }
    }

    /// `message` about this place of `file`, the place first as editors jump to it
    /// ([`crate::model::file_message`]): `list.jsonl:4:17: …`, `list.curl:3: …`,
    /// `calls.har: entries[2]: …`, `calls.har:3:45: entries[0].request.headers: …`.
    pub fn located(&self, file: &str, message: impl fmt::Display) -> String {
        use crate::model::file_message;
        match self {
            Self::Line { line, column } => file_message(file, Some(*line), *column, message),
            Self::Entry { .. } => {
                file_message(file, None::<u64>, None, format_args!("{self}: {message}"))
            }
            Self::EntryField { line, column, .. } => file_message(
                file,
                Some(*line),
                Some(*column),
                format_args!("{self}: {message}"),
            ),
        }
    }

    /// The 1-based line (or entry index) the place is on, for sorting.
    pub fn ordinal(&self) -> u64 {
        match self {
            Self::Line { line, .. } => *line,
            Self::Entry { index } | Self::EntryField { index, .. } => *index,
        }
    }
}

impl fmt::Display for ListPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Line {
                line,
                column: Some(c),
            } => write!(f, "line {line}, column {c}"),
            Self::Line { line, column: None } => write!(f, "line {line}"),
            Self::Entry { index } => write!(f, "entries[{}]", index.saturating_sub(1)),
            Self::EntryField { index, field, .. } if field.is_empty() => {
                write!(f, "entries[{}]", index.saturating_sub(1))
            }
            Self::EntryField { index, field, .. } => {
                write!(f, "entries[{}].{field}", index.saturating_sub(1))
            }
        }
    }
}

/// What is wrong (the place is in [`ListProblem`]). Messages are lowercase and say what to
/// write instead where there is one answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListProblemKind {
    /// The bytes are not UTF-8 text.
    #[error("not UTF-8 text (save the list as UTF-8)")]
    NotUtf8,
    /// The bytes are UTF-16 text (they start with a UTF-16 byte-order mark).
    #[error("the list is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8")]
    Utf16,
    /// The list holds no request at all (only blank lines, comments or a header row).
    #[error("the list has no requests")]
    Empty,
    /// A JSON Lines line is not JSON, or not the shape of an item (`serde_json`'s words).
    #[error("{message}")]
    Json {
        /// What the JSON reader said, without its own position.
        message: String,
    },
    /// A JSON Lines item has a key the format does not know.
    #[error("unknown key `{}` (an item has: method, url, headers, body, name, profile)", quote_input(.key))]
    UnknownKey {
        /// The key as written.
        key: String,
    },
    /// The request is past one of the limits of [`crate::model::request_limits`].
    #[error(transparent)]
    Limit(#[from] crate::model::LimitProblem),
    /// A required field is absent or empty.
    #[error("`{field}` is missing or empty")]
    Missing {
        /// The field's name (`url`).
        field: &'static str,
    },
    /// The method is not an HTTP token (RFC 9110 §5.6.2).
    #[error("method `{}` is not a token (letters, digits and !#$%&'*+-.^_`|~ only)", quote_input(.method))]
    BadMethod {
        /// The method as written.
        method: String,
    },
    /// The URL is not an absolute `http://` or `https://` URL (the engine's own rule).
    #[error("{reason} (URL {})", quote_input(.url))]
    BadUrl {
        /// What is wrong with it.
        reason: String,
        /// The URL, secrets masked.
        url: String,
    },
    /// A header name is not a token, or its value holds a control character other than tab.
    #[error("header `{}`: {reason}", quote_input(.name))]
    BadHeader {
        /// The header name as written.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// The CSV header row names a column the format does not know.
    #[error("unknown column `{}` (columns: method, url, body, name, profile, header:NAME)", quote_input(.column))]
    UnknownColumn {
        /// The column as written.
        column: String,
    },
    /// A CSV `header:NAME` column whose NAME is not a header name.
    #[error("column `{}`: the header name is not a token (no spaces, colons or quotes)", quote_input(.column))]
    BadHeaderColumn {
        /// The column as written.
        column: String,
    },
    /// The CSV header row names a column twice.
    #[error("column `{}` is named twice in the header row", quote_input(.column))]
    RepeatedColumn {
        /// The column, lowercase.
        column: String,
    },
    /// The CSV header row has no `url` column.
    #[error(
        "the header row has no `url` column (columns: method, url, body, name, profile, header:NAME)"
    )]
    NoUrlColumn,
    /// A CSV record has another number of fields than the header row.
    #[error(
        "{}, but the header row has {expected}",
        crate::model::counted(*found as u64, "field", "fields")
    )]
    FieldCount {
        /// Fields in the header row.
        expected: usize,
        /// Fields in this record.
        found: usize,
    },
    /// A CSV field opened by a quote that is never closed: the reader took the rest of the file
    /// as that field's text, so the lines after it were not read as requests.
    #[error(
        "unterminated quote that opens at {line}:{column}: its field runs to the end of the file (close it with `\"`; write a quote inside a quoted field as `\"\"`)"
    )]
    UnterminatedQuote {
        /// 1-based line of the opening quote.
        line: u64,
        /// 1-based character column of the opening quote.
        column: u64,
    },
    /// The CSV reader refused the record.
    #[error("{message}")]
    Csv {
        /// What the CSV reader said.
        message: String,
    },
    /// A line of a curl list is not a curl command the importer reads.
    #[error("{0}")]
    Curl(CurlError),
    /// The HAR file could not be read (`serde_json`'s words, without its own position).
    #[error("not a HAR file: {message}")]
    NotHar {
        /// What is wrong.
        message: String,
    },
    /// One HAR entry is not the HAR shape (`serde_json`'s words); the other entries are read.
    #[error("not a HAR entry: {message}")]
    BadEntry {
        /// What is wrong.
        message: String,
    },
    /// An item names a profile that is neither built in nor in the user's library
    /// (`service::stream_batch_list` checks each name).
    #[error(
        "unknown profile `{}` (use a built-in id, see `retryscope profile builtins`, or the name of a profile in your library)",
        quote_input(.name)
    )]
    UnknownProfile {
        /// The name the item gives.
        name: String,
    },
    /// An item names a library profile whose file does not load (the sentence names the file,
    /// line and column of its first problem).
    #[error("{message}")]
    BrokenProfile {
        /// `library profile `x` does not load: FILE:LINE:COL: …`.
        message: String,
    },
    /// A body file (`-d @FILE`, `-F name=@FILE`) cannot be read; the sentence is the one `run`
    /// and `retryscope curl` give (`FILE: cannot read the file of -F f: REASON`).
    #[error("{message}")]
    BodyFile {
        /// What is wrong, naming the option and the file.
        message: String,
    },
    /// A secret's place holds the mask `***`: the file was exported with secrets masked
    /// (DESIGN.md §9), so the value to send is not in it.
    #[error(
        "{place} is `***`: the secret was masked when the file was exported; put the real value in the list (or export with secrets included)"
    )]
    MaskedSecret {
        /// Where: `header Authorization`, `query parameter key`, `the URL's password`.
        place: String,
    },
}

impl ListProblemKind {
    /// Whether the problem spoils the whole list, not one line: bytes that are not UTF-8, an
    /// empty list, a bad CSV header row, a CSV quote never closed (the lines after it were not
    /// read), a HAR file that does not parse. Skipping bad lines does not skip these.
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            Self::NotUtf8
                | Self::Utf16
                | Self::Empty
                | Self::UnknownColumn { .. }
                | Self::BadHeaderColumn { .. }
                | Self::RepeatedColumn { .. }
                | Self::NoUrlColumn
                | Self::UnterminatedQuote { .. }
                | Self::NotHar { .. }
        )
    }
}

/// One malformed line (or entry): where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListProblem {
    /// Where it is.
    pub place: ListPlace,
    /// What is wrong.
    pub kind: ListProblemKind,
}

impl ListProblem {
    /// A problem at `place`.
    pub fn new(place: ListPlace, kind: ListProblemKind) -> Self {
        Self { place, kind }
    }

    /// The problem as `FILE:LINE:COLUMN: message` (`FILE:LINE: …`, `FILE: entries[2]: …`), the
    /// form editors jump to.
    ///
    /// ```
    /// use retryscope::interop::batch_list::{ListPlace, ListProblem, ListProblemKind};
    /// let p = ListProblem::new(
    ///     ListPlace::Line { line: 4, column: Some(17) },
    ///     ListProblemKind::UnknownKey { key: "hedaers".into() },
    /// );
    /// assert!(p.located("list.jsonl").starts_with("list.jsonl:4:17: unknown key `hedaers`"));
    /// ```
    pub fn located(&self, file: &str) -> String {
        self.place.located(file, &self.kind)
    }
}

impl fmt::Display for ListProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.kind)
    }
}
