//! The demo server's endpoints, exercised with a plain reqwest client on 127.0.0.1.

#![allow(clippy::unwrap_used)]

use retryscope::demo::{DemoServer, LogEntry};
use std::time::Duration;

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn status_of(c: &reqwest::Client, url: &str) -> u16 {
    c.get(url).send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn status_fails_n_times_per_key_then_answers_200() {
    let server = DemoServer::start(0).await.unwrap();
    let c = client();
    let url = server.url("/status/503?times=2&key=k1");
    let got = [
        status_of(&c, &url).await,
        status_of(&c, &url).await,
        status_of(&c, &url).await,
    ];
    assert_eq!(got, [503, 503, 200]);
    // Another key has its own counter; without times every hit fails.
    assert_eq!(
        status_of(&c, &server.url("/status/503?times=2&key=k2")).await,
        503
    );
    assert_eq!(status_of(&c, &server.url("/status/429")).await, 429);
    assert_eq!(status_of(&c, &server.url("/status/429")).await, 429);
    assert_eq!(status_of(&c, &server.url("/status/42")).await, 400);
    let body: serde_json::Value = c
        .get(server.url("/flaky?key=f"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (body["status"].as_u64(), body["attempt"].as_u64()),
        (Some(503), Some(1))
    );
}

#[tokio::test]
async fn retry_after_is_sent_verbatim_with_a_date_header() {
    let server = DemoServer::start(0).await.unwrap();
    let c = client();
    for raw in [
        "2",
        "1.5",
        "Wed, 21 Oct 2015 07:28:00 GMT",
        "soon-ish",
        "-3",
    ] {
        let url = format!(
            "{}/retry-after?status=503&value={}",
            server.base_url(),
            form_urlencoded::byte_serialize(raw.as_bytes()).collect::<String>()
        );
        let r = c.get(url).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 503);
        assert_eq!(r.headers()["retry-after"], raw);
        assert!(r.headers().contains_key("date"));
    }
    let r = c
        .get(server.url("/retry-after-ms?value=250&times=1&key=ms"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        (r.status().as_u16(), &r.headers()["retry-after-ms"]),
        (429, &"250".parse::<reqwest::header::HeaderValue>().unwrap())
    );
    assert_eq!(
        status_of(&c, &server.url("/retry-after-ms?value=250&times=1&key=ms")).await,
        200
    );
    let r = c
        .get(server.url("/header?name=x-ms-retry-after-ms&value=40&status=503"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        (
            r.status().as_u16(),
            r.headers()["x-ms-retry-after-ms"].to_str().unwrap()
        ),
        (503, "40")
    );
}

#[tokio::test]
async fn echo_returns_method_headers_and_body() {
    let server = DemoServer::start(0).await.unwrap();
    let r: serde_json::Value = client()
        .patch(server.url("/echo?x=1"))
        .header("x-probe", "yes")
        .body("hello")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["method"], "PATCH");
    assert_eq!(r["path"], "/echo?x=1");
    assert_eq!(r["body"], "hello");
    assert!(
        r["headers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h[0] == "x-probe" && h[1] == "yes")
    );
}

#[tokio::test]
async fn bytes_streams_exactly_n_bytes() {
    let server = DemoServer::start(0).await.unwrap();
    let r = client()
        .get(server.url("/bytes?n=200001"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.content_length(), Some(200_001));
    assert_eq!(r.bytes().await.unwrap().len(), 200_001);
}

#[tokio::test]
async fn redirect_sends_location_with_the_chosen_status() {
    let server = DemoServer::start(0).await.unwrap();
    let r = client()
        .get(server.url("/redirect?to=/echo&status=308"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 308);
    assert_eq!(r.headers()["location"], "/echo");
    assert_eq!(
        status_of(&client(), &server.url("/redirect?status=200")).await,
        400
    );
}

#[tokio::test]
async fn redirect_refuses_targets_off_this_machine() {
    let server = DemoServer::start(0).await.unwrap();
    // The client follows no redirect: nothing here leaves loopback.
    for to in [
        "http%3A%2F%2Fexample.com%2F",
        "%2F%2Fexample.com%2Fx",
        "https%3A%2F%2F192.0.2.1%2F",
        "ftp%3A%2F%2F127.0.0.1%2F",
    ] {
        let r = client()
            .get(server.url(&format!("/redirect?to={to}")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 400, "{to}");
        assert!(r.headers().get("location").is_none(), "{to}");
        let body: serde_json::Value = r.json().await.unwrap();
        let error = body["error"].as_str().unwrap();
        assert!(
            error.starts_with("`to` must be a relative path or an http(s) URL to this machine"),
            "{error}"
        );
    }
    // Loopback URLs (this server itself) and relative paths still redirect.
    let own = server.url("/echo");
    let r = client()
        .get(server.url(&format!(
            "/redirect?to={}",
            form_urlencoded::byte_serialize(own.as_bytes()).collect::<String>()
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 302);
    assert_eq!(r.headers()["location"], own.as_str());
    let r = client()
        .get(server.url("/redirect?to=http%3A%2F%2Flocalhost%3A1%2Fx"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 302);
}

#[tokio::test]
async fn reset_closes_the_connection_without_a_response() {
    let server = DemoServer::start(0).await.unwrap();
    let err = client().get(server.url("/reset")).send().await.unwrap_err();
    assert!(!err.is_timeout() && err.status().is_none(), "{err:?}");
    // The server keeps serving other connections.
    assert_eq!(status_of(&client(), &server.url("/status/200")).await, 200);
}

#[tokio::test]
async fn hang_never_answers_and_slow_answers_after_the_delay() {
    let server = DemoServer::start(0).await.unwrap();
    let c = client();
    let hang = tokio::time::timeout(
        Duration::from_millis(200),
        c.get(server.url("/hang")).send(),
    )
    .await;
    assert!(hang.is_err(), "no answer within 200 ms");
    let began = std::time::Instant::now();
    assert_eq!(status_of(&c, &server.url("/slow?ms=120")).await, 200);
    assert!(began.elapsed() >= Duration::from_millis(120));
}

#[tokio::test]
async fn log_records_every_request_in_order_and_clear_empties_it() {
    let server = DemoServer::start(0).await.unwrap();
    let c = client();
    status_of(&c, &server.url("/status/503?times=1")).await;
    c.post(server.url("/echo?key=e"))
        .header("idempotency-key", "abc")
        .body("xyz")
        .send()
        .await
        .unwrap();
    let log: Vec<LogEntry> = c
        .get(server.url("/log"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let direct = server.log();
    assert_eq!(log.len(), direct.len());
    for (a, b) in log.iter().zip(&direct) {
        // JSON floats round-trip to within an ulp or so, not exactly.
        assert!((a.at_ms - b.at_ms).abs() < 1e-6);
        assert_eq!(
            (&a.method, &a.path, &a.key, &a.headers),
            (&b.method, &b.path, &b.key, &b.headers)
        );
    }
    assert_eq!(log.len(), 2, "/log itself is not logged");
    assert_eq!(
        (log[0].method.as_str(), log[0].path.as_str()),
        ("GET", "/status/503?times=1")
    );
    assert_eq!(log[0].key, "/status/503?times=1");
    assert_eq!(
        (log[1].key.as_str(), log[1].body.as_str(), log[1].body_len),
        ("e", "xyz", 3)
    );
    assert_eq!(log[1].header("Idempotency-Key"), Some("abc"));
    // Offsets from the server's start, in arrival order (the second request was sent after the
    // first one's response).
    assert!(
        log[1].at_ms > log[0].at_ms,
        "{} then {}",
        log[0].at_ms,
        log[1].at_ms
    );

    c.post(server.url("/log/clear")).send().await.unwrap();
    assert!(server.log().is_empty());
    // Counters were cleared too: the scenario starts over.
    assert_eq!(status_of(&c, &server.url("/status/503?times=1")).await, 503);
}

#[tokio::test]
async fn unknown_paths_get_404_listing_the_endpoints() {
    let server = DemoServer::start(0).await.unwrap();
    let r = client().get(server.url("/nope")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 404);
    let body: serde_json::Value = r.json().await.unwrap();
    assert!(body["endpoints"].as_array().unwrap().len() > 10);
}

#[tokio::test]
async fn dropping_the_server_stops_listening_and_binds_loopback_only() {
    let server = DemoServer::start(0).await.unwrap();
    let addr = server.addr();
    assert!(addr.ip().is_loopback());
    assert_eq!(server.base_url(), format!("http://{addr}"));
    // `stop` returns once the listener is closed: no sleep, no guessing.
    server.stop().await;
    let err = client()
        .get(format!("http://{addr}/status/200"))
        .send()
        .await
        .unwrap_err();
    assert!(err.is_connect(), "{err:?}");
}

#[tokio::test]
async fn bad_query_parameters_get_400_naming_the_parameter() {
    let server = DemoServer::start(0).await.unwrap();
    let c = client();
    for (path, needle) in [
        ("/status/503?times=abc", "`times`"),
        ("/header?value=1", "`name`"),
        ("/retry-after?value=1&status=700", "`status`"),
        ("/redirect?status=200", "3xx"),
    ] {
        let r = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 400, "{path}");
        let body: serde_json::Value = r.json().await.unwrap();
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(needle), "{path}: {error}");
    }
}
