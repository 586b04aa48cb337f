//! A client's `DELETE` of its streamable HTTP session (MCP 2025-11-25, transports,
//! "Session Management"): the first close of a live session is answered `200`; a
//! close of a session the server does not have (closed before, or never opened) is
//! answered `404`, as every request naming such a session is.
//!
//! rmcp answers every `DELETE` `202`, whether it closed a session or not. Which
//! `DELETE` closes a session is settled here: each claims the session id before it
//! looks for the session, so of two at once only one can find it live.

use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};

use crate::context::SESSION_HEADER;

/// The sessions a `DELETE` is closing right now, by id.
#[derive(Debug, Default)]
pub(crate) struct Closings(Mutex<HashSet<String>>);

impl Closings {
    /// Marks `id` as being closed, or `None` when another `DELETE` already is.
    fn claim(&self, id: &str) -> Option<Claim<'_>> {
        let mut closing = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        closing.insert(id.to_string()).then(|| Claim {
            closings: self,
            id: id.to_string(),
        })
    }
}

/// A session id claimed by one `DELETE`, released when it is answered.
struct Claim<'a> {
    closings: &'a Closings,
    id: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut closing = self
            .closings
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        closing.remove(&self.id);
    }
}

/// Answers the `DELETE` `request`: `close` (the transport's handling) closes a live
/// session, answered `200`; an unknown or closed one is `404`. A request without a
/// session id is the transport's to refuse.
pub(crate) async fn delete<B, F>(
    request: Request<B>,
    sessions: &LocalSessionManager,
    closings: &Closings,
    close: impl FnOnce(Request<B>) -> F,
) -> Response<BoxBody<Bytes, Infallible>>
where
    B: Body,
    F: Future<Output = Response<BoxBody<Bytes, Infallible>>>,
{
    let Some(id) = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_string)
    else {
        return close(request).await;
    };
    let Some(_claim) = closings.claim(&id) else {
        return session_not_found();
    };
    let id: SessionId = Arc::from(id);
    // The local manager's lookup cannot fail; should it, the transport decides.
    if !sessions.has_session(&id).await.unwrap_or(true) {
        return session_not_found();
    }
    let mut response = close(request).await;
    // rmcp answers a closed session 202; MCP clients (the official Python SDK's
    // among them) expect 200 or 204, and its server says 200.
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}

/// The answer to a request naming a session the server does not have.
fn session_not_found() -> Response<BoxBody<Bytes, Infallible>> {
    let body = Bytes::from_static(
        b"session not found: it was closed or never opened; initialize a new one\n",
    );
    let mut response = Response::new(Full::new(body).boxed());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
