//! Shared state of one demo server: start instant, per-key hit counters and the request log.

use super::log_entry::LogEntry;
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use tokio::time::Instant;

/// Most entries kept in the log; the oldest are dropped beyond it so a long-running server
/// stays bounded in memory.
const LOG_CAPACITY: usize = 100_000;

/// State shared by every connection of one server.
#[derive(Debug)]
pub(crate) struct DemoState {
    started: Instant,
    log: Mutex<VecDeque<LogEntry>>,
    hits: Mutex<HashMap<String, u64>>,
}

impl DemoState {
    /// Fresh state; time 0 is now.
    pub(crate) fn new() -> Self {
        Self {
            started: Instant::now(),
            log: Mutex::new(VecDeque::new()),
            hits: Mutex::new(HashMap::new()),
        }
    }

    /// ms since the server started (monotonic, tokio clock).
    pub(crate) fn elapsed_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    /// Counts one more request for `key`; returns the count including this one (1-based).
    pub(crate) fn hit(&self, key: &str) -> u64 {
        let mut hits = self.hits.lock().unwrap_or_else(PoisonError::into_inner);
        let n = hits.entry(key.to_owned()).or_insert(0);
        *n += 1;
        *n
    }

    /// Appends a log entry.
    pub(crate) fn record(&self, entry: LogEntry) {
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        if log.len() >= LOG_CAPACITY {
            log.pop_front();
        }
        log.push_back(entry);
    }

    /// A copy of the log, oldest first.
    pub(crate) fn log(&self) -> Vec<LogEntry> {
        let log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        log.iter().cloned().collect()
    }

    /// Empties the log and every hit counter.
    pub(crate) fn clear(&self) {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.hits
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

/// The scenario key of a request: the `case` (or `key`) query parameter when present, else the
/// path and query with every such pair removed (so `/status/503?times=2` is its own scenario).
/// `case` is the name to prefer: the secrets rule (DESIGN.md §9) masks a query parameter named
/// `key` as an API key in every output, so `key=a` shows as `key=***`.
pub(crate) fn scenario_key(path: &str, query: Option<&str>) -> String {
    let query = query.unwrap_or("");
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        if SCENARIO_PARAMS.contains(&name.as_ref()) {
            return value.into_owned();
        }
    }
    let rest: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or("");
            !pair.is_empty() && !SCENARIO_PARAMS.contains(&name)
        })
        .collect();
    if rest.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", rest.join("&"))
    }
}

/// Query parameters that name a scenario.
const SCENARIO_PARAMS: [&str; 2] = ["case", "key"];

#[cfg(test)]
mod tests {
    use super::scenario_key;

    #[test]
    fn key_parameter_wins_over_path() {
        assert_eq!(scenario_key("/status/503", Some("times=2&key=abc")), "abc");
        assert_eq!(scenario_key("/status/503", Some("case=c1&times=2")), "c1");
    }

    #[test]
    fn default_key_is_path_and_query_without_key() {
        assert_eq!(
            scenario_key("/status/503", Some("times=2")),
            "/status/503?times=2"
        );
        assert_eq!(scenario_key("/hang", None), "/hang");
    }

    #[test]
    fn counters_count_per_key() {
        let state = super::DemoState::new();
        assert_eq!(state.hit("a"), 1);
        assert_eq!(state.hit("a"), 2);
        assert_eq!(state.hit("b"), 1);
        state.clear();
        assert_eq!(state.hit("a"), 1);
    }
}
