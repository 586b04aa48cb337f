//! The network gate's errors as the model sees them: [`fetch_error`] for WebFetch's
//! page fetches, and the shared shape of a provider's HTTP status error. Here, not in
//! the gate, because the hints name the operator's switches.

use holon_core::{ToolError, ToolErrorKind};
use holon_gates::net::NetError;
use holon_runtime::services::WEB_ALLOW_PRIVATE_ENV;

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

/// A fetch of a URL the model gave: the kind says what to change, `url` is the field
/// at fault where it is.
pub fn fetch_error(error: NetError) -> ToolError {
    {
        let kind = ToolErrorKind::new;
        let message = error.to_string();
        match error {
            NetError::InvalidUrl { .. } => ToolError::new(kind("invalid_url"), message)
                .with_field("url")
                .with_hint("give an absolute URL such as https://example.com/page"),
            NetError::UnsupportedScheme { .. } => ToolError::new(kind("unsupported_url_scheme"), message)
                .with_field("url")
                .with_hint("only http:// and https:// URLs are fetched; read local files with the workspace tools"),
            NetError::AddressRefused { .. } => ToolError::new(kind("address_refused"), message)
                .with_field("url")
                .with_hint(format!(
                    "WebFetch reaches public addresses only; the operator can allow private ones with {WEB_ALLOW_PRIVATE_ENV}"
                )),
            NetError::Resolve { .. } => ToolError::new(kind("dns_failed"), message)
                .with_field("url")
                .with_hint("check the host name's spelling"),
            NetError::TooManyRedirects { .. } => ToolError::new(kind("too_many_redirects"), message)
                .with_field("url")
                .with_hint("the page redirects in a loop or too often; try the final address directly"),
            NetError::Timeout { .. } => ToolError::new(kind("fetch_timed_out"), message)
                .with_hint("the server is slow; try again later")
                .retryable(),
            NetError::Certificate { .. } => ToolError::new(kind("certificate_refused"), message)
                .with_field("url")
                .with_hint(
                    "the site's certificate is not trusted here; if it is signed by an internal authority, the operator can add that authority with --ca-file (HOLON_CA_FILE)",
                ),
            NetError::Connect { .. } | NetError::Tls { .. } | NetError::Protocol { .. } => {
                ToolError::new(kind("fetch_failed"), message)
                    .with_hint("the server may be down or misconfigured; try again later")
                    .retryable()
            }
        }
    }
}
