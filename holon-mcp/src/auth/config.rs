//! What an OAuth resource server is told: its own URL (the audience its tokens must
//! name), the issuer it trusts, where the issuer's keys are, and what the scopes grant.

use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use super::scopes::{ScopeMap, check_scope_token};
use crate::ConfigError;

/// The signing algorithms a token may use unless [`OAuthConfig::with_algorithms`]
/// says otherwise.
pub const DEFAULT_ALGORITHMS: [&str; 2] = ["RS256", "ES256"];

/// The asymmetric algorithms a token may be pinned to. Shared-secret (HS*) ones are
/// not among them: a verification key is public, so it must never verify an HMAC.
pub(crate) const ASYMMETRIC_ALGORITHMS: [&str; 9] = [
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA",
];

/// Where the keys that verify access tokens are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// A JWKS document served at this URL (`jwks_uri` of the authorization server),
    /// fetched at start and again when a token names a key it lacks. HTTPS only,
    /// except on a loopback host.
    JwksUrl(Url),
    /// A JWKS document in this file, read at start and again when a token names a key
    /// it lacks.
    JwksFile(PathBuf),
    /// One public key in this PEM file (RSA, EC or Ed25519 `PUBLIC KEY`).
    PublicKeyPem(PathBuf),
}

impl KeySource {
    /// A JWKS URL, refused unless it is HTTPS or on a loopback host: fetched over
    /// plain HTTP elsewhere, anyone on the path could hand the server keys of their own.
    pub fn jwks_url(url: &str) -> Result<Self, ConfigError> {
        let parsed = parse_url("JWKS URL", url)?;
        let loopback = match parsed.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            None => false,
        };
        match parsed.scheme() {
            "https" => Ok(Self::JwksUrl(parsed)),
            "http" if loopback => Ok(Self::JwksUrl(parsed)),
            _ => Err(ConfigError::InsecureJwksUrl(url.to_string())),
        }
    }
}

/// How the HTTP server checks OAuth access tokens, as the MCP authorization spec has
/// a resource server do it (see `docs/mcp-server.md`). Checking needs holon-mcp's
/// `oauth` feature.
#[derive(Debug, Clone)]
pub struct OAuthConfig {
    pub(crate) resource: Url,
    pub(crate) issuer: String,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) keys: KeySource,
    pub(crate) algorithms: Vec<String>,
    pub(crate) scopes: ScopeMap,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) leeway: Duration,
    pub(crate) scope_challenge: bool,
    pub(crate) key_refresh_interval: Duration,
    pub(crate) reserved_subjects: Vec<String>,
}

impl OAuthConfig {
    /// Tokens for the resource `resource` (this server's canonical URL, e.g.
    /// `https://mcp.example.com/mcp`: the audience each token must name, RFC 8707),
    /// issued by `issuer` (each token's `iss`, exactly), signed by a key of `keys`.
    pub fn new(resource: &str, issuer: &str, keys: KeySource) -> Result<Self, ConfigError> {
        let resource = canonical_resource(resource)?;
        let issuer = issuer.trim();
        parse_url("issuer", issuer)?;
        Ok(Self {
            resource,
            issuer: issuer.to_string(),
            authorization_servers: vec![issuer.to_string()],
            keys,
            algorithms: DEFAULT_ALGORITHMS.map(str::to_string).to_vec(),
            scopes: ScopeMap::default(),
            required_scopes: Vec::new(),
            leeway: Duration::from_secs(30),
            scope_challenge: true,
            key_refresh_interval: Duration::from_secs(10),
            reserved_subjects: Vec::new(),
        })
    }

    /// Principals the host's own callers act as without a token (holon-runtime's local
    /// `call` and `session` act as its root agent, `root`): a token whose subject is one
    /// of them is refused as `invalid_token`, so that its holder never shares their
    /// tasks and approvals. (This server's static bearer token's principal is always
    /// reserved.)
    pub fn with_reserved_subjects<S: AsRef<str>>(mut self, subjects: &[S]) -> Self {
        self.reserved_subjects = subjects
            .iter()
            .map(|subject| subject.as_ref().to_string())
            .collect();
        self
    }

    /// The authorization servers the metadata names (the issuer alone by default).
    pub fn with_authorization_servers(mut self, servers: Vec<String>) -> Result<Self, ConfigError> {
        for server in &servers {
            parse_url("authorization server", server)?;
        }
        if servers.is_empty() {
            return Err(ConfigError::NoAuthorizationServer);
        }
        self.authorization_servers = servers;
        Ok(self)
    }

    /// Accepts tokens signed with these algorithms only (JWS names: RS256, ES256,
    /// PS256, EdDSA, ...; no HS*, and never `none`).
    pub fn with_algorithms<S: AsRef<str>>(mut self, names: &[S]) -> Result<Self, ConfigError> {
        let mut algorithms = Vec::new();
        for name in names.iter().map(AsRef::as_ref) {
            let name = name.trim();
            if !ASYMMETRIC_ALGORITHMS.contains(&name) {
                return Err(ConfigError::UnknownAlgorithm(name.to_string()));
            }
            if !algorithms.iter().any(|own| own == name) {
                algorithms.push(name.to_string());
            }
        }
        if algorithms.is_empty() {
            return Err(ConfigError::NoAlgorithm);
        }
        self.algorithms = algorithms;
        Ok(self)
    }

    /// What the scopes grant (default: [`ScopeMap::default`], `tools:<family>`).
    pub fn with_scopes(mut self, scopes: ScopeMap) -> Self {
        self.scopes = scopes;
        self
    }

    /// Scopes every token must hold, whatever it calls (none by default); a token
    /// without them is answered 403 `insufficient_scope`.
    pub fn with_required_scopes<S: AsRef<str>>(
        mut self,
        scopes: &[S],
    ) -> Result<Self, ConfigError> {
        let mut required = Vec::new();
        for scope in scopes.iter().map(AsRef::as_ref) {
            check_scope_token(scope)?;
            required.push(scope.to_string());
        }
        self.required_scopes = required;
        Ok(self)
    }

    /// The clock skew allowed on `exp` and `nbf` (30 s by default).
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Whether a `tools/call` of a family the token lacks is answered 403
    /// `insufficient_scope` naming the scope to ask for (the default), so that a
    /// client can step up; when `false` the call reaches the dispatcher, whose family
    /// gate refuses it as a tool error (`family_not_allowed`).
    pub fn with_scope_challenge(mut self, challenge: bool) -> Self {
        self.scope_challenge = challenge;
        self
    }

    /// The least time between two fetches of the keys that a token naming an unknown
    /// key causes (10 s by default), so that forged key ids cannot make the server
    /// hammer the authorization server.
    pub fn with_key_refresh_interval(mut self, interval: Duration) -> Self {
        self.key_refresh_interval = interval;
        self
    }

    /// The resource URL, as tokens must name it in `aud`.
    pub fn resource(&self) -> &str {
        self.resource.as_str()
    }

    /// The issuer tokens must name in `iss`.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Where the verification keys are.
    pub fn keys(&self) -> &KeySource {
        &self.keys
    }

    /// The URL of this resource's metadata document (RFC 9728): the well-known path
    /// inserted before the resource URL's path.
    pub fn metadata_url(&self) -> String {
        let mut url = self.resource.clone();
        url.set_path(&metadata_path(&self.resource));
        url.to_string()
    }
}

/// The RFC 9728 well-known path prefix.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The path of `resource`'s metadata: the well-known prefix, then the resource's
/// path (none for a resource at the root).
pub(crate) fn metadata_path(resource: &Url) -> String {
    match resource.path() {
        "" | "/" => WELL_KNOWN.to_string(),
        path => format!("{WELL_KNOWN}{}", path.trim_end_matches('/')),
    }
}

/// `resource` as an RFC 8707 resource indicator: an absolute http(s) URL with no
/// fragment or query, scheme and host lowercase (the URL parser does that).
fn canonical_resource(resource: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(resource.trim()).map_err(|source| ConfigError::NotAUrl {
        what: "resource URL",
        value: resource.to_string(),
        source,
    })?;
    if !matches!(url.scheme(), "https" | "http") || url.host().is_none() {
        return Err(ConfigError::ResourceNotHttp(resource.to_string()));
    }
    if url.fragment().is_some() || url.query().is_some() {
        return Err(ConfigError::ResourceQueryOrFragment(resource.to_string()));
    }
    Ok(url)
}

/// `value`, the setting `what`, as a URL.
fn parse_url(what: &'static str, value: &str) -> Result<Url, ConfigError> {
    Url::parse(value).map_err(|source| ConfigError::NotAUrl {
        what,
        value: value.to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> KeySource {
        KeySource::JwksUrl(Url::parse("https://auth.example/jwks").unwrap())
    }

    #[test]
    fn the_metadata_url_inserts_the_well_known_path_before_the_resource_path() {
        let config = OAuthConfig::new(
            "https://MCP.example.com/mcp",
            "https://auth.example",
            keys(),
        )
        .unwrap();
        assert_eq!(config.resource(), "https://mcp.example.com/mcp");
        assert_eq!(
            config.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        let root =
            OAuthConfig::new("https://mcp.example.com", "https://auth.example", keys()).unwrap();
        assert_eq!(
            root.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn bad_settings_are_refused_with_the_reason() {
        for (resource, why) in [
            ("mcp.example.com/mcp", "not a URL"),
            ("https://mcp.example.com/mcp#x", "fragment"),
            ("ftp://mcp.example.com/", "http(s)"),
        ] {
            let error = OAuthConfig::new(resource, "https://auth.example", keys())
                .unwrap_err()
                .to_string();
            assert!(error.contains(why), "{resource}: {error}");
        }
        let config =
            OAuthConfig::new("https://mcp.example.com", "https://auth.example", keys()).unwrap();
        for algorithms in [&["HS256"][..], &["none"], &[]] {
            assert!(
                config.clone().with_algorithms(algorithms).is_err(),
                "{algorithms:?}"
            );
        }
        assert!(KeySource::jwks_url("http://auth.example/jwks").is_err());
        assert!(KeySource::jwks_url("http://127.0.0.1:9/jwks").is_ok());
        assert!(KeySource::jwks_url("https://auth.example/jwks").is_ok());
    }
}
