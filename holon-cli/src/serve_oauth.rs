//! `holon-tools serve --oauth-*`: OAuth access tokens for the HTTP server, each flag
//! also taken from a `HOLON_MCP_OAUTH_*` variable.

use std::path::PathBuf;

use clap::Args;
use holon_mcp::{KeySource, OAuthConfig, ScopeMap};
use holon_runtime::agency::ROOT_AGENT_ID;

/// The OAuth settings of `serve --http`.
#[derive(Debug, Clone, Default, Args)]
pub struct OAuthArgs {
    /// Accept OAuth access tokens (JWT) issued for this resource: this server's
    /// canonical URL as clients reach it, e.g. https://mcp.example.com/mcp. Tokens must
    /// name it in `aud` (RFC 8707); the metadata (RFC 9728) and 401 challenges point at
    /// it. The static token is then accepted only if --token-file or HOLON_MCP_TOKEN
    /// gives one.
    #[arg(
        long,
        value_name = "URL",
        env = "HOLON_MCP_OAUTH_RESOURCE",
        requires = "http",
        conflicts_with = "no_auth"
    )]
    pub(super) oauth_resource: Option<String>,
    /// The issuer tokens must name in `iss`, exactly (with --oauth-resource).
    #[arg(long, value_name = "URL", env = "HOLON_MCP_OAUTH_ISSUER")]
    pub(super) oauth_issuer: Option<String>,
    /// The issuer's JWKS URL (https://, or http:// on loopback), fetched at start and
    /// again when a token names a key it lacks.
    #[arg(
        long,
        value_name = "URL",
        env = "HOLON_MCP_OAUTH_JWKS_URL",
        conflicts_with_all = ["oauth_jwks_file", "oauth_public_key"]
    )]
    pub(super) oauth_jwks_url: Option<String>,
    /// A JWKS file with the issuer's keys, instead of --oauth-jwks-url.
    #[arg(
        long,
        value_name = "FILE",
        env = "HOLON_MCP_OAUTH_JWKS_FILE",
        conflicts_with = "oauth_public_key"
    )]
    pub(super) oauth_jwks_file: Option<PathBuf>,
    /// One PEM public key (RSA, EC or Ed25519) instead of a JWKS.
    #[arg(long, value_name = "FILE", env = "HOLON_MCP_OAUTH_PUBLIC_KEY")]
    pub(super) oauth_public_key: Option<PathBuf>,
    /// What a scope grants: SCOPE=FAMILY[,FAMILY...] (or SCOPE=all); repeatable, or
    /// space-separated in the variable. Given, it replaces the default map, where
    /// `tools:<family>` grants that family (tools:core_agent, tools:web, ...).
    #[arg(
        long = "oauth-scope",
        value_name = "SCOPE=FAMILIES",
        env = "HOLON_MCP_OAUTH_SCOPES",
        value_delimiter = ' '
    )]
    pub(super) oauth_scopes: Vec<String>,
    /// A scope every token must hold (403 insufficient_scope otherwise); repeatable.
    #[arg(
        long = "oauth-required-scope",
        value_name = "SCOPE",
        env = "HOLON_MCP_OAUTH_REQUIRED_SCOPES",
        value_delimiter = ' '
    )]
    pub(super) oauth_required_scopes: Vec<String>,
    /// The signing algorithms accepted, comma-separated (default RS256,ES256; HS* and
    /// none never).
    #[arg(
        long,
        value_name = "LIST",
        env = "HOLON_MCP_OAUTH_ALGORITHMS",
        value_delimiter = ','
    )]
    pub(super) oauth_algorithms: Vec<String>,
    /// An authorization server the metadata names (default: the issuer); repeatable.
    #[arg(
        long = "oauth-authorization-server",
        value_name = "URL",
        env = "HOLON_MCP_OAUTH_AUTHORIZATION_SERVERS",
        value_delimiter = ' '
    )]
    pub(super) oauth_authorization_servers: Vec<String>,
}

impl OAuthArgs {
    /// The OAuth configuration these flags give, `None` without --oauth-resource, or
    /// what is missing or wrong.
    pub(super) fn config(&self) -> Result<Option<OAuthConfig>, String> {
        let Some(resource) = &self.oauth_resource else {
            let stray = self.oauth_issuer.is_some()
                || self.oauth_jwks_url.is_some()
                || self.oauth_jwks_file.is_some()
                || self.oauth_public_key.is_some();
            return match stray {
                true => Err(
                    "the --oauth-* settings need --oauth-resource URL (this server's URL)"
                        .to_string(),
                ),
                false => Ok(None),
            };
        };
        let Some(issuer) = &self.oauth_issuer else {
            return Err(
                "--oauth-resource needs --oauth-issuer URL (the `iss` of the tokens)".to_string(),
            );
        };
        let keys = match (
            &self.oauth_jwks_url,
            &self.oauth_jwks_file,
            &self.oauth_public_key,
        ) {
            (Some(url), _, _) => KeySource::jwks_url(url).map_err(|error| error.to_string())?,
            (_, Some(file), _) => KeySource::JwksFile(file.clone()),
            (_, _, Some(file)) => KeySource::PublicKeyPem(file.clone()),
            _ => {
                return Err("--oauth-resource needs the issuer's keys: --oauth-jwks-url URL, --oauth-jwks-file FILE or --oauth-public-key FILE".to_string());
            }
        };
        // Local `call` and `session` act as the root agent: no token may be that principal.
        let mut config = OAuthConfig::new(resource, issuer, keys)
            .map_err(|error| error.to_string())?
            .with_reserved_subjects(&[ROOT_AGENT_ID]);
        if !self.oauth_scopes.is_empty() {
            let mut scopes = ScopeMap::empty();
            for entry in self.oauth_scopes.iter().filter(|entry| !entry.is_empty()) {
                scopes = scopes
                    .with_entry(entry)
                    .map_err(|error| error.to_string())?;
            }
            config = config.with_scopes(scopes);
        }
        if !self.oauth_required_scopes.is_empty() {
            config = config
                .with_required_scopes(&self.oauth_required_scopes)
                .map_err(|error| error.to_string())?;
        }
        if !self.oauth_algorithms.is_empty() {
            config = config
                .with_algorithms(&self.oauth_algorithms)
                .map_err(|error| error.to_string())?;
        }
        if !self.oauth_authorization_servers.is_empty() {
            config = config
                .with_authorization_servers(self.oauth_authorization_servers.clone())
                .map_err(|error| error.to_string())?;
        }
        Ok(Some(config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_make_a_config_or_say_what_is_missing() {
        assert!(OAuthArgs::default().config().unwrap().is_none());
        let mut args = OAuthArgs {
            oauth_resource: Some("https://mcp.example/mcp".to_string()),
            ..OAuthArgs::default()
        };
        assert!(args.config().unwrap_err().contains("--oauth-issuer"));
        args.oauth_issuer = Some("https://auth.example".to_string());
        assert!(args.config().unwrap_err().contains("--oauth-jwks-url"));
        args.oauth_jwks_url = Some("https://auth.example/jwks".to_string());
        args.oauth_scopes = vec!["mcp:read=core_agent,web".to_string()];
        let config = args.config().unwrap().unwrap();
        assert_eq!(config.resource(), "https://mcp.example/mcp");
        assert_eq!(config.issuer(), "https://auth.example");
        args.oauth_scopes = vec!["mcp:read=webs".to_string()];
        assert!(args.config().unwrap_err().contains("webs"));
        let stray = OAuthArgs {
            oauth_issuer: Some("https://auth.example".to_string()),
            ..OAuthArgs::default()
        };
        assert!(stray.config().unwrap_err().contains("--oauth-resource"));
    }
}
