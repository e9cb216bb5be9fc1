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
    /// A format name that is not one of [`BatchListFormat::name`]s (or `ndjson`, `json-lines`).
    #[error("unknown list format `{name}` (formats: jsonl, csv, curl, har)")]
    Name {
        /// The name as given.
        name: String,
    },
}

/// Each format in declaration order: its name, the names [`FromStr`] reads (space-separated)
/// and the file extensions it is read from.
#[rustfmt::skip]
const FORMATS: [(BatchListFormat, &str, &str, &str); 4] = [
    (BatchListFormat::JsonLines, "jsonl", "jsonl ndjson json-lines", "jsonl ndjson"),
    (BatchListFormat::Csv, "csv", "csv", "csv"),
    (BatchListFormat::Curl, "curl", "curl", "curl sh txt"),
    (BatchListFormat::Har, "har", "har", "har"),
];

impl BatchListFormat {
    /// Every format, in the order the docs list them.
    pub const ALL: [BatchListFormat; 4] = [Self::JsonLines, Self::Csv, Self::Curl, Self::Har];

    /// The short name (`jsonl`, `csv`, `curl`, `har`).
    pub fn name(self) -> &'static str {
        FORMATS[self as usize].1
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
        FORMATS
            .iter()
            .find(|r| r.3.split(' ').any(|e| e == ext))
            .map(|r| r.0)
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
        let name = s.trim().to_ascii_lowercase();
        let found = FORMATS.iter().find(|r| r.2.split(' ').any(|n| n == name));
        found
            .map(|r| r.0)
            .ok_or_else(|| UnknownListFormat::Name { name: s.to_owned() })
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
        for (i, format) in BatchListFormat::ALL.into_iter().enumerate() {
            assert_eq!(format.name().parse::<BatchListFormat>(), Ok(format));
            assert_eq!(FORMATS[format as usize].0, format, "row {i}");
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
