//! What one client may hold of the HTTP server: the time to send a request's head
//! (half-sent and idle connections), the open connections, the open sessions; and
//! the back-off when `accept` fails.

use std::convert::Infallible;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::json;

use crate::context::SESSION_HEADER;

/// The limits of an [`HttpServer`](crate::HttpServer).
#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// How long a connection may take to send a request's head, also while it idles
    /// between requests; then it is closed.
    pub header_read_timeout: Duration,
    /// Connections open at once; one more is answered 503 and closed.
    pub max_connections: usize,
    /// Sessions open at once; an `initialize` past it is answered 503 with a
    /// JSON-RPC error (sessions end with `DELETE`, or after 5 idle minutes).
    pub max_sessions: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 256,
            max_sessions: 1024,
        }
    }
}

/// `Ok` unless `request` would open a session (a POST without `Mcp-Session-Id`)
/// while `cap` are open; then the 503 to answer with.
#[allow(clippy::result_large_err)] // the refusal is the response itself, built once
pub(crate) async fn check_sessions<B>(
    request: &Request<B>,
    sessions: &LocalSessionManager,
    cap: usize,
) -> Result<(), Response<BoxBody<Bytes, Infallible>>> {
    if request.method() != Method::POST || request.headers().contains_key(SESSION_HEADER) {
        return Ok(());
    }
    if sessions.sessions.read().await.len() < cap {
        return Ok(());
    }
    let error = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32000,
            "message": format!(
                "too many sessions: this server holds {cap} at once; end one (DELETE) or retry later"
            ),
            "data": { "kind": "too_many_sessions", "max_sessions": cap },
        },
    });
    let mut response = Response::new(Full::new(Bytes::from(error.to_string())).boxed());
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(RETRY_AFTER, HeaderValue::from_static("1"));
    Err(response)
}

/// The wait after a failed `accept`: from 10 ms, doubled each failure in a row up
/// to a second; one warning (a `tracing` event) when failures start, one when they end.
#[derive(Debug, Default)]
pub(crate) struct AcceptBackoff {
    failures: u32,
}

impl AcceptBackoff {
    const FIRST: Duration = Duration::from_millis(10);
    const MOST: Duration = Duration::from_secs(1);

    /// Records a failure; the pause before the next `accept`.
    pub(crate) fn failed(&mut self, name: &str, error: &std::io::Error) -> Duration {
        if self.failures == 0 {
            tracing::warn!(
                "{name}: cannot accept a connection: {error}; retrying with back-off (up to {} s) until it can",
                Self::MOST.as_secs()
            );
        }
        let pause = Self::FIRST
            .saturating_mul(1 << self.failures.min(16))
            .min(Self::MOST);
        self.failures = self.failures.saturating_add(1);
        pause
    }

    /// Records a success, ending a run of failures.
    pub(crate) fn succeeded(&mut self, name: &str) {
        if self.failures > 0 {
            tracing::warn!(
                "{name}: accepting connections again after {} failed attempts",
                self.failures
            );
            self.failures = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_doubles_to_a_second_and_starts_over_after_a_success() {
        let mut backoff = AcceptBackoff::default();
        let error = std::io::Error::other("too many open files");
        let pauses: Vec<u128> = (0..9)
            .map(|_| backoff.failed("t", &error).as_millis())
            .collect();
        assert_eq!(pauses, [10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        backoff.succeeded("t");
        assert_eq!(backoff.failed("t", &error), Duration::from_millis(10));
    }
}
