//! A small HTTP/1.1 client for the web and image planes, on hyper's connection API.
//!
//! It resolves each host itself, checks every resolved address against a
//! [`PrivateAddresses`] policy and connects to exactly the checked address (a second
//! lookup never happens, so DNS rebinding cannot slip a private address in). It
//! follows redirects by hand, up to a bound, with the same check on every hop; bounds
//! the whole exchange by one deadline; and stops reading a body past a byte cap.

mod address;
mod error;
mod target;
mod tls;

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

pub use address::{PrivateAddresses, non_public_reason};
pub use error::{NetError, RATE_LIMITED_HINT, provider_status_error};
pub use target::{Scheme, Target, form_encode};
pub use tls::TlsTrust;

/// The `User-Agent` of every request.
pub const USER_AGENT: &str = concat!("holon-tools/", env!("CARGO_PKG_VERSION"));

/// One request.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// GET or POST.
    pub method: Method,
    /// An absolute http or https URL.
    pub url: String,
    /// Extra headers (`Host`, `User-Agent`, `Accept-Encoding` are set by the client).
    pub headers: Vec<(header::HeaderName, String)>,
    /// The body, for POST.
    pub body: Option<Vec<u8>>,
}

impl HttpRequest {
    /// A GET of `url`.
    pub fn get(url: impl Into<String>) -> Self {
        Self {
            method: Method::GET,
            url: url.into(),
            headers: Vec::new(),
            body: None,
        }
    }

    /// A POST of a JSON body to `url`.
    pub fn post_json(url: impl Into<String>, body: &serde_json::Value) -> Self {
        Self {
            method: Method::POST,
            url: url.into(),
            headers: vec![(header::CONTENT_TYPE, "application/json".to_string())],
            body: Some(body.to_string().into_bytes()),
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: header::HeaderName, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// Adds `Authorization: Bearer <key>` when there is a key.
    pub fn bearer(self, key: Option<&str>) -> Self {
        match key {
            Some(key) => self.header(header::AUTHORIZATION, format!("Bearer {key}")),
            None => self,
        }
    }
}

/// A response, its body read up to the cap.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// The URL that answered, after redirects.
    pub final_url: String,
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The body, at most the cap.
    pub body: Vec<u8>,
    /// Whether the body went on past the cap and was not read further.
    pub truncated: bool,
    /// Every URL redirected to, in order.
    pub redirects: Vec<String>,
}

/// The client's limits and address policy.
#[derive(Debug, Clone)]
pub struct HttpClient {
    /// Which non-public addresses requests may reach.
    pub private_addresses: PrivateAddresses,
    /// The deadline of a whole exchange, redirects and body included.
    pub timeout: Duration,
    /// Bytes of body read at most.
    pub max_body_bytes: usize,
    /// Redirects followed at most; 0 returns a redirect response as it is.
    pub max_redirects: usize,
    /// The certificate authorities https servers are checked against.
    pub tls: TlsTrust,
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// Aborts the task driving a connection when the exchange is over.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl HttpClient {
    /// A client for a provider the operator configured (a search or model API): its
    /// address is the operator's choice, so it is not checked against the
    /// private-address policy.
    pub fn for_provider(
        timeout: Duration,
        max_body_bytes: usize,
        max_redirects: usize,
        tls: TlsTrust,
    ) -> Self {
        Self {
            private_addresses: PrivateAddresses::Allow,
            timeout,
            max_body_bytes,
            max_redirects,
            tls,
        }
    }

    /// Sends `request`, following redirects, within the deadline.
    pub async fn send(&self, request: HttpRequest) -> Result<HttpResponse, NetError> {
        tokio::time::timeout(self.timeout, self.exchange(request))
            .await
            .unwrap_or(Err(NetError::Timeout {
                after: self.timeout,
            }))
    }

    async fn exchange(&self, mut request: HttpRequest) -> Result<HttpResponse, NetError> {
        let mut target = Target::parse(&request.url)?;
        let mut redirects = Vec::new();
        loop {
            let (response, driver) = self.hop(&target, &request).await?;
            let status = response.status();
            let location = response
                .headers()
                .get(header::LOCATION)
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
            if let (true, Some(location)) = (is_redirect(status), location)
                && self.max_redirects > 0
            {
                if redirects.len() >= self.max_redirects {
                    return Err(NetError::TooManyRedirects {
                        limit: self.max_redirects,
                    });
                }
                drop((response, driver));
                target = target.join(&location)?;
                redirects.push(target.to_string());
                let keeps_method = matches!(
                    status,
                    StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
                );
                if !keeps_method && request.method != Method::HEAD {
                    request.method = Method::GET;
                    request.body = None;
                }
                continue;
            }
            let content_type = response
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .map(str::to_string);
            let (body, truncated) = self.read_body(&target, response.into_body()).await?;
            drop(driver);
            return Ok(HttpResponse {
                final_url: target.to_string(),
                status: status.as_u16(),
                content_type,
                body,
                truncated,
                redirects,
            });
        }
    }

    /// One request to one target: resolve, check, connect, send, read the head.
    async fn hop(
        &self,
        target: &Target,
        request: &HttpRequest,
    ) -> Result<(hyper::Response<Incoming>, AbortOnDrop), NetError> {
        let url = target.to_string();
        let addresses = self.resolve(target).await?;
        let mut last_error = String::from("no address");
        let mut connected = None;
        for address in addresses {
            match TcpStream::connect(address).await {
                Ok(stream) => {
                    connected = Some(stream);
                    break;
                }
                Err(error) => last_error = format!("{address}: {error}"),
            }
        }
        let stream = connected.ok_or_else(|| NetError::Connect {
            url: url.clone(),
            error: last_error,
        })?;
        let io: Box<dyn Io> = match target.scheme {
            Scheme::Http => Box::new(stream),
            Scheme::Https => Box::new(self.tls.handshake(&target.host, stream).await?),
        };
        let protocol = |error: String| NetError::Protocol {
            url: url.clone(),
            error,
        };
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
            .await
            .map_err(|error| protocol(error.to_string()))?;
        let driver = AbortOnDrop(tokio::spawn(async move {
            // The connection's own error surfaces through the request and body futures.
            let _ = connection.await;
        }));
        let mut builder = hyper::Request::builder()
            .method(request.method.clone())
            .uri(target.path_and_query.as_str())
            .header(header::HOST, target.host_header())
            .header(header::USER_AGENT, USER_AGENT)
            .header(header::ACCEPT_ENCODING, "identity");
        for (name, value) in &request.headers {
            let value = HeaderValue::from_str(value)
                .map_err(|error| protocol(format!("header `{name}`: {error}")))?;
            builder = builder.header(name, value);
        }
        let body = Full::new(Bytes::from(request.body.clone().unwrap_or_default()));
        let outgoing = builder
            .body(body)
            .map_err(|error| protocol(error.to_string()))?;
        let response = sender
            .send_request(outgoing)
            .await
            .map_err(|error| protocol(error.to_string()))?;
        Ok((response, driver))
    }

    /// The addresses `target`'s host resolves to, every one checked by the policy.
    async fn resolve(&self, target: &Target) -> Result<Vec<SocketAddr>, NetError> {
        let addresses: Vec<SocketAddr> = match target.host.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, target.port)],
            Err(_) => tokio::net::lookup_host((target.host.as_str(), target.port))
                .await
                .map_err(|error| NetError::Resolve {
                    host: target.host.clone(),
                    error: error.to_string(),
                })?
                .collect(),
        };
        if addresses.is_empty() {
            return Err(NetError::Resolve {
                host: target.host.clone(),
                error: "no address".to_string(),
            });
        }
        // One refused address refuses the host: a name that mixes public and private
        // addresses is not trusted with either.
        for address in &addresses {
            self.private_addresses
                .check(address.ip())
                .map_err(|reason| NetError::AddressRefused {
                    url: target.to_string(),
                    address: address.ip(),
                    reason,
                })?;
        }
        Ok(addresses)
    }

    /// Reads the body up to the cap; past it, stops reading and says so.
    async fn read_body(
        &self,
        target: &Target,
        mut body: Incoming,
    ) -> Result<(Vec<u8>, bool), NetError> {
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|error| NetError::Protocol {
                url: target.to_string(),
                error: error.to_string(),
            })?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let room = self.max_body_bytes.saturating_sub(bytes.len());
            if data.len() > room {
                bytes.extend_from_slice(&data[..room]);
                return Ok((bytes, true));
            }
            bytes.extend_from_slice(&data);
        }
        Ok((bytes, false))
    }
}

fn is_redirect(status: StatusCode) -> bool {
    matches!(
        status,
        StatusCode::MOVED_PERMANENTLY
            | StatusCode::FOUND
            | StatusCode::SEE_OTHER
            | StatusCode::TEMPORARY_REDIRECT
            | StatusCode::PERMANENT_REDIRECT
    )
}
