//! Reading a list file for a batch, the one place both faces do it: the format from
//! the file's extension unless given, every malformed line reported, and nothing queued when
//! there is one unless the user asked to skip bad lines.

use crate::interop::batch_list::{
    BatchListFormat, ListProblem, ListProblemKind, OnBadLines, parse_batch_list_bytes,
    parse_batch_list_streaming,
};
use crate::model::BatchRequest;
use crate::store::input_file::{
    BATCH_LIST, InputFileError, cannot_read, check_input_file, read_input_file,
};
use std::collections::HashMap;
use std::path::Path;

/// Largest list file read, bytes (1 GiB: 100,000 requests with bodies fit many times over).
pub const MAX_LIST_FILE_BYTES: u64 = BATCH_LIST.max_bytes;

/// Malformed lines (and notes on imported lines) named one by one; the others are counted in
/// one line after them (`… and 4980 more malformed lines`), so a list of thousands of bad lines
/// does not bury the refusal under thousands of errors.
pub const LISTED_LINES: usize = 20;

/// A list read: its requests, and the notes to show (curl options that were ignored, and the
/// malformed lines that were skipped), each `FILE:line: …`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadList {
    /// The requests, in file order.
    pub items: Vec<BatchRequest>,
    /// What to tell the user, one line each.
    pub notes: Vec<String>,
}

/// Reads the list at `path` in `format` (else the one its extension names). A relative body
/// file (`-d @body.json`, `-F f=@x.bin` in a curl list) is read from the list's folder, and an
/// item whose body file cannot be read is a bad line (`FILE: cannot read the file of -F f: …`),
/// as `run` and `curl` refuse it before sending. With `profiles`,
/// an item naming a profile it does not find is a bad line like a malformed one (counted,
/// refused or skipped with them).
///
/// # Errors
/// One message, lines joined by `\n`: an unknown format, a file that cannot be read, or the
/// malformed lines (`FILE:line:col: what`) followed by the refusal when `on_bad` is
/// [`OnBadLines::Refuse`] (or a problem spoils the whole list); an empty list.
pub fn read_batch_list(
    path: &Path,
    format: Option<BatchListFormat>,
    on_bad: OnBadLines,
    profiles: Option<&super::batch_runner::ProfileLookup>,
) -> Result<ReadList, String> {
    let mut items = Vec::new();
    let notes = stream_batch_list(path, format, on_bad, profiles, &mut |item| {
        items.push(item);
        Ok(())
    })?;
    Ok(ReadList { items, notes })
}

/// [`read_batch_list`] that hands each good item to `queue` as it is read, never holding the
/// requests (a list of a million lines costs one item's memory, plus the file's text); returns
/// the notes. When the list is refused after some items went to `queue`, the caller drops
/// them (the batch queue's transaction is rolled back).
///
/// # Errors
/// As [`read_batch_list`], and the first error of `queue` (no item is handed over after it).
pub fn stream_batch_list(
    path: &Path,
    format: Option<BatchListFormat>,
    on_bad: OnBadLines,
    profiles: Option<&super::batch_runner::ProfileLookup>,
    queue: &mut dyn FnMut(BatchRequest) -> Result<(), String>,
) -> Result<Vec<String>, String> {
    let name = path.display().to_string();
    // What the path is comes before what its name says (a folder has no list format).
    let unreadable = |e: InputFileError| {
        let why = match e {
            InputFileError::Directory => "it is a folder; batch takes a file of requests (JSON Lines, CSV, curl commands or HAR)".to_owned(),
            e => e.to_string(),
        };
        cannot_read(&name, "the list", why)
    };
    check_input_file(path, BATCH_LIST).map_err(unreadable)?;
    let format = BatchListFormat::detect(path, format).map_err(|e| e.to_string())?;
    let bytes = read_input_file(path, BATCH_LIST).map_err(unreadable)?;
    let Ok(text) = crate::model::utf8_text(&bytes) else {
        // The one problem of a text that is not UTF-8, located.
        let list = parse_batch_list_bytes(&bytes, format);
        return Err(refused_lines(
            &list.problems,
            &name,
            "the list cannot be queued (see above)",
        ));
    };
    // Body files (`-d @FILE`, `-F f=@FILE`) are read from the list's folder when relative, and
    // checked now, in the words `run` and `curl` use: a missing one is a malformed line. Each
    // profile name is looked up once.
    let folder = path.parent().unwrap_or(Path::new(""));
    let library = super::default_library_dir();
    let mut known: HashMap<String, Option<ListProblemKind>> = HashMap::new();
    let mut failed: Option<String> = None;
    let mut sink = |mut item: BatchRequest, bad_so_far: bool| -> Option<ListProblemKind> {
        if let Err(e) = super::body_files::resolve_and_check(&mut item.request, folder) {
            return Some(ListProblemKind::BodyFile {
                message: e.to_string(),
            });
        }
        if let (Some(lookup), Some(profile)) = (profiles, item.profile.as_deref()) {
            let problem = known
                .entry(profile.to_owned())
                .or_insert_with(|| profile_problem(lookup, profile, library.as_deref()));
            if let Some(kind) = problem {
                return Some(kind.clone());
            }
        }
        // A list refused for its bad lines queues nothing: no need to hand the rest over.
        let refused = bad_so_far && on_bad == OnBadLines::Refuse;
        if failed.is_none()
            && !refused
            && let Err(e) = queue(item)
        {
            failed = Some(e);
        }
        None
    };
    let (mut list, good) = parse_batch_list_streaming(text, format, &mut sink);
    if let Some(e) = failed {
        return Err(e);
    }
    let mut notes = first_lines(
        list.notes
            .iter()
            .map(|n| n.place.located(&name, &n.message)),
        "note on an imported line",
        "notes on imported lines",
    );
    // A library profile named like a built-in is never used: say so for each name items use.
    let used: Vec<&String> = known.keys().collect();
    notes.extend(super::shadowed_among(library.as_deref(), &used));
    match list.refusal(good, on_bad) {
        None => {
            // Only the lines shown are formatted (a list may have 100,000 bad lines).
            let skipped = first_lines(
                list.problems.iter().map(|p| p.located(&name)),
                "malformed line",
                "malformed lines",
            );
            notes.extend(skipped.into_iter().map(|p| format!("{p} (skipped)")));
            Ok(notes)
        }
        Some(refused) => Err(refused_lines(
            &refused.problems,
            &name,
            &refused.below_listing(),
        )),
    }
}

/// Every problem's line (the first [`LISTED_LINES`]), then the refusal `last` naming the list.
fn refused_lines(problems: &[ListProblem], name: &str, last: &str) -> String {
    let mut lines = first_lines(
        problems.iter().map(|p| p.located(name)),
        "malformed line",
        "malformed lines",
    );
    // Each problem is on its own line above: the last line does not repeat one.
    lines.push(format!("{last}: {name}"));
    lines.join("\n")
}

/// Why an item naming `profile` is a bad line: not built in nor in the library
/// ([`ListProblemKind::UnknownProfile`]), or a library file of that name that does not load
/// ([`ListProblemKind::BrokenProfile`], with its load error); `None` when it is found.
fn profile_problem(
    lookup: &super::batch_runner::ProfileLookup,
    profile: &str,
    library: Option<&Path>,
) -> Option<ListProblemKind> {
    if lookup(profile).is_some() {
        return None;
    }
    let broken = super::find_profile(profile, library)
        .err()
        .filter(|why| why.starts_with("library profile"));
    Some(broken.map_or_else(
        || ListProblemKind::UnknownProfile {
            name: profile.to_owned(),
        },
        |message| ListProblemKind::BrokenProfile { message },
    ))
}

/// The first [`LISTED_LINES`] of `lines`, then `… and N more PLURAL` (or `ONE`) for the rest;
/// only the lines kept are made.
pub fn first_lines(
    lines: impl ExactSizeIterator<Item = String>,
    one: &str,
    plural: &str,
) -> Vec<String> {
    let more = lines.len().saturating_sub(LISTED_LINES);
    let mut out: Vec<String> = lines.take(LISTED_LINES).collect();
    if more > 0 {
        let what = if more == 1 { one } else { plural };
        out.push(format!("… and {more} more {what}"));
    }
    out
}
