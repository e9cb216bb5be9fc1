//! The process's one way to the OS keyring (DESIGN.md §11): a worker thread owned by the core,
//! `retryscope-keys`, makes every keyring call in order, so a keyring that prompts or hangs
//! (a locked Secret Service answers after a D-Bus timeout) holds that thread, never the
//! window's frame nor the runtime's workers. Writes are queued and return at once (the window
//! saves "Remember secrets" this way); reads wait for their answer on the caller's thread,
//! after every write queued before them. The core drains the queue when it shuts down, so the
//! last write, made when the window closes, is kept.

use crate::store::{OpenedSecretStore, SecretStore, SecretStoreError};
use std::sync::mpsc::{Sender, channel, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Name of the keyring worker's thread.
pub const KEYRING_THREAD_NAME: &str = "retryscope-keys";

type Job = Box<dyn FnOnce() + Send>;

/// The keyring worker: its queue, and the store whose calls it makes.
pub struct Keyring {
    jobs: Mutex<Sender<Job>>,
    opened: OpenedSecretStore,
}

impl Keyring {
    /// Starts the worker over `secrets` (the OS keyring, or memory only with its reason).
    ///
    /// # Errors
    /// When the OS cannot start a thread.
    pub fn start(secrets: OpenedSecretStore) -> std::io::Result<Self> {
        let (tx, rx) = channel::<Job>();
        // Detached: it ends when the last sender (the store's) is dropped.
        std::thread::Builder::new()
            .name(KEYRING_THREAD_NAME.into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            })?;
        let problem = Arc::new(Mutex::new(None));
        let store: Arc<dyn SecretStore> = Arc::new(Queued {
            inner: Arc::clone(&secrets.store),
            jobs: Mutex::new(tx.clone()),
            problem,
        });
        Ok(Self {
            jobs: Mutex::new(tx),
            opened: OpenedSecretStore {
                store,
                fallback_reason: secrets.fallback_reason,
            },
        })
    }

    /// The secret store every face uses: each call made on the worker.
    pub fn store(&self) -> OpenedSecretStore {
        OpenedSecretStore {
            store: Arc::clone(&self.opened.store),
            fallback_reason: self.opened.fallback_reason.clone(),
        }
    }

    /// Waits at most `limit` for the worker to make the calls queued so far (the window's last
    /// "Remember secrets" write, made as it closes); true when they were made.
    pub fn finish(&self, limit: Duration) -> bool {
        let (done_tx, done_rx) = sync_channel(1);
        let sent = self
            .jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(Box::new(move || {
                let _ = done_tx.send(());
            }));
        sent.is_ok() && done_rx.recv_timeout(limit).is_ok()
    }
}

/// A [`SecretStore`] whose calls run on the keyring worker: writes queued (a failure is
/// returned by the next call), reads answered in order after them.
struct Queued {
    inner: Arc<dyn SecretStore>,
    jobs: Mutex<Sender<Job>>,
    /// The first write that failed since the last call returned one.
    problem: Arc<Mutex<Option<SecretStoreError>>>,
}

impl Queued {
    fn gone() -> SecretStoreError {
        SecretStoreError {
            message: "the keyring worker has stopped".into(),
        }
    }

    fn send(&self, job: Job) -> Result<(), SecretStoreError> {
        self.jobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(job)
            .map_err(|_| Self::gone())
    }

    /// The failure of a write queued earlier, once.
    fn earlier_failure(&self) -> Result<(), SecretStoreError> {
        match self
            .problem
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn write(
        &self,
        write: impl FnOnce(&dyn SecretStore) -> Result<(), SecretStoreError> + Send + 'static,
    ) -> Result<(), SecretStoreError> {
        self.earlier_failure()?;
        let (inner, problem) = (Arc::clone(&self.inner), Arc::clone(&self.problem));
        self.send(Box::new(move || {
            if let Err(e) = write(inner.as_ref()) {
                problem
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(e);
            }
        }))
    }
}

impl SecretStore for Queued {
    fn get(&self, key: &str) -> Result<Option<String>, SecretStoreError> {
        let (reply, replied) = sync_channel(1);
        let (inner, key) = (Arc::clone(&self.inner), key.to_owned());
        self.send(Box::new(move || {
            let _ = reply.send(inner.get(&key));
        }))?;
        replied.recv().map_err(|_| Self::gone())?
    }

    fn set(&self, key: &str, value: &str) -> Result<(), SecretStoreError> {
        let (key, value) = (key.to_owned(), value.to_owned());
        self.write(move |s| s.set(&key, &value))
    }

    fn delete(&self, key: &str) -> Result<(), SecretStoreError> {
        let key = key.to_owned();
        self.write(move |s| s.delete(&key))
    }

    fn is_persistent(&self) -> bool {
        self.inner.is_persistent()
    }
}

#[cfg(test)]
mod tests {
    use super::Keyring;
    use crate::store::{MemorySecretStore, OpenedSecretStore, SecretStore, SecretStoreError};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// A keyring that answers only once `open` is released, and remembers the thread of each
    /// call.
    struct Slow {
        open: Arc<Mutex<()>>,
        inner: MemorySecretStore,
        threads: Mutex<Vec<String>>,
    }

    impl Slow {
        fn wait(&self) {
            drop(self.open.lock());
            let name = std::thread::current().name().unwrap_or("").to_owned();
            self.threads.lock().unwrap().push(name);
        }
    }

    impl SecretStore for Slow {
        fn get(&self, key: &str) -> Result<Option<String>, SecretStoreError> {
            self.wait();
            self.inner.get(key)
        }
        fn set(&self, key: &str, value: &str) -> Result<(), SecretStoreError> {
            self.wait();
            self.inner.set(key, value)
        }
        fn delete(&self, key: &str) -> Result<(), SecretStoreError> {
            self.wait();
            self.inner.delete(key)
        }
        fn is_persistent(&self) -> bool {
            true
        }
    }

    #[test]
    fn writes_return_at_once_run_on_the_worker_in_order_and_the_last_is_made_at_finish() {
        let open = Arc::new(Mutex::new(()));
        let held = open.lock().unwrap();
        let slow = Arc::new(Slow {
            open: Arc::clone(&open),
            inner: MemorySecretStore::new(),
            threads: Mutex::new(Vec::new()),
        });
        let keyring = Keyring::start(OpenedSecretStore {
            store: slow.clone(),
            fallback_reason: None,
        })
        .unwrap();
        let store = keyring.store().store;
        // The keyring does not answer: the writes are queued, the caller is not held.
        store.set("a", "1").unwrap();
        store.set("a", "2").unwrap();
        store.delete("b").unwrap();
        assert!(!keyring.finish(Duration::from_millis(50)), "still held");
        drop(held);
        assert!(keyring.finish(Duration::from_secs(5)));
        assert_eq!(slow.inner.get("a").unwrap().as_deref(), Some("2"));
        assert!(
            slow.threads
                .lock()
                .unwrap()
                .iter()
                .all(|t| t == super::KEYRING_THREAD_NAME)
        );
    }

    /// Refuses every write.
    struct Refusing;

    impl SecretStore for Refusing {
        fn get(&self, _: &str) -> Result<Option<String>, SecretStoreError> {
            Ok(None)
        }
        fn set(&self, key: &str, _: &str) -> Result<(), SecretStoreError> {
            Err(SecretStoreError {
                message: format!("cannot store {key}: locked"),
            })
        }
        fn delete(&self, _: &str) -> Result<(), SecretStoreError> {
            Ok(())
        }
        fn is_persistent(&self) -> bool {
            true
        }
    }

    #[test]
    fn a_read_sees_the_writes_queued_before_it_and_a_failed_write_is_told_next_time() {
        let keyring = Keyring::start(OpenedSecretStore {
            store: Arc::new(MemorySecretStore::new()),
            fallback_reason: None,
        })
        .unwrap();
        let store = keyring.store().store;
        store.set("k", "v").unwrap();
        assert_eq!(store.get("k").unwrap().as_deref(), Some("v"));

        let refusing = Keyring::start(OpenedSecretStore {
            store: Arc::new(Refusing),
            fallback_reason: None,
        })
        .unwrap();
        let store = refusing.store().store;
        store.set("a", "1").unwrap();
        assert!(refusing.finish(Duration::from_secs(5)));
        let told = store.delete("b").unwrap_err();
        assert_eq!(told.message, "cannot store a: locked");
        store.delete("b").unwrap();
    }
}
