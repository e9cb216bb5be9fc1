//! OS advisory locks on files in the data folder (DESIGN.md §11): whether a live process works
//! a batch, and whether the process that wrote a run is still alive, are asked of the OS, which
//! releases a process's locks when it ends however it ends (`kill -9` included). No `/proc`, no
//! pid compared: the same on Linux, macOS and Windows.
//!
//! The locks are the standard library's ([`File::try_lock`]: `flock` on Unix, `LockFileEx` on
//! Windows). A lock belongs to one open file, so a second claim in the same process (another
//! open of the file) is refused as one from another process is.
//!
//! - `locks/batch-BATCH_ID.lock`: held exclusively by the process working the batch, for as long as
//!   it works it ([`BatchLock`]); it holds that process's id as text (shown in "being worked by
//!   process N"; unreadable while locked on Windows).
//! - `locks/watch-WATCH_ID.lock`: the same lock for the process running a watch
//!   ([`BatchLock::take_named`]); a `running` watch whose lock nobody holds was left by a
//!   process that is gone (`interrupted`).
//! - `locks/writer-PID.lock`: held shared by every history connection of process PID that recorded a
//!   run ([`WriterLock`]); a run without an outcome whose writer's file nobody holds (or which is
//!   missing) was left by a process that is gone. The file goes with its last holder, or with the
//!   next writer's sweep after a `kill -9`.

use super::private_files::{create_private_dir_all, private_options};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The folder of lock files inside the data folder.
const LOCKS: &str = "locks";

/// How many times, 10 ms apart, a claim tries a lock another open holds before it says the
/// batch is busy: a look at the lock ([`batch_is_held_elsewhere`]) holds it for a few microseconds.
const CLAIM_TRIES: u32 = 5;

/// The exclusive lock of one batch, held while this process works it; dropping it releases it.
#[derive(Debug)]
pub(super) struct BatchLock {
    _file: File,
    path: PathBuf,
}

/// The batch lock files this process holds: a look from another connection of this process
/// ([`batch_is_held_elsewhere`]) does not take the batch for one another process works.
static HELD_HERE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn held_here() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding it leaves a plain list: still usable.
    HELD_HERE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Drop for BatchLock {
    fn drop(&mut self) {
        let mut held = held_here();
        if let Some(i) = held.iter().position(|p| *p == self.path) {
            held.swap_remove(i);
        }
    }
}

/// Why [`BatchLock::take`] got no lock.
#[derive(Debug)]
pub(super) enum LockRefused {
    /// Another open of the lock file holds it: a live process (perhaps this one) works the
    /// batch; its process id when the file says it.
    Held(Option<u32>),
    /// The lock file cannot be made or locked (what and where).
    Io(String),
}

impl BatchLock {
    /// Takes the lock of batch `batch_id` in `data_dir`, writing this process's id into it.
    ///
    /// # Errors
    /// [`LockRefused::Held`] while another open holds it (tried [`CLAIM_TRIES`] times, 10 ms
    /// apart); [`LockRefused::Io`] when the folder or file cannot be made or locked.
    pub(super) fn take(data_dir: &Path, batch_id: &str) -> Result<Self, LockRefused> {
        Self::take_named(data_dir, "batch", batch_id)
    }

    /// [`Self::take`] for the lock `locks/KIND-ID.lock` (`batch`, `watch`).
    ///
    /// # Errors
    /// As [`Self::take`].
    pub(super) fn take_named(data_dir: &Path, kind: &str, id: &str) -> Result<Self, LockRefused> {
        let path = lock_path(data_dir, kind, id);
        let io_err = |what: &str, e: io::Error| {
            LockRefused::Io(format!(
                "cannot {what} the batch lock ({e}): {}",
                path.display()
            ))
        };
        if let Some(dir) = path.parent() {
            create_private_dir_all(dir).map_err(|e| io_err("create the folder of", e))?;
        }
        let mut file = private_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| io_err("open", e))?;
        let mut tries = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if tries + 1 < CLAIM_TRIES => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(LockRefused::Held(read_pid(&mut file)));
                }
                Err(TryLockError::Error(e)) => return Err(io_err("lock", e)),
            }
        }
        // Who holds it, for the message a refused claim shows; the lock works without it.
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| write!(file, "{}", std::process::id()));
        held_here().push(path.clone());
        Ok(Self { _file: file, path })
    }

    /// Deletes the lock file while still holding it, then releases it: for a batch or watch
    /// that has ended for good (nobody claims it again; a failed delete leaves the file).
    pub(super) fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether another live process works batch `batch_id`: some open of its lock file holds it,
/// and not one of this process. A missing or unreadable file counts as not held.
pub(super) fn batch_is_held_elsewhere(data_dir: &Path, batch_id: &str) -> bool {
    lock_holder(data_dir, "batch", batch_id) == Some(false)
}

/// Who holds the lock `locks/KIND-ID.lock`: `Some(true)` this process, `Some(false)` another
/// live process, `None` nobody (a missing or unreadable file counts as not held).
pub(super) fn lock_holder(data_dir: &Path, kind: &str, id: &str) -> Option<bool> {
    let path = lock_path(data_dir, kind, id);
    if held_here().contains(&path) {
        return Some(true);
    }
    File::open(path)
        .is_ok_and(|file| matches!(file.try_lock_shared(), Err(TryLockError::WouldBlock)))
        .then_some(false)
}

/// The lock file `locks/KIND-ID.lock` (an id is a UUID; any other character than a hex digit
/// or a dash is left out, so the name stays in the folder).
fn lock_path(data_dir: &Path, kind: &str, id: &str) -> PathBuf {
    let name: String = id
        .chars()
        .filter(|c| c.is_ascii_hexdigit() || *c == '-')
        .collect();
    data_dir.join(LOCKS).join(format!("{kind}-{name}.lock"))
}

/// The process id a batch lock file holds, if it can be read.
fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

/// The shared lock that says "process PID still writes runs here", held by a history
/// connection from its first recorded run until it closes. The last of a process's writer locks
/// on a data folder deletes its file as it closes; the files of processes that ended without
/// closing (`kill -9`) are deleted by the next process that takes one ([`sweep_writer_locks`]).
#[derive(Debug)]
pub(super) struct WriterLock {
    file: Option<File>,
    path: PathBuf,
}

/// How many [`WriterLock`]s this process holds, per lock file.
static WRITER_LOCKS: std::sync::Mutex<Vec<(PathBuf, usize)>> = std::sync::Mutex::new(Vec::new());

fn writer_locks() -> std::sync::MutexGuard<'static, Vec<(PathBuf, usize)>> {
    // A panic while holding it leaves a plain list: still usable.
    WRITER_LOCKS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl WriterLock {
    /// Takes this process's writer lock in `data_dir` (waiting the microseconds a look at it by
    /// [`writer_is_alive`] may hold it). The first one of the process sweeps the files of writers
    /// that are gone.
    ///
    /// # Errors
    /// What failed and where, when the folder or file cannot be made or locked.
    pub(super) fn take(data_dir: &Path) -> Result<Self, String> {
        let path = writer_lock_path(data_dir, std::process::id());
        let io_err = |what: &str, e: io::Error| format!("cannot {what} ({e}): {}", path.display());
        if let Some(dir) = path.parent() {
            create_private_dir_all(dir)
                .map_err(|e| io_err("create the folder of writer locks", e))?;
        }
        let mut held = writer_locks();
        let first = !held.iter().any(|(p, _)| *p == path);
        if first {
            sweep_writer_locks(data_dir);
        }
        let file = loop {
            let file = private_options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| io_err("open the writer lock", e))?;
            file.lock_shared()
                .map_err(|e| io_err("lock the writer lock", e))?;
            // Another process's sweep may have deleted the file between the open and the lock
            // (it was not held then): a lock on a deleted file says nothing, so take a new one.
            if path.exists() {
                break file;
            }
        };
        match held.iter_mut().find(|(p, _)| *p == path) {
            Some((_, n)) => *n += 1,
            None => held.push((path.clone(), 1)),
        }
        Ok(Self {
            file: Some(file),
            path,
        })
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let mut held = writer_locks();
        if let Some(i) = held.iter().position(|(p, _)| *p == self.path) {
            held[i].1 -= 1;
            if held[i].1 == 0 {
                held.swap_remove(i);
                // Deleted while still held: a look at it meanwhile sees a live writer.
                let _ = std::fs::remove_file(&self.path);
            }
        }
        self.file = None;
    }
}

/// Deletes the writer lock files in `data_dir` that nobody holds (their processes ended without
/// closing their history). Each is locked exclusively before it is deleted, so a live writer's
/// file is never deleted; a writer that opened its file but has not locked it yet notices the
/// deletion and takes a new one ([`WriterLock::take`]).
fn sweep_writer_locks(data_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(data_dir.join(LOCKS)) else {
        return;
    };
    let own = writer_lock_path(data_dir, std::process::id());
    for entry in entries.flatten() {
        let path = entry.path();
        // Only the names `writer_lock_path` makes.
        let is_writer = path.extension().is_some_and(|e| e == "lock")
            && path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("writer-"));
        if !is_writer || path == own {
            continue;
        }
        if let Ok(file) = OpenOptions::new().read(true).write(true).open(&path)
            && file.try_lock().is_ok()
        {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Whether process `pid` still holds its writer lock in `data_dir` (it is this process, or a
/// live one that recorded runs there). A missing file means it never took one: gone.
pub(super) fn writer_is_alive(data_dir: &Path, pid: i64) -> bool {
    if pid == i64::from(std::process::id()) {
        return true;
    }
    let Ok(pid) = u32::try_from(pid) else {
        return false;
    };
    File::open(writer_lock_path(data_dir, pid))
        .is_ok_and(|file| matches!(file.try_lock(), Err(TryLockError::WouldBlock)))
}

fn writer_lock_path(data_dir: &Path, pid: u32) -> PathBuf {
    data_dir.join(LOCKS).join(format!("writer-{pid}.lock"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_lock_is_exclusive_until_dropped_and_names_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            !batch_is_held_elsewhere(dir.path(), "0190-ab"),
            "no file yet"
        );
        let held = BatchLock::take(dir.path(), "0190-ab").unwrap();
        // Held, but by this process.
        assert!(!batch_is_held_elsewhere(dir.path(), "0190-ab"));
        // A second open in this same process is refused as another process would be.
        match BatchLock::take(dir.path(), "0190-ab") {
            Err(LockRefused::Held(pid)) => {
                #[cfg(unix)]
                assert_eq!(pid, Some(std::process::id()));
                #[cfg(not(unix))]
                let _ = pid;
            }
            other => panic!("{other:?}"),
        }
        assert!(
            BatchLock::take(dir.path(), "0190-cd").is_ok(),
            "another batch"
        );
        drop(held);
        assert!(!held_here().contains(&lock_path(dir.path(), "batch", "0190-ab")));
        assert!(BatchLock::take(dir.path(), "0190-ab").is_ok(), "free again");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(lock_path(dir.path(), "batch", "0190-ab"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "only the user's");
        }
    }

    #[test]
    fn a_writer_is_alive_while_its_lock_is_held() {
        let dir = tempfile::tempdir().unwrap();
        // Above Linux's largest pid (2^22): never a process here.
        assert!(!writer_is_alive(dir.path(), 1 << 23));
        assert!(!writer_is_alive(dir.path(), -1));
        assert!(writer_is_alive(dir.path(), i64::from(std::process::id())));
        // A file left by a process that ended (nobody holds it) is not a live writer.
        std::fs::create_dir_all(dir.path().join(LOCKS)).unwrap();
        std::fs::write(writer_lock_path(dir.path(), 1 << 23), "").unwrap();
        assert!(!writer_is_alive(dir.path(), 1 << 23));
        // Two connections of one process share the lock.
        let a = WriterLock::take(dir.path()).unwrap();
        let b = WriterLock::take(dir.path()).unwrap();
        drop((a, b));
    }

    #[test]
    fn writer_lock_files_go_with_their_last_holder_and_stale_ones_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let own = writer_lock_path(dir.path(), std::process::id());
        std::fs::create_dir_all(dir.path().join(LOCKS)).unwrap();
        // Left by a process that ended without closing (nobody holds it).
        let stale = writer_lock_path(dir.path(), 1 << 23);
        std::fs::write(&stale, "").unwrap();
        // Held by a live process: another open holding it (as another process would).
        let live = writer_lock_path(dir.path(), (1 << 23) + 1);
        let held = File::create(&live).unwrap();
        held.lock_shared().unwrap();
        let a = WriterLock::take(dir.path()).unwrap();
        assert!(!stale.exists(), "the first take sweeps files nobody holds");
        assert!(live.exists(), "a held file stays");
        let b = WriterLock::take(dir.path()).unwrap();
        drop(a);
        assert!(own.exists(), "one connection still holds it");
        assert!(writer_is_alive(dir.path(), i64::from(std::process::id())));
        drop(b);
        assert!(!own.exists(), "the last holder deletes it");
        drop(held);
        let _c = WriterLock::take(dir.path()).unwrap();
        assert!(!live.exists(), "swept once its holder is gone");
        assert!(own.exists());
    }
}
