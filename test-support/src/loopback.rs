//! A loopback HTTP server for a test that needs a service to talk to (a model API, a
//! JWKS endpoint): it answers each request as the test says (or with the next
//! scripted answer) and records what it received. The port is bound before
//! [`LoopbackServer::start`] returns and the listener is handed to the server as is,
//! so no other process can take the port in between.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// The status answered once the script is exhausted: not one a real service sends.
pub const EXHAUSTED: u16 = 599;

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The request's path.
    pub path: String,
    /// Its headers, names lowercase, in the order received.
    pub headers: Vec<(String, String)>,
    /// Its body as JSON (null when it is not JSON).
    pub body: Value,
}

impl Recorded {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// What the server answers a request with: a status and a body.
type Respond = dyn Fn(&Recorded) -> (u16, String) + Send + Sync;

/// A loopback HTTP/1.1 server on a thread of its own; it lives as long as the test
/// process.
pub struct LoopbackServer {
    address: SocketAddr,
    recorded: Arc<Mutex<Vec<Recorded>>>,
}

impl LoopbackServer {
    /// Listens on a free loopback port and answers each request with `script`'s next
    /// (status, body), in order, then with [`EXHAUSTED`].
    pub fn scripted(script: Vec<(u16, String)>) -> Self {
        let script = Mutex::new(script.into_iter());
        Self::start(move |_| {
            script
                .lock()
                .unwrap()
                .next()
                .unwrap_or((EXHAUSTED, "the script is exhausted".to_string()))
        })
    }

    /// Listens on a free loopback port and answers each request with what `respond`
    /// gives for it.
    pub fn start(respond: impl Fn(&Recorded) -> (u16, String) + Send + Sync + 'static) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener.set_nonblocking(true).expect("non-blocking");
        let address = listener.local_addr().expect("the address");
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let respond: Arc<Respond> = Arc::new(respond);
        let log = recorded.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
                while let Ok((stream, _)) = listener.accept().await {
                    let (respond, log) = (respond.clone(), log.clone());
                    let service = service_fn(move |request: Request<Incoming>| {
                        let (respond, log) = (respond.clone(), log.clone());
                        async move {
                            let path = request.uri().path().to_string();
                            let headers = request
                                .headers()
                                .iter()
                                .map(|(k, v)| {
                                    (k.to_string(), v.to_str().unwrap_or_default().to_string())
                                })
                                .collect();
                            let bytes = request
                                .into_body()
                                .collect()
                                .await
                                .map(|body| body.to_bytes())
                                .unwrap_or_default();
                            let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                            let request = Recorded {
                                path,
                                headers,
                                body,
                            };
                            let (status, text) = respond(&request);
                            log.lock().unwrap().push(request);
                            let mut response = Response::new(Full::new(Bytes::from(text)));
                            *response.status_mut() = StatusCode::from_u16(status)
                                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                            Ok::<_, Infallible>(response)
                        }
                    });
                    tokio::spawn(async move {
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            });
        });
        Self { address, recorded }
    }

    /// Where it listens.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.recorded.lock().unwrap().clone()
    }
}

#[cfg(test)]
mod tests {
    use hyper::Method;
    use serde_json::json;

    use super::*;
    use crate::http::{block_on, exchange, message};

    #[test]
    fn it_answers_in_script_order_and_records_what_the_client_sent() {
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        let server = LoopbackServer::scripted(vec![(201, answer.to_string())]);
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let headers = [("mcp-protocol-version", "2025-11-25")];
        let (status, _, body) = block_on(exchange(
            server.address(),
            Method::POST,
            "/mcp",
            &headers,
            Some(&request),
        ));
        assert_eq!(status.as_u16(), 201);
        assert_eq!(message(&body), answer);
        let (status, _, _) = block_on(exchange(server.address(), Method::GET, "/x", &[], None));
        assert_eq!(status.as_u16(), EXHAUSTED);

        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!(requests[0].path, "/mcp");
        assert_eq!(requests[0].body, request);
        assert_eq!(
            requests[0].header("accept"),
            Some("application/json, text/event-stream")
        );
        assert_eq!(
            requests[0].header("mcp-protocol-version"),
            Some("2025-11-25")
        );
        assert_eq!(requests[1].body, Value::Null);
    }

    #[test]
    fn a_message_is_read_from_json_or_from_an_sse_event() {
        let answer = json!({"jsonrpc": "2.0", "id": 3, "result": {}});
        assert_eq!(message(&answer.to_string()), answer);
        let stream = format!("id: 0\ndata:\n\nid: 1\ndata: {answer}\n\n");
        assert_eq!(message(&stream), answer);
        assert_eq!(message(""), Value::Null);
    }
}
