//! Where secret values live: the OS keyring (Secret Service, Keychain, Credential Manager via
//! the `keyring` crate), or memory only where there is none. Files never hold them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The keyring service name every entry is stored under.
pub const KEYRING_SERVICE: &str = "dev.retryscope.Retryscope";
/// Environment variable: `memory` keeps secrets in memory only (never touches the OS keyring;
/// CI and tests), anything else or unset uses the OS keyring when one answers.
pub const KEYRING_ENV: &str = "RETRYSCOPE_KEYRING";

/// A failed secret store operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("keyring: {message}")]
pub struct SecretStoreError {
    /// What failed, lowercase.
    pub message: String,
}

impl SecretStoreError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// A key → secret map. Keys are paths such as `env/local/token` or `workbench/header/0/Authorization`.
pub trait SecretStore: Send + Sync {
    /// The secret under `key`, `None` when there is none.
    ///
    /// # Errors
    /// When the store cannot be read (locked, gone).
    fn get(&self, key: &str) -> Result<Option<String>, SecretStoreError>;
    /// Stores `value` under `key`, replacing any earlier value.
    ///
    /// # Errors
    /// When the store cannot be written.
    fn set(&self, key: &str, value: &str) -> Result<(), SecretStoreError>;
    /// Removes `key`; removing a missing key is not an error.
    ///
    /// # Errors
    /// When the store cannot be written.
    fn delete(&self, key: &str) -> Result<(), SecretStoreError>;
    /// Whether secrets survive the process (true for the OS keyring).
    fn is_persistent(&self) -> bool;
}

/// Secrets in memory only: lost when the process ends. Used where no keyring exists, and by tests.
#[derive(Debug, Default)]
pub struct MemorySecretStore {
    map: Mutex<HashMap<String, String>>,
}

impl MemorySecretStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every key currently held, sorted (tests inspect what was stored).
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .map
            .lock()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    }
}

impl SecretStore for MemorySecretStore {
    fn get(&self, key: &str) -> Result<Option<String>, SecretStoreError> {
        let map = self
            .map
            .lock()
            .map_err(|_| SecretStoreError::new("the in-memory store is poisoned"))?;
        Ok(map.get(key).cloned())
    }

    fn set(&self, key: &str, value: &str) -> Result<(), SecretStoreError> {
        let mut map = self
            .map
            .lock()
            .map_err(|_| SecretStoreError::new("the in-memory store is poisoned"))?;
        map.insert(key.to_owned(), value.to_owned());
        Ok(())
    }

    fn delete(&self, key: &str) -> Result<(), SecretStoreError> {
        let mut map = self
            .map
            .lock()
            .map_err(|_| SecretStoreError::new("the in-memory store is poisoned"))?;
        map.remove(key);
        Ok(())
    }

    fn is_persistent(&self) -> bool {
        false
    }
}

/// What the user is told when no OS keyring answers.
const NO_KEYRING: &str = "no OS keyring answered (on Linux it is the Secret Service on the session bus: GNOME \
     Keyring, KWallet or KeePassXC)";

/// The OS keyring through `keyring` 4 (entries: service [`KEYRING_SERVICE`], user = the key).
/// Calls block on the platform service (D-Bus on Linux); make them on user actions, not per frame.
#[derive(Debug)]
pub struct KeyringSecretStore {
    service: String,
}

impl KeyringSecretStore {
    /// Connects to the platform keyring.
    ///
    /// # Errors
    /// When there is none (no Secret Service on the session bus, no session bus at all).
    pub fn open() -> Result<Self, SecretStoreError> {
        keyring::Entry::store_status().as_ref().map_err(|e| {
            // The library's own words go to the log; the user gets ours.
            tracing::debug!("keyring probe failed: {e}");
            SecretStoreError::new(NO_KEYRING)
        })?;
        Ok(Self {
            service: KEYRING_SERVICE.to_owned(),
        })
    }

    fn entry(&self, key: &str) -> Result<keyring::Entry, SecretStoreError> {
        keyring::Entry::new(&self.service, key)
            .map_err(|e| SecretStoreError::new(format!("cannot address entry {key}: {e}")))
    }
}

impl SecretStore for KeyringSecretStore {
    fn get(&self, key: &str) -> Result<Option<String>, SecretStoreError> {
        match self.entry(key)?.get_password() {
            Ok(v) => Ok(Some(v)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(SecretStoreError::new(format!("cannot read {key}: {e}"))),
        }
    }

    fn set(&self, key: &str, value: &str) -> Result<(), SecretStoreError> {
        self.entry(key)?
            .set_password(value)
            .map_err(|e| SecretStoreError::new(format!("cannot store {key}: {e}")))
    }

    fn delete(&self, key: &str) -> Result<(), SecretStoreError> {
        match self.entry(key)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(SecretStoreError::new(format!("cannot delete {key}: {e}"))),
        }
    }

    fn is_persistent(&self) -> bool {
        true
    }
}

/// The secret store to use and, when it is the in-memory fallback, why (shown to the user).
pub struct OpenedSecretStore {
    /// The store.
    pub store: Arc<dyn SecretStore>,
    /// `None` for the OS keyring; else the reason secrets are kept in memory only.
    pub fallback_reason: Option<String>,
}

/// The OS keyring when one answers, else a [`MemorySecretStore`] with the reason. With
/// `RETRYSCOPE_KEYRING=memory` the OS keyring is never contacted.
pub fn open_secret_store() -> OpenedSecretStore {
    if std::env::var(KEYRING_ENV).is_ok_and(|v| v.eq_ignore_ascii_case("memory")) {
        return memory_fallback(&format!("{KEYRING_ENV}=memory"));
    }
    match KeyringSecretStore::open() {
        Ok(store) => OpenedSecretStore {
            store: Arc::new(store),
            fallback_reason: None,
        },
        Err(e) => memory_fallback(&e.message),
    }
}

/// An in-memory store with `reason` as its fallback reason (tests, smoke runs).
pub fn memory_secret_store(reason: &str) -> OpenedSecretStore {
    memory_fallback(reason)
}

fn memory_fallback(reason: &str) -> OpenedSecretStore {
    OpenedSecretStore {
        store: Arc::new(MemorySecretStore::new()),
        fallback_reason: Some(format!(
            "secrets are kept in memory only and forgotten on exit: {reason}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_store_round_trip() {
        let s = MemorySecretStore::new();
        assert_eq!(s.get("a").expect("get"), None);
        s.set("a", "1").expect("set");
        assert_eq!(s.get("a").expect("get").as_deref(), Some("1"));
        s.delete("a").expect("delete");
        s.delete("a").expect("deleting a missing key is fine");
        assert_eq!(s.get("a").expect("get"), None);
        assert!(!s.is_persistent());
    }
}
