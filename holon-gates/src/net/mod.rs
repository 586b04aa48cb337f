//! The network gate: the one HTTP client of the web and image planes (WebFetch,
//! WebSearch, GenerateImage, XSearch), on reqwest with rustls.
//!
//! Confinement is built into the client rather than checked beside it: the address
//! policy is its DNS resolver (every resolved address checked before the connector
//! sees it, so a second lookup cannot slip a private address in), an IP literal is
//! checked before the request (no resolver sees it), and the redirect policy checks
//! every hop the same way. Proxies from the environment are used only when the
//! operator opts in. One deadline bounds the whole exchange and the body is read up
//! to a byte cap. Nothing here knows the tools: errors are [`NetError`]s.

// The network gate: the one HTTP client and its address-checking resolver.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod address;
mod error;
mod redirect;
mod resolver;
mod trust;
mod url_policy;

use std::time::Duration;

use holon_core::error_chain;
use reqwest::header::{self, HeaderName};
use reqwest::{Method, Url};

pub use address::{PrivateAddresses, non_public_reason};
pub use error::NetError;
pub use trust::TlsTrust;

/// The `User-Agent` of every request.
pub const USER_AGENT: &str = concat!("holon-tools/", env!("CARGO_PKG_VERSION"));

/// The environment variables a proxy is taken from, when the operator opts in.
const PROXY_ENV: &[&str] = &[
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];

/// What every client of a runtime shares: the trusted authorities, and whether the
/// operator lets requests go through the proxies the environment names.
#[derive(Debug, Clone, Default)]
pub struct NetGate {
    /// The certificate authorities https servers are checked against.
    pub tls: TlsTrust,
    /// Use `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` (default: no proxy
    /// at all, whatever the environment says).
    pub proxy_from_env: bool,
}

/// One request.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// GET or POST.
    pub method: Method,
    /// An absolute http or https URL.
    pub url: String,
    /// Extra headers (`Host` and `User-Agent` are set by the client).
    pub headers: Vec<(HeaderName, String)>,
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
    pub fn header(mut self, name: HeaderName, value: impl Into<String>) -> Self {
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
    /// Trust and proxies.
    pub gate: NetGate,
}

impl HttpClient {
    /// A client for a provider the operator configured (a search or model API): its
    /// address is the operator's choice, so it is not checked against the
    /// private-address policy.
    pub fn for_provider(
        timeout: Duration,
        max_body_bytes: usize,
        max_redirects: usize,
        gate: NetGate,
    ) -> Self {
        Self {
            private_addresses: PrivateAddresses::Allow,
            timeout,
            max_body_bytes,
            max_redirects,
            gate,
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

    async fn exchange(&self, request: HttpRequest) -> Result<HttpResponse, NetError> {
        let mut url = url_policy::parse(&request.url, &self.private_addresses)?;
        url.set_fragment(None);
        let proxies = self.proxy_hosts();
        if !proxies.is_empty()
            && self.private_addresses != PrivateAddresses::Allow
            && let Some(url::Host::Domain(host)) = url.host()
        {
            // Through a proxy the proxy resolves the name, not this client's
            // resolver: check it here too (a best effort, see docs/built-in-tools.md).
            resolver::resolve_checked(host, &self.private_addresses).await?;
        }
        let hops = redirect::Hops::default();
        let client = self.build(proxies, hops.clone())?;
        let shown = url.to_string();
        let mut builder = client.request(request.method, url);
        for (name, value) in request.headers {
            builder = builder.header(name, value);
        }
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        let mut response = builder
            .send()
            .await
            .map_err(|error| classify(&error, &shown))?;
        let final_url = response.url().to_string();
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| classify(&error, &final_url))?
        {
            let room = self.max_body_bytes.saturating_sub(body.len());
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        let redirects = std::mem::take(&mut *hops.lock().unwrap_or_else(|p| p.into_inner()));
        Ok(HttpResponse {
            final_url,
            status,
            content_type,
            body,
            truncated,
            redirects,
        })
    }

    /// A reqwest client for one exchange: the policy resolver, the redirect policy
    /// recording into `hops`, rustls with this gate's trust, HTTP/1.1, no retries, no
    /// `Referer`, and proxies only when opted in.
    fn build(
        &self,
        proxies: Vec<String>,
        hops: redirect::Hops,
    ) -> Result<reqwest::Client, NetError> {
        let mut builder = reqwest::Client::builder()
            .tls_backend_preconfigured(self.gate.tls.client_config())
            .dns_resolver(resolver::PolicyResolver {
                policy: self.private_addresses.clone(),
                exempt: proxies,
            })
            .redirect(redirect::policy(
                self.max_redirects,
                self.private_addresses.clone(),
                hops,
            ))
            .http1_only()
            .referer(false)
            .retry(reqwest::retry::never())
            .user_agent(USER_AGENT);
        if !self.gate.proxy_from_env {
            builder = builder.no_proxy();
        }
        builder.build().map_err(|error| NetError::Protocol {
            url: String::new(),
            error: format!("the HTTP client cannot be built: {}", error_chain(&error)),
        })
    }

    /// The hosts of the proxies the environment names, when the operator opted in.
    fn proxy_hosts(&self) -> Vec<String> {
        if !self.gate.proxy_from_env {
            return Vec::new();
        }
        PROXY_ENV
            .iter()
            .filter_map(|name| std::env::var(name).ok())
            .filter_map(|value| {
                // A proxy given without a scheme is http, as reqwest reads it.
                let value = if value.contains("://") {
                    value
                } else {
                    format!("http://{value}")
                };
                Url::parse(&value).ok()?.host_str().map(str::to_string)
            })
            .map(|host| {
                host.trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_string()
            })
            .collect()
    }
}

/// A reqwest error as the gate's: its own refusals (raised by the resolver and the
/// redirect policy) first, then certificate and TLS failures, timeouts, connection
/// failures, and anything else as a protocol error.
fn classify(error: &reqwest::Error, url: &str) -> NetError {
    let url = error.url().map_or_else(|| url.to_string(), Url::to_string);
    let host = error
        .url()
        .and_then(Url::host_str)
        .unwrap_or_default()
        .to_string();
    if let Some(own) = find::<NetError>(error) {
        return match own.clone() {
            // The resolver knows the host only; the hop's URL is known here.
            NetError::AddressRefused {
                address, reason, ..
            } => NetError::AddressRefused {
                url,
                address,
                reason,
            },
            other => other,
        };
    }
    if let Some(tls) = find::<tokio_rustls::rustls::Error>(error) {
        return match tls {
            tokio_rustls::rustls::Error::InvalidCertificate(reason) => NetError::Certificate {
                host,
                error: format!("{reason:?}"),
            },
            other => NetError::Tls {
                host,
                error: other.to_string(),
            },
        };
    }
    let text = error_chain(error);
    if error.is_timeout() {
        NetError::Protocol {
            url,
            error: format!("timed out: {text}"),
        }
    } else if error.is_connect() {
        NetError::Connect { url, error: text }
    } else {
        NetError::Protocol { url, error: text }
    }
}

/// The first error of type `T` in `error`'s source chain, looking inside
/// `io::Error`s too (their `source` skips the error they wrap).
fn find<'a, T: std::error::Error + 'static>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    let mut next = Some(error);
    while let Some(current) = next {
        if let Some(found) = current.downcast_ref::<T>() {
            return Some(found);
        }
        if let Some(inner) = current
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
            && let Some(found) = find::<T>(inner)
        {
            return Some(found);
        }
        next = current.source();
    }
    None
}
