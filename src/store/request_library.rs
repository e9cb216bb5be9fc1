//! The request library: one JSON file per saved request in `<data dir>/requests/<id>.json`.
//! Secret values are blanked before anything is written.

use super::atomic_write::write_atomic;
use super::store_error::StoreError;
use crate::model::{RequestDraft, SAVED_REQUEST_FORMAT, SavedRequest};
use std::path::{Path, PathBuf};

/// The saved requests found in the folder, and the files that could not be read.
#[derive(Debug, Default)]
pub struct LoadedRequests {
    /// Sorted by name (case-insensitive), then id.
    pub requests: Vec<SavedRequest>,
    /// One message per unreadable file (it is left on disk untouched).
    pub problems: Vec<String>,
}

/// The library folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestLibrary {
    dir: PathBuf,
}

impl RequestLibrary {
    /// The library in `<data_dir>/requests`.
    pub fn in_data_dir(data_dir: &Path) -> Self {
        Self::new(data_dir.join("requests"))
    }

    /// The library in `dir` (created on the first save).
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of request `id`.
    pub fn path_of(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Every saved request; a missing folder is an empty library.
    pub fn list(&self) -> LoadedRequests {
        let mut out = LoadedRequests::default();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return out,
            Err(source) => {
                out.problems.push(
                    StoreError::Io {
                        action: "list",
                        path: self.dir.clone(),
                        source,
                    }
                    .to_string(),
                );
                return out;
            }
        };
        for path in entries.filter_map(Result::ok).map(|e| e.path()) {
            if path.extension().is_some_and(|e| e == "json") {
                match read_request(&path) {
                    Ok(r) => out.requests.push(r),
                    Err(e) => out.problems.push(e.to_string()),
                }
            }
        }
        out.requests.sort_by(|a, b| {
            a.name
                .to_lowercase()
                .cmp(&b.name.to_lowercase())
                .then_with(|| a.id.cmp(&b.id))
        });
        out
    }

    /// Request `id`.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when there is no such file, else read/parse errors.
    pub fn load(&self, id: &str) -> Result<SavedRequest, StoreError> {
        check_id(id)?;
        let path = self.path_of(id);
        if !path.exists() {
            return Err(StoreError::NotFound {
                what: format!("saved request {id}"),
                dir: self.dir.clone(),
            });
        }
        read_request(&path)
    }

    /// Saves `request` as `<id>.json` (atomically), its secrets blanked whatever it holds.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for an id that is not a plain file name; [`StoreError::Write`].
    pub fn save(&self, request: &SavedRequest) -> Result<PathBuf, StoreError> {
        check_id(&request.id)?;
        let mut clean = request.clone();
        SAVED_REQUEST_FORMAT.clone_into(&mut clean.format);
        clean.request = request.request.without_secrets();
        let mut text = serde_json::to_string_pretty(&clean).map_err(|e| {
            StoreError::Invalid(format!("cannot encode request \"{}\": {e}", request.name))
        })?;
        text.push('\n');
        let path = self.path_of(&request.id);
        write_atomic(&path, text.as_bytes()).map_err(|source| StoreError::Write {
            what: format!("request \"{}\"", request.name),
            source,
        })?;
        Ok(path)
    }

    /// Saves `draft` as a new request named `name`, with a fresh id.
    ///
    /// # Errors
    /// As [`Self::save`].
    pub fn save_new(&self, name: &str, draft: &RequestDraft) -> Result<SavedRequest, StoreError> {
        let saved = SavedRequest::new(uuid::Uuid::new_v4().to_string(), name, draft);
        self.save(&saved)?;
        Ok(saved)
    }

    /// Renames request `id` to `name`.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a blank name; load and save errors.
    pub fn rename(&self, id: &str, name: &str) -> Result<SavedRequest, StoreError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(StoreError::Invalid(
                "a request name cannot be blank; type a name".into(),
            ));
        }
        let mut saved = self.load(id)?;
        name.clone_into(&mut saved.name);
        self.save(&saved)?;
        Ok(saved)
    }

    /// Saves a copy of request `id` named `<name> (copy)` with a fresh id.
    ///
    /// # Errors
    /// Load and save errors.
    pub fn duplicate(&self, id: &str) -> Result<SavedRequest, StoreError> {
        let original = self.load(id)?;
        self.save_new(&format!("{} (copy)", original.name), &original.request)
    }

    /// Deletes request `id`; deleting a missing one is not an error.
    ///
    /// # Errors
    /// [`StoreError::Io`] when the file exists but cannot be removed.
    pub fn delete(&self, id: &str) -> Result<(), StoreError> {
        check_id(id)?;
        let path = self.path_of(id);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(StoreError::Io {
                action: "delete",
                path,
                source,
            }),
        }
    }
}

/// Ids are file names: letters, digits and `-` only, so no id can reach outside the folder.
fn check_id(id: &str) -> Result<(), StoreError> {
    if !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        Ok(())
    } else {
        Err(StoreError::Invalid(format!(
            "`{id}` is not a saved-request id (letters, digits and - only)"
        )))
    }
}

fn read_request(path: &Path) -> Result<SavedRequest, StoreError> {
    let parse = |message: String| StoreError::Parse {
        path: path.to_owned(),
        message,
    };
    let text = super::input_file::read_input_text(path, super::input_file::SAVED_FILE)
        .map_err(|e| parse(format!("cannot read it: {e}")))?;
    let saved: SavedRequest = serde_json::from_str(&text).map_err(|e| parse(e.to_string()))?;
    if saved.format != SAVED_REQUEST_FORMAT {
        return Err(parse(format!(
            "unknown format `{}`, this version reads `{SAVED_REQUEST_FORMAT}`",
            saved.format
        )));
    }
    Ok(saved)
}
