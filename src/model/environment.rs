//! Environments: named sets of variables used as `{{name}}` in a request.

use serde::{Deserialize, Serialize};

/// The `format` of environment files; bump the number when the shape changes.
pub const ENVIRONMENT_FORMAT: &str = "retryscope-environment/1";

/// One variable of an environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variable {
    /// Name used as `{{name}}` (letters, digits, `_`, `-`, `.`).
    pub name: String,
    /// Value substituted as is. For a secret variable this is blank in files: the value lives
    /// in the OS keyring (or in memory only, when there is none).
    #[serde(default)]
    pub value: String,
    /// Secret: masked in the UI, `***` in the timeline and CLI output, never written to a file.
    #[serde(default)]
    pub secret: bool,
}

impl Variable {
    /// A non-secret variable.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
            secret: false,
        }
    }

    /// A secret variable.
    pub fn secret(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            secret: true,
            ..Self::new(name, value)
        }
    }
}

/// A named set of variables (e.g. `local`, `staging`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// Always [`ENVIRONMENT_FORMAT`] in files written by this version.
    #[serde(default = "environment_format")]
    pub format: String,
    /// Display name, unique in the data folder (the file name is derived from it).
    pub name: String,
    /// Variables in editor order; the first of two with the same name wins.
    #[serde(default)]
    pub variables: Vec<Variable>,
}

fn environment_format() -> String {
    ENVIRONMENT_FORMAT.to_owned()
}

impl Environment {
    /// An empty environment named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            format: environment_format(),
            name: name.into(),
            variables: Vec::new(),
        }
    }

    /// A copy fit for a file: every secret variable's value blanked.
    #[must_use]
    pub fn without_secret_values(&self) -> Self {
        let mut out = self.clone();
        for v in out.variables.iter_mut().filter(|v| v.secret) {
            v.value.clear();
        }
        out
    }
}
