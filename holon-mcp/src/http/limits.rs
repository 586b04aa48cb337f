//! What one client may hold of the HTTP server: the time to send a request's head
//! (half-sent and idle connections), the open connections, those of one peer that
//! have not sent a valid token yet, the open sessions; and the back-off when
//! `accept` fails.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, PoisonError};
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
    /// Connections open at once from one peer address (an IPv6 peer: its /64) that
    /// have not yet sent a request with a valid token; one more from that peer is
    /// answered 503 and closed. A connection stops counting here at its first
    /// request with a valid token. It keeps a peer without a token from holding
    /// all of `max_connections`; keep it well below that.
    pub max_unauthenticated_per_peer: usize,
    /// Sessions open at once; an `initialize` past it is answered 503 with a
    /// JSON-RPC error (sessions end with `DELETE`, or after 5 idle minutes).
    pub max_sessions: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 256,
            max_unauthenticated_per_peer: 16,
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

/// The connections of each peer that have not sent a valid token yet. Hand-written:
/// tower's and hyper's limits count connections or requests in total, none per peer
/// address.
#[derive(Debug)]
pub(crate) struct UnauthenticatedPeers {
    counts: Mutex<HashMap<IpAddr, usize>>,
    cap: usize,
}

impl UnauthenticatedPeers {
    /// At most `cap` unauthenticated connections per peer.
    pub(crate) fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            counts: Mutex::new(HashMap::new()),
            cap,
        })
    }

    /// A place for one more unauthenticated connection of `peer`; `None` when it
    /// holds the cap already.
    pub(crate) fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<PeerPlace> {
        let peer = peer_key(peer);
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let count = counts.entry(peer).or_default();
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(PeerPlace {
            peers: Arc::clone(self),
            peer,
        })
    }
}

/// One unauthenticated connection of a peer, counted until dropped.
#[derive(Debug)]
pub(crate) struct PeerPlace {
    peers: Arc<UnauthenticatedPeers>,
    peer: IpAddr,
}

impl Drop for PeerPlace {
    fn drop(&mut self) {
        let mut counts = self
            .peers
            .counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = counts.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.peer);
            }
        }
    }
}

/// A connection's place among its peer's unauthenticated connections, given up at
/// its first request with a valid token.
#[derive(Debug)]
pub(crate) struct PendingConnection(Mutex<Option<PeerPlace>>);

impl PendingConnection {
    /// A connection holding `place`.
    pub(crate) fn new(place: PeerPlace) -> Self {
        Self(Mutex::new(Some(place)))
    }

    /// The connection sent a valid token: it no longer counts against its peer.
    pub(crate) fn authenticated(&self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
    }
}

/// The address a peer is counted under: an IPv4 address as itself (also when mapped
/// into IPv6), an IPv6 address by its /64, the least one host is usually given.
fn peer_key(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(_) => peer,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(v6.to_bits() & !u128::from(u64::MAX))),
        },
    }
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
    fn a_peer_holds_at_most_the_cap_until_a_connection_authenticates() {
        let peers = UnauthenticatedPeers::new(2);
        let peer: IpAddr = "192.0.2.1".parse().unwrap();
        let first = PendingConnection::new(peers.admit(peer).unwrap());
        let _second = peers.admit(peer).unwrap();
        assert!(peers.admit(peer).is_none());
        assert!(peers.admit("192.0.2.2".parse().unwrap()).is_some());
        first.authenticated();
        assert!(peers.admit(peer).is_some());
    }

    #[test]
    fn an_ipv6_peer_is_counted_by_its_64_and_a_mapped_ipv4_as_itself() {
        let key = |text: &str| peer_key(text.parse().unwrap());
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:bbbb::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:192.0.2.1"), key("192.0.2.1"));
    }

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
