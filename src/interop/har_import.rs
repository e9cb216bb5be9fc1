//! Reading a HAR 1.2 file (a browser's network panel "Save all as HAR"): the list of its
//! entries, and one entry's request as a composer draft.

use crate::model::secrets::mask_url;
use crate::model::{BodyKind, KeyValue, RequestDraft, standard_method_case};
use serde::Deserialize;

/// Why a HAR file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HarError {
    /// Not JSON, or not the HAR shape.
    #[error("not a HAR file: {message} at line {line}, column {column}")]
    Json {
        /// What `serde_json` said.
        message: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// The index is past the entries.
    #[error("the HAR file has no entry {index} (it has {count})")]
    NoEntry {
        /// 0-based index asked for.
        index: usize,
        /// How many entries there are.
        count: usize,
    },
}

// `expecting` keeps Rust type names out of the messages users read ("expected struct
// Request" would name our code, not their file).
#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "a HAR file (an object with a `log` object)")]
struct Har {
    log: Log,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "the HAR `log` object (with an `entries` list)")]
struct Log {
    #[serde(default)]
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "a HAR entry (an object with a `request` object)")]
struct Entry {
    request: Request,
    response: Option<Response>,
    /// What Retryscope wrote beside the entry, when it did.
    #[serde(default, rename = "_retryscope")]
    ours: Option<Ours>,
}

/// The part of `_retryscope` the import reads: the redirect hops the run followed (its entry
/// holds the first request and the final response).
#[derive(Debug, Clone, Default, Deserialize)]
struct Ours {
    #[serde(default)]
    redirects: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "a HAR request (an object with `method` and `url`)")]
struct Request {
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<NameValue>,
    #[serde(default, rename = "postData")]
    post_data: Option<PostData>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "a header (an object with `name` and `value`)")]
struct NameValue {
    name: String,
    #[serde(default)]
    value: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "the request's `postData` object")]
struct PostData {
    #[serde(default, rename = "mimeType")]
    mime_type: String,
    text: Option<String>,
    #[serde(default)]
    params: Vec<Param>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "a form parameter (an object with `name` and `value`)")]
struct Param {
    name: String,
    value: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "a HAR response (an object with `status`)")]
struct Response {
    #[serde(default)]
    status: i64,
}

/// The file's outline only, each entry kept as JSON to be read on its own
/// ([`HarFile::parse_each`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "a HAR file (an object with a `log` object)")]
struct LooseHar {
    log: LooseLog,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(expecting = "the HAR `log` object (with an `entries` list)")]
struct LooseLog {
    #[serde(default)]
    entries: Vec<serde_json::Value>,
}

/// One entry as the picker lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarEntrySummary {
    /// 0-based position in the file.
    pub index: usize,
    /// Request method.
    pub method: String,
    /// Request URL, secrets masked (DESIGN.md §9).
    pub url: String,
    /// Response status; `None` when the entry has no response (0 in the file: failed or
    /// blocked).
    pub status: Option<u16>,
}

/// A parsed HAR file.
#[derive(Debug, Clone)]
pub struct HarFile {
    entries: Vec<Entry>,
}

/// Headers a browser records that the engine sets itself (or that are not headers at all).
fn skipped_header(name: &str) -> bool {
    name.starts_with(':')
        || ["content-length", "host", "connection"]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
}

/// One entry of [`HarFile::parse_each`], in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EachEntry {
    /// Its position among the good entries (for [`HarFile::draft`]), or what is wrong with it.
    pub read: Result<usize, String>,
    /// Where in the entry what is wrong is: a field path such as `request.headers` (empty for
    /// the entry itself, or when it was read).
    pub field: String,
    /// Its `_retryscope.attempt` (1 = the run's first attempt), when Retryscope wrote it.
    pub attempt: Option<u64>,
}

impl HarFile {
    /// Parses HAR JSON `text`; only what a request needs is read (unknown fields ignored).
    ///
    /// # Errors
    /// [`HarError::Json`] with the line and column.
    pub fn parse(text: &str) -> Result<Self, HarError> {
        let har: Har = serde_json::from_str(text).map_err(|e| HarError::Json {
            message: crate::model::plain_json_error(&e),
            line: e.line(),
            column: crate::model::char_column(text, e.line(), e.column()),
        })?;
        Ok(Self {
            entries: har.log.entries,
        })
    }

    /// Parses HAR JSON `text` entry by entry (a batch list): the file must be JSON with a `log`
    /// object, but an entry that is not the HAR shape spoils only itself. Returns the file
    /// holding the good entries and, for every entry of `log.entries` in file order, its
    /// position in that file (for [`Self::draft`]) or what is wrong with it (`serde_json`'s
    /// words, no position: it is the entry's), with the entry's `_retryscope.attempt` when it
    /// has one (a HAR written by `retryscope run --har`: one entry per attempt).
    ///
    /// # Errors
    /// [`HarError::Json`] with the line and column when the file is not JSON or has no `log`.
    pub fn parse_each(text: &str) -> Result<(Self, Vec<EachEntry>), HarError> {
        let har: LooseHar = serde_json::from_str(text).map_err(|e| HarError::Json {
            message: crate::model::plain_json_error(&e),
            line: e.line(),
            column: crate::model::char_column(text, e.line(), e.column()),
        })?;
        let mut entries = Vec::new();
        let each = har
            .log
            .entries
            .into_iter()
            .map(|value| {
                let attempt = value
                    .get("_retryscope")
                    .and_then(|r| r.get("attempt"))
                    .and_then(serde_json::Value::as_u64);
                let mut field = String::new();
                let read = serde_path_to_error::deserialize::<_, Entry>(value)
                    .map_err(|e| {
                        let path = e.path().to_string();
                        if path != "." {
                            field = path;
                        }
                        crate::model::plain_parse_message(&e.inner().to_string())
                    })
                    .map(|entry| {
                        entries.push(entry);
                        entries.len() - 1
                    });
                EachEntry {
                    read,
                    field,
                    attempt,
                }
            })
            .collect();
        Ok((Self { entries }, each))
    }

    /// Every entry: method, masked URL, status.
    pub fn summaries(&self) -> Vec<HarEntrySummary> {
        self.entries
            .iter()
            .enumerate()
            .map(|(index, e)| HarEntrySummary {
                index,
                method: e.request.method.clone(),
                url: mask_url(&e.request.url),
                status: e
                    .response
                    .as_ref()
                    .and_then(|r| u16::try_from(r.status).ok())
                    .filter(|s| *s != 0),
            })
            .collect()
    }

    /// Entry `index`'s request as a draft: method, URL (with its query), headers (HTTP/2
    /// pseudo-headers, Host, Connection and Content-Length left out; the engine sets them) and
    /// body. JSON bodies go to the JSON editor, others to text with their MIME type, as in
    /// the curl import. Redirects are not followed (a browser's HAR entry is one hop), except
    /// for an entry Retryscope wrote after following redirects (`_retryscope.redirects`), whose
    /// request is the first hop: it follows them again.
    ///
    /// # Errors
    /// [`HarError::NoEntry`] for an index past the end.
    pub fn draft(&self, index: usize) -> Result<RequestDraft, HarError> {
        let entry = self.entries.get(index).ok_or(HarError::NoEntry {
            index,
            count: self.entries.len(),
        })?;
        let req = &entry.request;
        let mut draft = RequestDraft {
            method: standard_method_case(req.method.trim()),
            url: req.url.clone(),
            follow_redirects: entry.ours.as_ref().is_some_and(|o| !o.redirects.is_empty()),
            ..RequestDraft::default()
        };
        draft.headers = req
            .headers
            .iter()
            .filter(|h| !skipped_header(&h.name))
            .map(|h| KeyValue::new(h.name.clone(), h.value.clone()))
            .collect();
        if let Some(post) = &req.post_data {
            let text = post.text.clone().unwrap_or_else(|| {
                form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(
                        post.params
                            .iter()
                            .map(|p| (p.name.as_str(), p.value.as_deref().unwrap_or(""))),
                    )
                    .finish()
            });
            let mime = post.mime_type.trim();
            let is_json_type = mime.eq_ignore_ascii_case("application/json");
            if mime.to_ascii_lowercase().contains("json") {
                draft.body.kind = BodyKind::Json;
                draft.body.json = text;
                if is_json_type {
                    draft
                        .headers
                        .retain(|h| !h.name.eq_ignore_ascii_case("content-type"));
                }
            } else {
                draft.body.kind = BodyKind::Text;
                draft.body.text = text;
                if !mime.is_empty() && !mime.eq_ignore_ascii_case("text/plain; charset=utf-8") {
                    mime.clone_into(&mut draft.body.content_type);
                }
                draft
                    .headers
                    .retain(|h| !h.name.eq_ignore_ascii_case("content-type"));
            }
        }
        let keys: Vec<usize> = draft
            .headers
            .iter()
            .enumerate()
            .filter(|(_, h)| h.name.eq_ignore_ascii_case("idempotency-key"))
            .map(|(i, _)| i)
            .collect();
        if let [only] = keys[..] {
            let row = draft.headers.remove(only);
            draft.idempotency_enabled = true;
            draft.idempotency_key = row.value;
        }
        Ok(draft)
    }
}
