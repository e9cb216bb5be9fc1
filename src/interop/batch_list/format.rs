//! Which format a batch list is in: from the file's extension, or said by the user.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// The formats a batch list can be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BatchListFormat {
    /// One JSON object per line (`.jsonl`, `.ndjson`).
    JsonLines,
    /// A header row and one request per record (`.csv`).
    Csv,
    /// One curl command per line (`.curl`, `.sh`, `.txt`).
    Curl,
    /// Every entry of a HAR 1.2 file (`.har`).
    Har,
}

/// The extension (or `--format`) could not be matched to a format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnknownListFormat {
    /// The file's extension is not one of the list formats.
    #[error(
        "cannot tell the list format from the file name (use .jsonl, .ndjson, .csv, .curl, .sh, .txt or .har, or name the format: jsonl, csv, curl, har): {path}"
    )]
    Extension {
        /// The path as given.
        path: String,
    },
    /// A format name that is not one of [`BatchListFormat::NAMES`].
    #[error("unknown list format `{name}` (formats: jsonl, csv, curl, har)")]
    Name {
        /// The name as given.
        name: String,
    },
}

impl BatchListFormat {
    /// Every format, in the order the docs list them.
    pub const ALL: [BatchListFormat; 4] = [Self::JsonLines, Self::Csv, Self::Curl, Self::Har];

    /// The names [`FromStr`] accepts and [`Self::name`] gives (`ndjson` is also accepted).
    pub const NAMES: [&'static str; 4] = ["jsonl", "csv", "curl", "har"];

    /// The short name (`jsonl`, `csv`, `curl`, `har`).
    pub fn name(self) -> &'static str {
        match self {
            Self::JsonLines => "jsonl",
            Self::Csv => "csv",
            Self::Curl => "curl",
            Self::Har => "har",
        }
    }

    /// The format a file extension (any case) stands for.
    ///
    /// ```
    /// use retryscope::interop::batch_list::BatchListFormat;
    /// use std::path::Path;
    /// assert_eq!(BatchListFormat::from_path(Path::new("smoke.NDJSON")), Some(BatchListFormat::JsonLines));
    /// assert_eq!(BatchListFormat::from_path(Path::new("copied.txt")), Some(BatchListFormat::Curl));
    /// assert_eq!(BatchListFormat::from_path(Path::new("list.json")), None);
    /// ```
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "jsonl" | "ndjson" => Some(Self::JsonLines),
            "csv" => Some(Self::Csv),
            "curl" | "sh" | "txt" => Some(Self::Curl),
            "har" => Some(Self::Har),
            _ => None,
        }
    }

    /// `explicit` when the user named a format, else the one of `path`'s extension.
    ///
    /// # Errors
    /// [`UnknownListFormat::Extension`] when no format was named and the extension is not
    /// one of the list formats (`.json` is not: it may be a HAR or a JSON array).
    pub fn detect(path: &Path, explicit: Option<Self>) -> Result<Self, UnknownListFormat> {
        match explicit {
            Some(format) => Ok(format),
            None => Self::from_path(path).ok_or_else(|| UnknownListFormat::Extension {
                path: path.display().to_string(),
            }),
        }
    }
}

impl FromStr for BatchListFormat {
    type Err = UnknownListFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "jsonl" | "ndjson" | "json-lines" => Ok(Self::JsonLines),
            "csv" => Ok(Self::Csv),
            "curl" => Ok(Self::Curl),
            "har" => Ok(Self::Har),
            _ => Err(UnknownListFormat::Name { name: s.to_owned() }),
        }
    }
}

impl fmt::Display for BatchListFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_an_explicit_format_wins() {
        for format in BatchListFormat::ALL {
            assert_eq!(format.name().parse::<BatchListFormat>(), Ok(format));
        }
        assert!("xml".parse::<BatchListFormat>().is_err());
        let path = Path::new("requests.json");
        assert!(BatchListFormat::detect(path, None).is_err());
        assert_eq!(
            BatchListFormat::detect(path, Some(BatchListFormat::JsonLines)),
            Ok(BatchListFormat::JsonLines)
        );
        assert_eq!(
            BatchListFormat::detect(Path::new("/x/Saved.HAR"), None),
            Ok(BatchListFormat::Har)
        );
    }
}
