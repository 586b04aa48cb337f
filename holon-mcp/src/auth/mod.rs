//! Who may use the HTTP server: the static bearer token, or, with the `oauth`
//! feature, OAuth 2.1 access tokens as the MCP authorization spec has a resource
//! server check them (JWT signature, issuer, expiry, audience bound to this server's
//! URL; RFC 9728 metadata; 401 and 403 challenges), their scopes mapped to the
//! capability families the dispatcher's family gate allows.

#[cfg(feature = "oauth")]
mod config;
mod gate;
mod grant;
mod scopes;

#[cfg(feature = "oauth")]
mod challenge;
#[cfg(feature = "oauth")]
mod keys;
#[cfg(feature = "oauth")]
mod resource_server;
#[cfg(feature = "oauth")]
mod token;

#[cfg(feature = "oauth")]
pub(crate) use config::ASYMMETRIC_ALGORITHMS;
#[cfg(feature = "oauth")]
pub use config::{DEFAULT_ALGORITHMS, KeySource, OAuthConfig};
pub(crate) use gate::Gate;
pub(crate) use grant::GrantedFamilies;
pub use scopes::{DEFAULT_SCOPE_PREFIX, ScopeMap};
