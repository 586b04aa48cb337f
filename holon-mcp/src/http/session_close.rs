//! A client's `DELETE` of its streamable HTTP session (MCP 2025-11-25, transports,
//! "Session Management"): the first close of a live session is answered `200`; a
//! close of a session the server does not have (closed before, or never opened) is
//! answered `404`, as every request naming such a session is.
//!
//! rmcp answers every `DELETE` `202`, whether it closed a session or not. Which
//! `DELETE` closes a session is settled here: the `DELETE`s of one session run one at
//! a time, each looking for the session only once the one before is answered. The
//! first finds it live and closes it; the next finds it gone, unless the first was
//! refused (a bad header) and left it open, and then it closes it.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use http_body_util::combinators::BoxBody;
use hyper::body::{Body, Bytes};
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};
use tokio::sync::OwnedMutexGuard;

use crate::context::SESSION_HEADER;
use crate::http::plain::plain_text;

/// One lock a session id with a `DELETE` running or waiting, by id.
#[derive(Debug, Default)]
pub(crate) struct Closings(Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>);

impl Closings {
    /// Holds `id` for one `DELETE`, once the ones before it are answered.
    async fn claim(&self, id: &str) -> Claim<'_> {
        // The map's lock is let go before the wait.
        let lock = self.locked().entry(id.to_string()).or_default().clone();
        Claim {
            closings: self,
            id: id.to_string(),
            held: Some(lock.lock_owned().await),
        }
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Mutex<()>>>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A session id held by one `DELETE`, released when it is answered.
struct Claim<'a> {
    closings: &'a Closings,
    id: String,
    held: Option<OwnedMutexGuard<()>>,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let Some(held) = self.held.take() else {
            return;
        };
        let lock = Arc::clone(OwnedMutexGuard::mutex(&held));
        drop(held);
        let mut closings = self.closings.locked();
        // The map's and this one: nobody else waits for the id.
        if Arc::strong_count(&lock) == 2 {
            closings.remove(&self.id);
        }
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
    let _claim = closings.claim(&id).await;
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
    plain_text(
        StatusCode::NOT_FOUND,
        "session not found: it was closed or never opened; initialize a new one\n",
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use http_body_util::{BodyExt, Empty, Full};
    use tokio::sync::oneshot;

    use super::*;

    type Answer = Response<BoxBody<Bytes, Infallible>>;

    fn answered(status: StatusCode) -> Answer {
        let mut response = Response::new(Full::new(Bytes::new()).boxed());
        *response.status_mut() = status;
        response
    }

    fn delete_of(id: &str) -> Request<Empty<Bytes>> {
        Request::delete("/mcp")
            .header(SESSION_HEADER, id)
            .body(Empty::new())
            .unwrap()
    }

    /// Of two `DELETE`s of one session at once, the first refused by the transport (as
    /// for a bad protocol-version header) leaves the session open: the second, which
    /// waited for it, closes it, where it was answered 404 while the first ran.
    #[tokio::test]
    async fn a_delete_waiting_on_a_refused_one_closes_the_session_it_left_open() {
        let sessions = LocalSessionManager::default();
        let (id, _transport) = sessions.create_session().await.unwrap();
        let closings = Closings::default();
        let (entered, in_first) = oneshot::channel::<()>();
        let (release, released) = oneshot::channel::<()>();
        let refused = delete(delete_of(&id), &sessions, &closings, |_| async move {
            entered.send(()).unwrap();
            released.await.unwrap();
            answered(StatusCode::BAD_REQUEST)
        });
        let closes = async {
            in_first.await.unwrap();
            let second = delete(delete_of(&id), &sessions, &closings, |_| async {
                sessions.close_session(&id).await.unwrap();
                answered(StatusCode::ACCEPTED)
            });
            tokio::pin!(second);
            // It waits for the first, however long that runs.
            let waited = tokio::time::timeout(Duration::from_millis(50), &mut second).await;
            assert!(
                waited.is_err(),
                "the second DELETE did not wait for the first"
            );
            release.send(()).unwrap();
            second.await
        };
        let (first, second) = tokio::join!(refused, closes);
        assert_eq!(first.status(), StatusCode::BAD_REQUEST);
        assert_eq!(second.status(), StatusCode::OK);
        assert!(!sessions.has_session(&id).await.unwrap());
        assert!(closings.locked().is_empty(), "a released id is forgotten");
    }
}
