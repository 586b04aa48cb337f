//! An MCP client over streamable HTTP, on hyper's HTTP/1.1 client: requests to the
//! MCP endpoint with the headers the transport asks for (`Accept` of JSON and SSE,
//! the session's id and revision, a bearer token), and the JSON-RPC message of an
//! answer whether it came as JSON or as an SSE stream. A test that sends malformed or
//! partial HTTP on purpose writes its bytes itself: that is what it tests.

use std::future::Future;
use std::net::SocketAddr;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1::SendRequest;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;

use crate::initialize::{V2025_11_25, initialize, initialized};

/// Sends `method` to `path` on `addr` with `headers` and `body`, on a connection of
/// its own: the answer, its body still streaming in (the connection ends when the
/// body is dropped).
pub async fn open(
    addr: SocketAddr,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Response<Incoming> {
    let mut sender = connect(addr).await;
    let body = body.map(Value::to_string).unwrap_or_default();
    sender
        .send_request(request(addr, method, path, headers, body))
        .await
        .expect("the server answers")
}

/// Sends `method` to `path` on `addr` with `headers` and `body`, on a connection of
/// its own: the status, headers and body of the answer, read whole.
pub async fn exchange(
    addr: SocketAddr,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (StatusCode, HeaderMap, String) {
    read_whole(open(addr, method, path, headers, body).await).await
}

/// Sends `method` with `headers` and `body` to the MCP endpoint (`/mcp`): the status,
/// the session id answered, and the JSON-RPC message (from JSON or an SSE stream;
/// null when there is none). The answer is read whole, so the exchange is over
/// before the next one.
pub async fn send(
    addr: SocketAddr,
    method: Method,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (StatusCode, Option<String>, Value) {
    let (status, headers, body) = exchange(addr, method, "/mcp", headers, body).await;
    (status, session_id(&headers), message(&body))
}

/// A 2025-11-25 session of the client `name`, opened (`initialize`) and initialized on
/// `addr`, which asks for no token: its id.
pub async fn open_session(addr: SocketAddr, name: &str) -> String {
    let (status, session, _) = send(addr, Method::POST, &[], Some(&initialize(name))).await;
    assert_eq!(status, StatusCode::OK);
    let session = session.expect("a session id");
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", V2025_11_25),
    ];
    let (status, _, _) = send(addr, Method::POST, &headers, Some(&initialized())).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    session
}

/// The JSON-RPC message of a response body, JSON or an SSE stream (the first event
/// with an `id`; null when there is none).
pub fn message(body: &str) -> Value {
    if let Ok(value) = serde_json::from_str(body) {
        return value;
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|value| value.get("id").is_some())
        .unwrap_or(Value::Null)
}

/// The session id an answer's headers name.
pub fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get("mcp-session-id")
        .map(|id| id.to_str().expect("a visible-ASCII session id").to_string())
}

/// Runs `future` to its end on a runtime of its own: the async client from a test
/// that is not async.
pub fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(future)
}

/// A connection to `addr` (`TCP_NODELAY`, so what a measurement shows of Nagle is the
/// server's), driven on the current runtime: its request side.
async fn connect(addr: SocketAddr) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .unwrap_or_else(|error| panic!("{addr} does not accept: {error}"));
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1.1 connection");
    tokio::spawn(connection);
    sender
}

/// A request to the MCP endpoint's host: JSON in, JSON or SSE out, `headers` added.
fn request(
    addr: SocketAddr,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: String,
) -> Request<Full<Bytes>> {
    let mut request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr.to_string())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .body(Full::new(Bytes::from(body)))
        .expect("a valid request")
}

/// The status, headers and body of `response`, read to its end.
async fn read_whole(response: Response<Incoming>) -> (StatusCode, HeaderMap, String) {
    let (parts, body) = response.into_parts();
    let body = body.collect().await.expect("the answer's body").to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8_lossy(&body).into_owned(),
    )
}

/// One kept-alive connection to an MCP endpoint, for code that is not async (the
/// benches): each request waits for its whole answer, which must have a 2xx status.
pub struct BlockingClient {
    runtime: tokio::runtime::Runtime,
    addr: SocketAddr,
    sender: SendRequest<Full<Bytes>>,
    protocol: &'static str,
    token: Option<String>,
}

impl BlockingClient {
    /// A connection to `addr`, whose sessions speak revision `protocol`, sending
    /// `token` as a bearer token when there is one.
    pub fn connect(addr: SocketAddr, protocol: &'static str, token: Option<&str>) -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let sender = runtime.block_on(connect(addr));
        Self {
            runtime,
            addr,
            sender,
            protocol,
            token: token.map(str::to_string),
        }
    }

    /// `initialize` (as given) and `notifications/initialized`: the session's id.
    pub fn open_session(&mut self, initialize: &Value) -> String {
        let (headers, _) = self.request(Method::POST, &initialize.to_string(), None);
        let session = session_id(&headers).expect("a session id");
        self.request(Method::POST, &initialized().to_string(), Some(&session));
        session
    }

    /// Sends `method` with `body` to `/mcp`, in `session` when there is one: the
    /// answer's headers and body.
    pub fn request(
        &mut self,
        method: Method,
        body: &str,
        session: Option<&str>,
    ) -> (HeaderMap, String) {
        let bearer = self.token.as_ref().map(|token| format!("Bearer {token}"));
        let mut headers = Vec::new();
        if let Some(bearer) = &bearer {
            headers.push(("authorization", bearer.as_str()));
        }
        if let Some(session) = session {
            headers.push(("mcp-session-id", session));
            headers.push(("mcp-protocol-version", self.protocol));
        }
        let request = request(self.addr, method, "/mcp", &headers, body.to_string());
        let sender = &mut self.sender;
        let (status, headers, body) = self.runtime.block_on(async {
            // The answer before was read whole; the connection may still be settling.
            sender.ready().await.expect("the connection stays open");
            let response = sender
                .send_request(request)
                .await
                .expect("the server answers");
            read_whole(response).await
        });
        assert!(status.is_success(), "{status}: {body}");
        (headers, body)
    }
}
