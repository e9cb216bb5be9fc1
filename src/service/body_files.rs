//! The up-front check of a request's body files (`-d @FILE`, `-F name=@FILE`), in one wording
//! for `run`, `retryscope curl` and batch lists: a missing or unusable file is said before
//! anything is sent, not at attempt 1 as `cannot use the file of body.parts[0]`.

use crate::model::{Body, PartSource, RequestSpec};
use crate::store::input_file::cannot_read;
use std::path::Path;

/// A body file that cannot be sent, in the words of `run -d @FILE` and `run -F`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BodyFileProblem {
    /// The file of `-d @FILE` (`--data-binary @FILE`, `--json @FILE`).
    #[error("{}", cannot_read(path, "body file", reason))]
    Data {
        /// The path as it will be read.
        path: String,
        /// What is wrong with it (`no such file or directory (os error 2)`, `it is a directory`).
        reason: String,
    },
    /// The file of `-F NAME=@FILE`.
    #[error("{}", cannot_read(path, format_args!("the file of -F {name}"), reason))]
    Part {
        /// The part's name.
        name: String,
        /// The path as it will be read.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Why `path` cannot be a body: unreadable, a folder, not a regular file, too large.
fn reason(path: &str) -> Option<String> {
    crate::engine::check_body_file(path).err().map(|e| match e {
        crate::engine::SpecError::BodyFile { reason, .. } => reason,
        other => other.to_string(),
    })
}

/// Checks the file of `-d @FILE`.
///
/// # Errors
/// [`BodyFileProblem::Data`] naming the file and what is wrong with it.
pub fn check_data_file(path: &str) -> Result<(), BodyFileProblem> {
    reason(path).map_or(Ok(()), |reason| {
        Err(BodyFileProblem::Data {
            path: path.to_owned(),
            reason,
        })
    })
}

/// Checks the file of `-F name=@FILE`.
///
/// # Errors
/// [`BodyFileProblem::Part`] naming the part, the file and what is wrong with it.
pub fn check_part_file(name: &str, path: &str) -> Result<(), BodyFileProblem> {
    reason(path).map_or(Ok(()), |reason| {
        Err(BodyFileProblem::Part {
            name: name.to_owned(),
            path: path.to_owned(),
            reason,
        })
    })
}

/// Makes every relative body file path of `spec` relative to `folder` (a batch list's folder:
/// `-d @body.json` in `lists/a.curl` is `lists/body.json`), then checks each file.
///
/// # Errors
/// The first file that cannot be sent ([`BodyFileProblem`]).
pub fn resolve_and_check(spec: &mut RequestSpec, folder: &Path) -> Result<(), BodyFileProblem> {
    let resolve = |path: &mut String| {
        if !folder.as_os_str().is_empty() && Path::new(path.as_str()).is_relative() {
            *path = folder.join(path.as_str()).display().to_string();
        }
    };
    match &mut spec.body {
        Body::File { path, .. } => {
            resolve(path);
            check_data_file(path)
        }
        Body::Multipart { parts } => {
            for part in parts {
                if let PartSource::File { path, .. } = &mut part.source {
                    resolve(path);
                    check_part_file(&part.name, path)?;
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_files_are_read_from_the_folder_and_missing_ones_are_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("body.json"), "{}").expect("written");
        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.body = Body::File {
            path: "body.json".into(),
            content_type: None,
        };
        resolve_and_check(&mut spec, dir.path()).expect("found beside the list");
        let Body::File { path, .. } = &spec.body else {
            panic!("{:?}", spec.body)
        };
        assert_eq!(path, &dir.path().join("body.json").display().to_string());

        spec.body = Body::Multipart {
            parts: vec![crate::model::MultipartPart::from_form_value(
                "f",
                "@/nonexistent/x.bin",
            )],
        };
        let problem = resolve_and_check(&mut spec, dir.path()).expect_err("missing");
        assert!(
            problem.to_string().starts_with(
                "/nonexistent/x.bin: cannot read the file of -F f: no such file or directory"
            ),
            "{problem}"
        );
    }
}
