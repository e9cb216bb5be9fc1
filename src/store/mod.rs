//! Files and secrets the app keeps for the user: the request library, environments, and the
//! secret store (OS keyring, or memory only where there is none). Never imports egui; every
//! file carries a `format` field and is written atomically ([`write_atomic`]).

mod atomic_write;
mod data_dir;
mod environments;
mod request_library;
mod secret_store;
mod store_error;

pub use atomic_write::{WriteError, write_atomic, write_atomic_with_hook};
pub use data_dir::{DATA_DIR_ENV, data_dir, data_dir_from};
pub use environments::{EnvironmentStore, LoadedEnvironments, secret_key};
pub use request_library::{LoadedRequests, RequestLibrary};
pub use secret_store::{
    KEYRING_ENV, KEYRING_SERVICE, KeyringSecretStore, MemorySecretStore, OpenedSecretStore,
    SecretStore, SecretStoreError, memory_secret_store, open_secret_store,
};
pub use store_error::StoreError;
