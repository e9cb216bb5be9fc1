//! `run --env NAME`, `--var k=v` and `--data-dir DIR`: `{{name}}` variables resolved with the
//! same function as the window ([`crate::model::resolve_spec`]).

use super::exit::CliError;
use crate::model::{RequestSpec, Variables, is_variable_name, resolve_spec, resolve_text};
use crate::store::{self, EnvironmentStore, open_secret_store};
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The variable flags of `run`.
#[derive(Debug, Clone, Default, Args)]
pub struct VariablesArgs {
    /// Environment (from the data folder) whose variables fill `{{name}}` in the URL, query,
    /// headers and body; its secret values come from the OS keyring.
    #[arg(long = "env", value_name = "NAME")]
    pub env: Option<String>,
    /// Sets variable NAME to VALUE (repeatable); wins over --env. A variable secret in the
    /// environment stays secret (printed as ***).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Data folder holding `environments/` (default: $RETRYSCOPE_DATA_DIR, else the platform
    /// data folder, e.g. ~/.local/share/retryscope).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

/// The variables of one run, and the fresh `{{uuid}}` of this run.
#[derive(Debug, Clone)]
pub struct RunVariables {
    vars: Variables,
    fresh_uuid: String,
    /// Secret variables of the environment that have no stored value (named in errors).
    missing_secrets: Vec<String>,
    env: Option<String>,
}

/// `NAME=VALUE` → (name, value).
///
/// # Errors
/// Exit 2 when there is no `=` or the name cannot be used as `{{name}}`.
pub fn parse_var(raw: &str) -> Result<(String, String), CliError> {
    let Some((name, value)) = raw.split_once('=') else {
        return Err(CliError::usage(format!(
            "--var `{raw}` has no `=`; write it as --var name=value"
        )));
    };
    let name = name.trim();
    if !is_variable_name(name) {
        return Err(CliError::usage(format!(
            "`{}` is not a variable name (letters, digits, _ - . only), in --var {}=… (its value is not shown)",
            crate::model::quote::quote_input(name),
            crate::model::quote::quote_input(name)
        )));
    }
    Ok((name.to_owned(), value.to_owned()))
}

impl VariablesArgs {
    /// Loads `--env` (asking the secret store only for secret variables not set by `--var`)
    /// and applies the `--var` overrides.
    ///
    /// # Errors
    /// Exit 2 for a bad `--var`, an unknown environment, no data folder, or an unreadable
    /// environment or secret.
    pub fn load(&self) -> Result<RunVariables, CliError> {
        let overrides = self
            .vars
            .iter()
            .map(|v| parse_var(v))
            .collect::<Result<Vec<_>, _>>()?;
        let mut vars = Variables::new();
        let mut missing_secrets = Vec::new();
        if let Some(name) = &self.env {
            let dir = self
                .data_dir
                .clone()
                .or_else(store::data_dir)
                .ok_or_else(|| {
                    CliError::usage("no data folder is known (no home folder); give --data-dir DIR")
                })?;
            let overridden = |v: &str| overrides.iter().any(|(n, _)| n == v);
            let needs_secrets = |env: &crate::model::Environment| {
                env.variables
                    .iter()
                    .any(|v| v.secret && !overridden(v.name.trim()))
            };
            // Ask the secret store only when a secret is needed: `--var` can stand in for it.
            let probe = EnvironmentStore::in_data_dir(
                &dir,
                std::sync::Arc::new(store::MemorySecretStore::new()),
            );
            let mut env = probe
                .read(name)
                .map_err(|e| CliError::usage(format!("--env {name}: {e}")))?;
            if needs_secrets(&env) {
                let opened = open_secret_store();
                let real = EnvironmentStore::in_data_dir(&dir, opened.store);
                for v in env.variables.iter_mut().filter(|v| v.secret) {
                    if overridden(v.name.trim()) {
                        continue;
                    }
                    match real
                        .secret_value(name, v.name.trim())
                        .map_err(|e| CliError::usage(format!("--env {name}: {e}")))?
                    {
                        Some(value) => v.value = value,
                        None => missing_secrets.push(v.name.trim().to_owned()),
                    }
                }
                if let Some(reason) = opened.fallback_reason
                    && !missing_secrets.is_empty()
                {
                    missing_secrets.push(format!("({reason})"));
                }
            }
            vars = Variables::from_environment(&env);
            // A secret without a value is not defined: using it is an unknown variable.
            // (`--var` sets it below, keeping it secret.)
            for v in env
                .variables
                .iter()
                .filter(|v| v.secret && v.value.is_empty())
            {
                if !overridden(v.name.trim()) {
                    vars.remove(v.name.trim());
                }
            }
        }
        for (name, value) in overrides {
            vars.override_value(&name, value);
        }
        Ok(RunVariables {
            vars,
            fresh_uuid: uuid::Uuid::new_v4().to_string(),
            missing_secrets,
            env: self.env.clone(),
        })
    }
}

impl RunVariables {
    /// This run's `{{uuid}}` (also its automatic Idempotency-Key).
    pub fn fresh_uuid(&self) -> &str {
        &self.fresh_uuid
    }

    /// `raw` URL with variables resolved (for checking it before the request is built).
    ///
    /// # Errors
    /// Exit 2 naming the unknown variable.
    pub fn url(&self, raw: &str) -> Result<String, CliError> {
        resolve_text(raw, &self.vars, &self.fresh_uuid, "URL")
            .map(|r| r.text)
            .map_err(|e| self.error(&e))
    }

    /// `spec` (built from the resolved URL) resolved as the window does, its URL taken from
    /// `raw_url` again so no value is resolved twice.
    ///
    /// # Errors
    /// Exit 2 naming the first unknown variable and its place.
    pub fn spec(&self, mut spec: RequestSpec, raw_url: &str) -> Result<RequestSpec, CliError> {
        raw_url.clone_into(&mut spec.url);
        resolve_spec(&spec, &self.vars, &self.fresh_uuid).map_err(|e| self.error(&e))
    }

    /// The secret values in use (masked as `***` in everything printed).
    pub fn secret_values(&self) -> Vec<String> {
        self.vars.secret_values()
    }

    fn error(&self, e: &crate::model::UnknownVariable) -> CliError {
        let mut message = e.to_string();
        let missing: Vec<&String> = e
            .names
            .iter()
            .filter(|n| self.missing_secrets.contains(n))
            .collect();
        if let (Some(first), Some(env)) = (missing.first(), &self.env) {
            let _ = write!(
                message,
                "; the secret variable `{first}` of environment \"{env}\" has no stored value \
                 {}: pass it with --var {first}=VALUE",
                self.missing_secrets
                    .iter()
                    .find(|m| m.starts_with('('))
                    .map_or("in the keyring", String::as_str)
            );
        } else {
            message.push_str("; define it with --var NAME=VALUE or --env NAME");
        }
        CliError::usage(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vars_parse_and_override() {
        assert_eq!(
            parse_var("a=b=c").expect("valid"),
            ("a".to_owned(), "b=c".to_owned())
        );
        assert!(parse_var("novalue").is_err());
        let e = parse_var("bad name=S3KR1Tzz").expect_err("a blank in the name");
        assert!(!e.message.contains("S3KR1T"), "{}", e.message);
        assert!(
            e.message
                .ends_with("in --var bad name=… (its value is not shown)")
        );
        let args = VariablesArgs {
            vars: vec!["host=127.0.0.1:9".into(), "host=127.0.0.1:10".into()],
            ..VariablesArgs::default()
        };
        let vars = args.load().expect("no environment needed");
        assert_eq!(
            vars.url("http://{{host}}/").expect("resolves"),
            "http://127.0.0.1:10/",
            "the last --var wins"
        );
        let err = vars.url("http://{{nope}}/").expect_err("unknown");
        assert!(
            err.message.starts_with("unknown variable {{nope}} in URL;"),
            "{err:?}"
        );
    }
}
