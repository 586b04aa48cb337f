//! Why a request failed: the gate's own errors. The tools turn them into `ToolError`s
//! (`From` on the tools side), so this module knows nothing of tools.

use std::net::IpAddr;
use std::time::Duration;

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    /// The URL is malformed.
    #[error("the URL `{url}` is invalid: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The scheme is not http or https.
    #[error("the URL `{url}` uses the scheme `{scheme}`; only http and https are fetched")]
    UnsupportedScheme {
        /// The URL as given.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// The host resolves to an address the policy refuses.
    #[error("{url} resolves to {address}, {reason}, which requests may not reach")]
    AddressRefused {
        /// The URL of the hop.
        url: String,
        /// The refused address.
        address: IpAddr,
        /// What kind of address it is.
        reason: &'static str,
    },
    /// The host name did not resolve.
    #[error("the host `{host}` did not resolve: {error}")]
    Resolve {
        /// The host.
        host: String,
        /// The resolver's error.
        error: String,
    },
    /// No address of the host accepted a connection.
    #[error("cannot connect to {url}: {error}")]
    Connect {
        /// The URL of the hop.
        url: String,
        /// The last connection error.
        error: String,
    },
    /// The server's certificate was refused: not signed by a trusted authority, not
    /// for this host, or expired.
    #[error("the certificate of {host} was refused: {error}")]
    Certificate {
        /// The host.
        host: String,
        /// Why the certificate was refused.
        error: String,
    },
    /// The TLS handshake failed.
    #[error("the TLS handshake with {host} failed: {error}")]
    Tls {
        /// The host.
        host: String,
        /// The handshake error.
        error: String,
    },
    /// The server broke the HTTP exchange.
    #[error("the HTTP exchange with {url} failed: {error}")]
    Protocol {
        /// The URL of the hop.
        url: String,
        /// The error.
        error: String,
    },
    /// The exchange did not finish in time.
    #[error("no complete response within {} ms", after.as_millis())]
    Timeout {
        /// The limit.
        after: Duration,
    },
    /// More redirects than allowed.
    #[error("more than {limit} redirects; stopped following them")]
    TooManyRedirects {
        /// The bound.
        limit: usize,
    },
}
