//! Why a request failed.

use std::net::IpAddr;
use std::time::Duration;

use holon_core::{ToolError, ToolErrorKind};

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetError {
    /// The URL is malformed.
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The scheme is not http or https.
    UnsupportedScheme {
        /// The URL as given.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// The host resolves to an address the policy refuses.
    AddressRefused {
        /// The URL of the hop.
        url: String,
        /// The refused address.
        address: IpAddr,
        /// What kind of address it is.
        reason: &'static str,
    },
    /// The host name did not resolve.
    Resolve {
        /// The host.
        host: String,
        /// The resolver's error.
        error: String,
    },
    /// No address of the host accepted a connection.
    Connect {
        /// The URL of the hop.
        url: String,
        /// The last connection error.
        error: String,
    },
    /// The server's certificate was refused: not signed by a trusted authority, not
    /// for this host, or expired.
    Certificate {
        /// The host.
        host: String,
        /// Why the certificate was refused.
        error: String,
    },
    /// The TLS handshake failed.
    Tls {
        /// The host.
        host: String,
        /// The handshake error.
        error: String,
    },
    /// The server broke the HTTP exchange.
    Protocol {
        /// The URL of the hop.
        url: String,
        /// The error.
        error: String,
    },
    /// The exchange did not finish in time.
    Timeout {
        /// The limit.
        after: Duration,
    },
    /// More redirects than allowed.
    TooManyRedirects {
        /// The bound.
        limit: usize,
    },
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::InvalidUrl { url, reason } => write!(f, "the URL `{url}` is invalid: {reason}"),
            Self::UnsupportedScheme { url, scheme } => write!(
                f,
                "the URL `{url}` uses the scheme `{scheme}`; only http and https are fetched"
            ),
            Self::AddressRefused {
                url,
                address,
                reason,
            } => write!(
                f,
                "{url} resolves to {address}, {reason}, which requests may not reach"
            ),
            Self::Resolve { host, error } => {
                write!(f, "the host `{host}` did not resolve: {error}")
            }
            Self::Connect { url, error } => write!(f, "cannot connect to {url}: {error}"),
            Self::Certificate { host, error } => {
                write!(f, "the certificate of {host} was refused: {error}")
            }
            Self::Tls { host, error } => write!(f, "the TLS handshake with {host} failed: {error}"),
            Self::Protocol { url, error } => {
                write!(f, "the HTTP exchange with {url} failed: {error}")
            }
            Self::Timeout { after } => {
                write!(f, "no complete response within {} ms", after.as_millis())
            }
            Self::TooManyRedirects { limit } => {
                write!(f, "more than {limit} redirects; stopped following them")
            }
        }
    }
}

impl std::error::Error for NetError {}

/// The hint for a provider that answered 429.
pub const RATE_LIMITED_HINT: &str = "the provider is rate limiting; wait and try again";

/// The error of a provider (search, images, XSearch) that answered HTTP `status`: the
/// status in its details, and retryable when the provider is busy or failing (429, 5xx).
pub fn provider_status_error(
    kind: ToolErrorKind,
    message: String,
    status: u16,
    hint: impl Into<String>,
) -> ToolError {
    let error = ToolError::new(kind, message)
        .with_details(serde_json::json!({ "status": status }))
        .with_hint(hint);
    if status == 429 || status >= 500 {
        error.retryable()
    } else {
        error
    }
}
