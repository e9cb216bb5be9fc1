//! Environments on disk: one JSON file per environment in `<data dir>/environments/`, secret
//! values blanked; the secret values themselves go to the [`SecretStore`] under
//! `env/<environment>/<variable>`.

use super::atomic_write::write_atomic;
use super::secret_store::SecretStore;
use super::store_error::StoreError;
use crate::model::{ENVIRONMENT_FORMAT, Environment};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The environments found in the folder, and the files or secrets that could not be read.
#[derive(Debug, Default)]
pub struct LoadedEnvironments {
    /// Sorted by name (case-insensitive); secret values filled from the secret store (blank
    /// where it holds none).
    pub environments: Vec<Environment>,
    /// One message per unreadable file or secret.
    pub problems: Vec<String>,
}

/// The environments folder and the secret store holding their secret values.
#[derive(Clone)]
pub struct EnvironmentStore {
    dir: PathBuf,
    secrets: Arc<dyn SecretStore>,
}

impl std::fmt::Debug for EnvironmentStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnvironmentStore")
            .field("dir", &self.dir)
            .field("secrets_persistent", &self.secrets.is_persistent())
            .finish()
    }
}

/// The secret store key of variable `var` of environment `env`.
pub fn secret_key(env: &str, var: &str) -> String {
    format!("env/{env}/{var}")
}

impl EnvironmentStore {
    /// The store in `<data_dir>/environments`.
    pub fn in_data_dir(data_dir: &Path, secrets: Arc<dyn SecretStore>) -> Self {
        Self::new(data_dir.join("environments"), secrets)
    }

    /// The store in `dir` (created on the first save).
    pub fn new(dir: PathBuf, secrets: Arc<dyn SecretStore>) -> Self {
        Self { dir, secrets }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The secret store.
    pub fn secrets(&self) -> &Arc<dyn SecretStore> {
        &self.secrets
    }

    /// Every environment with its secret values; a missing folder is no environment.
    pub fn list(&self) -> LoadedEnvironments {
        let mut out = LoadedEnvironments::default();
        let (files, problems) = self.files();
        out.problems = problems;
        for (_, mut env) in files {
            if let Err(e) = self.fill_secrets(&mut env) {
                out.problems
                    .push(format!("environment \"{}\": {e}", env.name));
            }
            out.environments.push(env);
        }
        out.environments
            .sort_by_key(|e| (e.name.to_lowercase(), e.name.clone()));
        out
    }

    /// Environment `name` as in its file: secret values blank (nothing asked of the secret store).
    ///
    /// # Errors
    /// [`StoreError::NotFound`] naming the folder when there is none of that name.
    pub fn read(&self, name: &str) -> Result<Environment, StoreError> {
        self.find(name)
            .map(|(_, env)| env)
            .ok_or_else(|| StoreError::NotFound {
                what: format!("environment \"{name}\""),
                dir: self.dir.clone(),
            })
    }

    /// Environment `name` with its secret values.
    ///
    /// # Errors
    /// As [`Self::read`], and secret store failures.
    pub fn load(&self, name: &str) -> Result<Environment, StoreError> {
        let mut env = self.read(name)?;
        self.fill_secrets(&mut env)?;
        Ok(env)
    }

    /// The stored secret value of variable `var` of environment `env`.
    ///
    /// # Errors
    /// Secret store failures.
    pub fn secret_value(&self, env: &str, var: &str) -> Result<Option<String>, StoreError> {
        Ok(self.secrets.get(&secret_key(env, var))?)
    }

    /// Saves `env`: secret values to the secret store (a blank one removes its entry; secrets
    /// of variables no longer secret or gone are removed), then the file without them,
    /// atomically. An environment of the same name is replaced.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a blank name; secret store and write failures (a secret
    /// failure leaves the file as it was).
    pub fn save(&self, env: &Environment) -> Result<PathBuf, StoreError> {
        let name = env.name.trim();
        if name.is_empty() {
            return Err(StoreError::Invalid(
                "an environment name cannot be blank; type a name".into(),
            ));
        }
        let old = self.find(name);
        for v in env.variables.iter().filter(|v| v.secret) {
            let key = secret_key(name, v.name.trim());
            if v.value.is_empty() {
                self.secrets.delete(&key)?;
            } else {
                self.secrets.set(&key, &v.value)?;
            }
        }
        let mut clean = env.without_secret_values();
        ENVIRONMENT_FORMAT.clone_into(&mut clean.format);
        name.clone_into(&mut clean.name);
        let path = old
            .as_ref()
            .map_or_else(|| self.free_path(name), |(p, _)| p.clone());
        let mut text = serde_json::to_string_pretty(&clean).map_err(|e| {
            StoreError::Invalid(format!("cannot encode environment \"{name}\": {e}"))
        })?;
        text.push('\n');
        write_atomic(&path, text.as_bytes()).map_err(|source| StoreError::Write {
            what: format!("environment \"{name}\""),
            source,
        })?;
        if let Some((_, old)) = old {
            for v in old.variables.iter().filter(|v| v.secret) {
                let still = env
                    .variables
                    .iter()
                    .any(|n| n.secret && n.name.trim() == v.name.trim());
                if !still {
                    self.secrets.delete(&secret_key(name, v.name.trim()))?;
                }
            }
        }
        Ok(path)
    }

    /// Deletes environment `name`: its file and its secrets. A missing one is not an error.
    ///
    /// # Errors
    /// When the file exists but cannot be removed, or a secret cannot be removed.
    pub fn delete(&self, name: &str) -> Result<(), StoreError> {
        let Some((path, env)) = self.find(name) else {
            return Ok(());
        };
        std::fs::remove_file(&path).map_err(|source| StoreError::Io {
            action: "delete",
            path,
            source,
        })?;
        for v in env.variables.iter().filter(|v| v.secret) {
            self.secrets.delete(&secret_key(name, v.name.trim()))?;
        }
        Ok(())
    }

    /// Renames environment `old` to `new` (its secrets move along).
    ///
    /// # Errors
    /// [`StoreError::Invalid`] when `new` is blank or taken; load, save and delete failures.
    pub fn rename(&self, old: &str, new: &str) -> Result<(), StoreError> {
        let new = new.trim();
        if new.is_empty() {
            return Err(StoreError::Invalid(
                "an environment name cannot be blank; type a name".into(),
            ));
        }
        if new == old {
            return Ok(());
        }
        if self.find(new).is_some() {
            return Err(StoreError::Invalid(format!(
                "an environment named \"{new}\" exists already; pick another name"
            )));
        }
        let mut env = self.load(old)?;
        new.clone_into(&mut env.name);
        self.save(&env)?;
        self.delete(old)
    }

    fn fill_secrets(&self, env: &mut Environment) -> Result<(), StoreError> {
        let name = env.name.clone();
        for v in env.variables.iter_mut().filter(|v| v.secret) {
            v.value = self
                .secrets
                .get(&secret_key(&name, v.name.trim()))?
                .unwrap_or_default();
        }
        Ok(())
    }

    fn find(&self, name: &str) -> Option<(PathBuf, Environment)> {
        self.files().0.into_iter().find(|(_, e)| e.name == name)
    }

    /// Every readable environment file (secret values blank) and one problem per other file.
    fn files(&self) -> (Vec<(PathBuf, Environment)>, Vec<String>) {
        let mut files = Vec::new();
        let mut problems = Vec::new();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (files, problems),
            Err(source) => {
                let e = StoreError::Io {
                    action: "list",
                    path: self.dir.clone(),
                    source,
                };
                return (files, vec![e.to_string()]);
            }
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        for path in paths {
            match read_environment(&path) {
                Ok(env) => files.push((path, env)),
                Err(e) => problems.push(e.to_string()),
            }
        }
        (files, problems)
    }

    /// `<slug>.json`, or `<slug>-2.json`, … when taken.
    fn free_path(&self, name: &str) -> PathBuf {
        let slug = crate::model::slug(name, "environment");
        let mut path = self.dir.join(format!("{slug}.json"));
        let mut n = 2;
        while path.exists() {
            path = self.dir.join(format!("{slug}-{n}.json"));
            n += 1;
        }
        path
    }
}

fn read_environment(path: &Path) -> Result<Environment, StoreError> {
    let parse = |message: String| StoreError::Parse {
        path: path.to_owned(),
        message,
    };
    let text = super::input_file::read_input_text(path, super::input_file::SAVED_FILE)
        .map_err(|e| parse(format!("cannot read it: {e}")))?;
    let mut env: Environment = serde_json::from_str(&text).map_err(|e| parse(e.to_string()))?;
    if env.format != ENVIRONMENT_FORMAT {
        return Err(parse(format!(
            "unknown format `{}`, this version reads `{ENVIRONMENT_FORMAT}`",
            env.format
        )));
    }
    // A value typed into a file by hand for a secret variable is not trusted as the secret.
    env = env.without_secret_values();
    Ok(env)
}
