//! One attempt: own DNS lookup, fresh request, redirects followed hop by hop, body streamed,
//! everything bounded by the total timeout (cut to the deadline) and timed on the monotonic clock.

use super::body_preview::read_preview;
use super::classify::{Phase, classify};
use super::client_cache::EngineClient;
use super::hop_request::HopRequest;
use super::host_lookup::HostLookup;
use super::phase_probe::{PhaseProbe, ProbeMarks, with_probe};
use super::resolver::lookup;
use crate::model::{
    AttemptOutcome, ConnectionUse, ErrorKind, Hop, NetError, ResponseSummary, Timings,
};
use reqwest::header;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The bound on a whole attempt and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TotalLimit {
    /// The limit.
    pub(crate) limit: Duration,
    /// True when the time left before the run's deadline is the binding limit.
    pub(crate) by_deadline: bool,
}

/// How one attempt may proceed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AttemptRules<'a> {
    /// Follow 301/302/303/307/308 answers that carry a `Location`.
    pub(crate) follow_redirects: bool,
    /// Most hops followed; one more is an error.
    pub(crate) max_redirects: u32,
    /// Keep secret headers on a redirect to another origin ([`crate::model::RequestSpec::location_trusted`]).
    pub(crate) location_trusted: bool,
    /// DNS lookup limit.
    pub(crate) resolve_timeout: Option<Duration>,
    /// The client's read timeout (between chunks), for error messages.
    pub(crate) read_timeout: Option<Duration>,
    /// Whole-attempt limit.
    pub(crate) total: Option<TotalLimit>,
    /// Bytes of the response body kept (the rest is counted).
    pub(crate) body_cap: usize,
    /// Where the whole body goes as well, as this attempt's (see [`super::BodySink`]).
    pub(crate) body_sink: Option<(&'a dyn super::BodySink, u32)>,
    /// The run's own name lookup, when one was given (else the system resolver).
    pub(crate) host_lookup: Option<&'a dyn HostLookup>,
}

/// What an attempt produced.
#[derive(Debug, Clone)]
pub(crate) struct AttemptReport {
    /// Final response or classified error.
    pub(crate) outcome: AttemptOutcome,
    /// Redirect hops followed, in order.
    pub(crate) hops: Vec<Hop>,
    /// Measured timings.
    pub(crate) timings: Timings,
    /// The last request sent (the one a retry repeats).
    pub(crate) last: HopRequest,
}

/// State an attempt builds up, kept even when the total timeout cuts it short.
struct Progress {
    current: HopRequest,
    hops: Vec<Hop>,
    resolve_ms: Option<f64>,
    headers_ms: Option<f64>,
    /// When the final (so far) hop began, after redirects.
    last_hop_start: Option<Instant>,
    /// The current hop's probe, once its request went to the client.
    probe: Option<Arc<PhaseProbe>>,
    /// The probe's marks when the current hop's response head arrived.
    head_marks: Option<ProbeMarks>,
    /// The current hop goes over TLS.
    tls: bool,
}

/// Runs one attempt of `request` through `client`.
pub(crate) async fn run_attempt(
    client: &EngineClient,
    request: HopRequest,
    rules: AttemptRules<'_>,
) -> AttemptReport {
    let start = Instant::now();
    let mut progress = Progress {
        current: request,
        hops: Vec::new(),
        resolve_ms: None,
        headers_ms: None,
        last_hop_start: None,
        probe: None,
        head_marks: None,
        tls: false,
    };
    let result = {
        let exchange = exchange(client, &mut progress, rules, start);
        match rules.total {
            Some(total) => match tokio::time::timeout(total.limit, exchange).await {
                Ok(result) => result,
                Err(_) => Err(total_timeout(total)),
            },
            None => exchange.await,
        }
    };
    let timings = timings_of(&progress, start, start.elapsed());
    AttemptReport {
        outcome: match result {
            Ok(summary) => AttemptOutcome::Response(summary),
            Err(error) => AttemptOutcome::Error(error),
        },
        hops: progress.hops,
        timings,
        last: progress.current,
    }
}

/// The attempt's timings from what `progress` saw, `elapsed` after `start`.
///
/// Connection use of the final hop: no probe (DNS failed first) is unknown; a connect that
/// began and was ready before the response head is a new connection; a connect that began but
/// was not ready when the head arrived was one hyper finished in the background for the pool
/// while the request took an idle connection, so that request reused one; no connect at all is
/// a reused connection.
fn timings_of(progress: &Progress, start: Instant, elapsed: Duration) -> Timings {
    let offset = |at: Instant| ms(at.saturating_duration_since(start));
    let mut timings = Timings {
        resolve_ms: progress.resolve_ms,
        last_hop_start_ms: progress.last_hop_start.map(offset),
        headers_ms: progress.headers_ms,
        total_ms: ms(elapsed),
        ..Timings::default()
    };
    let Some(probe) = &progress.probe else {
        return timings;
    };
    let now = probe.marks();
    let connect = progress.head_marks.unwrap_or(now);
    let background = progress.head_marks.is_some() && connect.connect_end.is_none();
    match connect.connect_start {
        Some(begun) if !background => {
            timings.connection = ConnectionUse::New;
            timings.connect_start_ms = Some(offset(begun));
            timings.connect_ms = connect
                .connect_end
                .map(|end| ms(end.saturating_duration_since(begun)));
            match (connect.tls_start, connect.connect_end) {
                (Some(tls), Some(end)) if progress.tls => {
                    timings.tls_ms = Some(ms(end.saturating_duration_since(tls)));
                }
                _ => timings.tls_in_connect = progress.tls,
            }
        }
        _ => timings.connection = ConnectionUse::Reused,
    }
    timings.sent_ms = now.sent.map(offset);
    timings
}

/// Milliseconds as `f64`.
pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn total_timeout(total: TotalLimit) -> NetError {
    let limit = total.limit.as_millis();
    NetError {
        kind: ErrorKind::Timeout,
        message: if total.by_deadline {
            format!(
                "deadline reached during the attempt: aborted after {limit} ms (the time that was left)"
            )
        } else {
            format!("attempt exceeded the total timeout of {limit} ms")
        },
        dns: None,
    }
}

/// The exchange proper: hop after hop until a final response.
async fn exchange(
    client: &EngineClient,
    progress: &mut Progress,
    rules: AttemptRules<'_>,
    start: Instant,
) -> Result<ResponseSummary, NetError> {
    loop {
        if !progress.hops.is_empty() {
            progress.last_hop_start = Some(Instant::now());
        }
        progress.probe = None;
        progress.head_marks = None;
        if let Some(host) = progress.current.url.domain() {
            let before = Instant::now();
            let looked_up = lookup(host, rules.resolve_timeout, rules.host_lookup).await;
            *progress.resolve_ms.get_or_insert(0.0) += ms(before.elapsed());
            let addrs = looked_up.map_err(|f| NetError {
                kind: ErrorKind::Dns,
                message: f.message,
                dns: Some(f.cause),
            })?;
            client.resolver.pin(host, addrs);
        }
        let probe = Arc::new(PhaseProbe::default());
        progress.probe = Some(Arc::clone(&probe));
        progress.tls = progress.current.url.scheme() == "https";
        let request = progress.current.to_timed_request(&probe);
        // The TLS client was built before attempt 1 when it starts on `https`; a redirect from
        // `http` to `https` builds it here, within the hop.
        let hop_client = client
            .for_url(&progress.current.url)
            .map_err(|message| NetError {
                kind: ErrorKind::Tls,
                message,
                dns: None,
            })?;
        let executed = with_probe(Arc::clone(&probe), hop_client.execute(request)).await;
        let mut response = executed.map_err(|e| classify(&e, Phase::Head, rules.read_timeout))?;
        progress.head_marks = Some(probe.marks());
        let status = response.status().as_u16();
        let location = response.headers().get(header::LOCATION).cloned();
        if rules.follow_redirects
            && matches!(status, 301 | 302 | 303 | 307 | 308)
            && let Some(location) = location
        {
            let raw = String::from_utf8_lossy(location.as_bytes()).into_owned();
            let to = progress.current.url.join(&raw).map_err(|e| NetError {
                kind: ErrorKind::Other,
                message: format!(
                    "invalid redirect location `{raw}` ({e}) from {}",
                    progress.current.url
                ),
                dns: None,
            })?;
            let (next, dropped_headers) =
                progress
                    .current
                    .redirected(status, to.clone(), rules.location_trusted);
            progress.hops.push(Hop {
                method: progress.current.method.to_string(),
                url: progress.current.url.to_string(),
                status,
                location: to.to_string(),
                dropped_headers,
            });
            if progress.hops.len() > rules.max_redirects as usize {
                return Err(NetError {
                    kind: ErrorKind::Other,
                    message: format!(
                        "too many redirects: more than {} hops; raise max_redirects or fix the redirect chain ending at {to}",
                        rules.max_redirects
                    ),
                    dns: None,
                });
            }
            progress.current = next;
            continue;
        }
        progress.headers_ms = Some(ms(start.elapsed()));
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let reason = response
            .status()
            .canonical_reason()
            .unwrap_or("")
            .to_owned();
        let version = format!("{:?}", response.version());
        let body = read_preview(
            &mut response,
            rules.read_timeout,
            rules.body_cap,
            rules.body_sink,
        )
        .await?;
        return Ok(ResponseSummary {
            status,
            reason,
            version,
            headers,
            body,
        });
    }
}
