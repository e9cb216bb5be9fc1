//! What can be wrong with a profile document, as typed kinds, and their wording. The loader
//! decides on kinds (which problem hides which, what the checked copy leaves out); only
//! [`Problem::issue`] turns one into text.

use super::field_path::{Step, render};
use super::issue::ProfileIssue;
use super::suggest::closest;
use crate::model::PROFILE_FORMAT;

/// One problem at a field path (file indices).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Problem {
    /// The field it is about: for [`Kind::Missing`] the missing field, for
    /// [`Kind::UnknownField`] the unknown key itself.
    pub path: Vec<Step>,
    /// What is wrong.
    pub kind: Kind,
}

/// The kinds of problem.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kind {
    /// A key the schema does not allow there; `allowed` are the keys it does, in schema order.
    UnknownField { allowed: Vec<String> },
    /// A required field is absent.
    Missing,
    /// A key given twice in one object.
    Repeated,
    /// A name (enum value) the schema does not list; `allowed` are those it does.
    UnknownName { name: String, allowed: Vec<String> },
    /// A value of the wrong type or out of range: what is expected, and what was found.
    WrongValue { expected: String, found: String },
    /// A semantic rule ([`super::validate()`]) with its own wording.
    Rule { message: String },
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: Vec<Step>, kind: Kind) -> Self {
        Self { path, kind }
    }

    /// The path of the object this problem should point at when the field itself is not in the
    /// file (a missing field: the object lacking it).
    pub fn anchor(&self) -> &[Step] {
        match self.kind {
            Kind::Missing => &self.path[..self.path.len().saturating_sub(1)],
            _ => &self.path,
        }
    }

    /// The last key of the path (`base_delay` of `backoff.base_delay`).
    fn field(&self) -> &str {
        match self.path.last() {
            Some(Step::Key(key)) => key,
            _ => "",
        }
    }

    /// The parent's path as the messages name it (`the top level` for the root).
    fn parent(&self) -> String {
        let parent = render(&self.path[..self.path.len().saturating_sub(1)]);
        if parent.is_empty() {
            "the top level".into()
        } else {
            parent
        }
    }

    /// For an unknown field, the known field it most likely misspells.
    pub fn meant(&self) -> Option<&str> {
        match &self.kind {
            Kind::UnknownField { allowed } => {
                let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
                closest(self.field(), &allowed)
            }
            _ => None,
        }
    }

    /// The issue as shown, without position.
    pub fn issue(&self) -> ProfileIssue {
        let name = self.field();
        let message = match &self.kind {
            Kind::UnknownField { allowed } => format!(
                "unknown field `{name}` at {}; {}",
                self.parent(),
                hint(name, allowed)
            ),
            Kind::Missing if self.path.len() == 1 => match name {
                "format" => format!("missing `format`; add \"format\": \"{PROFILE_FORMAT}\""),
                "name" => "missing field `name`; add \"name\": \"…\" (shown in pickers)".into(),
                "backoff" => {
                    "missing field `backoff`; add e.g. \"backoff\": {\"strategy\": \"exponential\"}"
                        .into()
                }
                _ => format!("missing field `{name}`"),
            },
            Kind::Missing => format!("missing field `{name}`"),
            Kind::Repeated => format!("`{name}` appears more than once; keep one"),
            Kind::UnknownName { name, allowed } => {
                format!("unknown value `{name}`; {}", hint(name, allowed))
            }
            Kind::WrongValue { expected, found } => format!("expected {expected}, found {found}"),
            Kind::Rule { message } => message.clone(),
        };
        ProfileIssue::new(render(&self.path), message)
    }
}

/// "did you mean `y`?", else the list of allowed names (or "remove it" when there are none).
fn hint(name: &str, allowed: &[String]) -> String {
    let candidates: Vec<&str> = allowed.iter().map(String::as_str).collect();
    match closest(name, &candidates) {
        Some(best) => format!("did you mean `{best}`?"),
        None if allowed.is_empty() => "remove it".to_owned(),
        None => format!("expected one of {}", quoted_list(allowed)),
    }
}

/// `` `a`, `b`, `c` ``.
pub(super) fn quoted_list(names: &[String]) -> String {
    names
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
