//! Who may talk to the HTTP server: the bearer token every request must carry, the
//! bind addresses an open server (`no_auth`) is allowed on, the `Host` names it answers
//! to, and the browser origins the transport accepts (rmcp's streamable HTTP service
//! checks `Host` and `Origin` again against the lists built here).
//!
//! The token stands between any local process, or any web page a browser runs, and
//! the served tools (for `holon-tools serve`, `ExecCommand`); so it is 256 bits from the OS, compared in constant time, and never
//! taken from the command line (where `ps` would show it).

// The MCP server's own I/O: it reads the bearer-token file the operator names.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::convert::Infallible;
use std::net::{Ipv6Addr, SocketAddr};
use std::path::{Path, PathBuf};

use holon_core::Principal;
use http_body_util::combinators::BoxBody;
use hyper::body::Bytes;
use hyper::header::{AUTHORIZATION, HOST, HeaderMap, HeaderValue, ORIGIN, WWW_AUTHENTICATE};
use hyper::http::uri::Authority;
use hyper::{Response, StatusCode, Uri};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use subtle::ConstantTimeEq;

use crate::http::plain::plain_text;
use crate::{AccessError, AllowedHostError, OriginError};

/// The environment variable a client's bearer token is taken from.
pub use crate::TOKEN_ENV;

/// The principal a request with the static bearer token is: whoever holds the token.
pub const STATIC_TOKEN_PRINCIPAL: &str = "static-bearer-token";

/// A chosen token shorter than this is refused: a local process could guess it.
const MIN_TOKEN_LEN: usize = 16;

/// Bytes of OS randomness in a generated token (256 bits).
const GENERATED_TOKEN_BYTES: usize = 32;

/// The `Host` names a loopback bind answers to (any port): a page of another name
/// that resolves to 127.0.0.1 (DNS rebinding) sends that name, and is refused.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// What a request must show to be served.
#[derive(Debug)]
pub enum Access {
    /// `Authorization: Bearer <token>`, the token as below.
    Bearer {
        /// The token itself.
        token: String,
        /// Where it came from, which decides whether it is printed.
        source: TokenSource,
    },
    /// Nothing (`--no-auth`, loopback only).
    Open,
}

/// Where the bearer token came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// `--token-file FILE`.
    File(PathBuf),
    /// The `HOLON_MCP_TOKEN` environment variable.
    Env,
    /// Generated at start: the host shows it to the operator.
    Generated,
}

impl Access {
    /// The access rule for a server bound to `addr`: none with `no_auth` (refused off
    /// loopback), else the token of `token_file`, else of `env_token` (the value of
    /// `HOLON_MCP_TOKEN`), else a generated one.
    pub fn resolve(
        addr: SocketAddr,
        no_auth: bool,
        token_file: Option<&Path>,
        env_token: Option<std::ffi::OsString>,
    ) -> Result<Self, AccessError> {
        if no_auth {
            if !addr.ip().is_loopback() {
                return Err(AccessError::OpenOffLoopback { addr });
            }
            return Ok(Self::Open);
        }
        let (token, source) = if let Some(path) = token_file {
            let text = std::fs::read_to_string(path).map_err(|source| {
                AccessError::TokenFileUnreadable {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
            let token =
                valid_token(text.trim()).map_err(|reason| AccessError::TokenFileInvalid {
                    path: path.to_path_buf(),
                    reason,
                })?;
            (token, TokenSource::File(path.to_path_buf()))
        } else if let Some(value) = env_token {
            let value = value
                .into_string()
                .map_err(|_| AccessError::TokenEnvNotUtf8)?;
            let token = valid_token(value.trim())
                .map_err(|reason| AccessError::TokenEnvInvalid { reason })?;
            (token, TokenSource::Env)
        } else {
            let token = generate_token().map_err(AccessError::Generate)?;
            (token, TokenSource::Generated)
        };
        Ok(Self::Bearer { token, source })
    }

    /// The principal `headers` authenticate (`None` on an open server) when they
    /// show what this rule asks for, else the 401 to answer with, challenging for
    /// `realm` (the server's name).
    #[allow(clippy::result_large_err)] // the refusal is the response itself, built once
    pub fn check(
        &self,
        realm: &str,
        headers: &HeaderMap,
    ) -> Result<Option<Principal>, Response<BoxBody<Bytes, Infallible>>> {
        let Self::Bearer { token, .. } = self else {
            return Ok(None);
        };
        match presented_token(headers) {
            Some(presented) if bool::from(presented.as_bytes().ct_eq(token.as_bytes())) => Ok(
                Some(Principal::new(STATIC_TOKEN_PRINCIPAL, [] as [&str; 0])),
            ),
            Some(_) => Err(unauthorized(
                &format!(
                    "Bearer realm=\"{}\", error=\"invalid_token\"",
                    quoted_realm(realm)
                ),
                "unauthorized: the bearer token is wrong\n",
            )),
            None => Err(unauthorized(
                &format!("Bearer realm=\"{}\"", quoted_realm(realm)),
                "unauthorized: send `Authorization: Bearer <token>` (the token printed at start, \
                 or the one of HOLON_MCP_TOKEN or --token-file)\n",
            )),
        }
    }

    /// The token when it was generated at start (nobody else knows it).
    pub fn generated_token(&self) -> Option<&str> {
        match self {
            Self::Bearer {
                token,
                source: TokenSource::Generated,
            } => Some(token),
            _ => None,
        }
    }

    /// The line the operator reads about the token, from the server `name`: the token
    /// itself only when generated (nobody else knows it), where it came from otherwise.
    pub fn announcement(&self, name: &str) -> String {
        match self {
            Self::Bearer {
                token,
                source: TokenSource::Generated,
            } => format!(
                "{name}: bearer token (clients send `Authorization: Bearer TOKEN`; set \
                 {TOKEN_ENV} or --token-file to choose it): {token}"
            ),
            Self::Bearer {
                source: TokenSource::Env,
                ..
            } => format!(
                "{name}: clients send `Authorization: Bearer TOKEN` with the token of {TOKEN_ENV}"
            ),
            Self::Bearer {
                source: TokenSource::File(path),
                ..
            } => format!(
                "{name}: clients send `Authorization: Bearer TOKEN` with the token in {}",
                path.display()
            ),
            Self::Open => {
                format!("{name}: --no-auth: requests need no bearer token (loopback only)")
            }
        }
    }
}

/// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive,
/// RFC 6750), or `None` when there is no such header.
pub(crate) fn presented_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim_start())
}

fn unauthorized(challenge: &str, message: &'static str) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = plain_text(StatusCode::UNAUTHORIZED, message);
    if let Ok(challenge) = HeaderValue::from_str(challenge) {
        response.headers_mut().insert(WWW_AUTHENTICATE, challenge);
    }
    response
}

/// A chosen token as an `Authorization` header can carry it: visible ASCII, no
/// spaces, and long enough not to be guessed.
fn valid_token(token: &str) -> Result<String, String> {
    if token.is_empty() {
        return Err("the token is empty".to_string());
    }
    if let Some(bad) = token.chars().find(|c| !c.is_ascii_graphic()) {
        return Err(format!(
            "the token has the character {bad:?}; use visible ASCII without spaces (hex or base64url)"
        ));
    }
    if token.len() < MIN_TOKEN_LEN {
        return Err(format!(
            "the token has {} characters, fewer than {MIN_TOKEN_LEN}; use a longer one (e.g. `openssl rand -hex 32`)",
            token.len()
        ));
    }
    Ok(token.to_string())
}

/// 256 bits of OS randomness, in hex.
fn generate_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; GENERATED_TOKEN_BYTES];
    getrandom::fill(&mut bytes)?;
    Ok(hex::encode(bytes))
}

/// Parses an `--allow-origin` value into the exact form the transport matches:
/// `scheme://host:port`, the port explicit (the scheme's default when left out), so
/// that a named origin never matches other ports.
pub fn parse_origin(value: &str) -> Result<String, OriginError> {
    let uri: Uri = value.parse().map_err(|error| OriginError::Unparsed {
        value: value.to_string(),
        reason: format!("{error}"),
    })?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(OriginError::NoSchemeOrHost(value.to_string()));
    };
    if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
        return Err(OriginError::PathOrQuery(value.to_string()));
    }
    if authority.as_str().contains('@') {
        return Err(OriginError::UserInfo(value.to_string()));
    }
    let scheme = scheme.to_ascii_lowercase();
    let host = authority.host().to_ascii_lowercase();
    let port = match (authority.port_u16(), scheme.as_str()) {
        (Some(port), _) => port.to_string(),
        (None, "http") => "80".to_string(),
        (None, "https") => "443".to_string(),
        // A scheme without a default port (an extension's origin) has no port.
        (None, _) => "*".to_string(),
    };
    Ok(format!("{scheme}://{host}:{port}"))
}

/// The transport's settings for a server listening on `local`: `Origin` validated
/// against the server's own origins plus `named_origins` (parsed by [`parse_origin`]);
/// an absent `Origin` (a client that is not a browser) passes. `Host` is checked
/// against [`allowed_hosts`] of `named_hosts`, or not at all when that is empty.
pub fn transport_config(
    local: SocketAddr,
    named_origins: &[String],
    named_hosts: &[String],
) -> StreamableHttpServerConfig {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins(allowed_origins(local, named_origins))
        .enforce_origin_validation();
    let hosts = allowed_hosts(local, named_hosts);
    if hosts.is_empty() {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(hosts)
    }
}

/// Parses an `--allowed-host` value into the form the checks match: `host` (any
/// port) or `host:port` (that port only), lower-case, an IPv6 address in brackets.
pub fn parse_allowed_host(value: &str) -> Result<String, AllowedHostError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(AllowedHostError::Empty);
    }
    if let Ok(ip) = value.parse::<Ipv6Addr>() {
        return Ok(format!("[{ip}]"));
    }
    let not_a_host = || AllowedHostError::NotAHost(value.to_string());
    // `Authority` also takes `user@host`, which a Host header never carries.
    if value.contains(['@', '/', '?', '#']) {
        return Err(not_a_host());
    }
    let authority: Authority = value.parse().map_err(|_| not_a_host())?;
    let host = authority.host().to_ascii_lowercase();
    if host.is_empty() || host.trim_matches(['[', ']']).is_empty() {
        return Err(not_a_host());
    }
    // What follows the host is a port or nothing (the parser lets `host:word` pass).
    let rest = &authority.as_str()[authority.host().len()..];
    match authority.port_u16() {
        Some(port) => Ok(format!("{host}:{port}")),
        None if rest.is_empty() => Ok(host),
        None => Err(not_a_host()),
    }
}

/// The `Host` names a server listening on `local` answers to: the loopback names on
/// a loopback bind, and `named` (parsed by [`parse_allowed_host`]). Empty, meaning
/// any `Host`, on another bind when none is named: the bearer token, which a
/// rebinding page cannot know, guards it then.
pub fn allowed_hosts(local: SocketAddr, named: &[String]) -> Vec<String> {
    let mut hosts = Vec::new();
    if local.ip().is_loopback() {
        hosts.extend(LOOPBACK_HOSTS.iter().map(|host| host.to_string()));
    }
    hosts.extend(named.iter().cloned());
    hosts
}

/// `Ok` when `allowed` (see [`allowed_hosts`]) is empty or names the request's
/// `Host` (a name without a port allows any port), else the 403 to answer with,
/// naming the setting that allows it.
///
/// The server checks this first: a page that reached it through a rebound name is
/// refused before anything else is looked at.
#[allow(clippy::result_large_err)] // the refusal is the response itself, built once
pub fn check_host(
    allowed: &[String],
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<(), Response<BoxBody<Bytes, Infallible>>> {
    if allowed.is_empty() {
        return Ok(());
    }
    let presented = match headers.get(HOST) {
        Some(value) => value.to_str().ok().map(str::to_string),
        None => uri.authority().map(|authority| authority.to_string()),
    };
    let authority = presented
        .as_deref()
        .and_then(|value| value.parse::<Authority>().ok());
    if let Some(authority) = &authority
        && allowed.iter().any(|name| host_matches(name, authority))
    {
        return Ok(());
    }
    let message = match (&presented, &authority) {
        (Some(_), Some(authority)) => format!(
            "forbidden: this server does not answer to the Host `{authority}` (DNS rebinding              protection); start it with `--allowed-host {host}` (HttpOptions::allowed_hosts)              to allow that name\n",
            host = authority.host()
        ),
        (Some(value), None) => format!(
            "forbidden: the Host header `{}` is not a host name; send the host (and port) the              server is reached by, and allow it with `--allowed-host NAME`              (HttpOptions::allowed_hosts)\n",
            value.escape_debug()
        ),
        (None, _) => "forbidden: the request has no Host header; send the host the server                       is reached by, allowed with `--allowed-host NAME` (HttpOptions::allowed_hosts)\n"
            .to_string(),
    };
    Err(plain_text(StatusCode::FORBIDDEN, message))
}

/// Whether the allowed `name` (`host` or `host:port`, as [`parse_allowed_host`]
/// makes it) covers `presented`: the same host, case aside, and the same port when
/// `name` has one.
fn host_matches(name: &str, presented: &Authority) -> bool {
    let Ok(allowed) = name.parse::<Authority>() else {
        return false;
    };
    allowed.host().eq_ignore_ascii_case(presented.host())
        && allowed
            .port_u16()
            .is_none_or(|port| presented.port_u16() == Some(port))
}

/// The browser origins a server listening on `local` serves: its own, and `named`
/// (parsed by [`parse_origin`]).
pub fn allowed_origins(local: SocketAddr, named: &[String]) -> Vec<String> {
    let mut origins = own_origins(local);
    origins.extend(named.iter().cloned());
    origins
}

/// `Ok` when `headers` have no `Origin` (a client that is not a browser) or one of
/// `allowed` (see [`allowed_origins`]), else the 403 to answer with.
///
/// The server checks this before the bearer token: a page of a foreign origin is
/// refused as such, whatever it sends, and learns nothing about the token. (The
/// transport checks `Origin` again, against the same list.)
#[allow(clippy::result_large_err)] // the refusal is the response itself, built once
pub fn check_origin(
    allowed: &[String],
    headers: &HeaderMap,
) -> Result<(), Response<BoxBody<Bytes, Infallible>>> {
    let Some(origin) = headers.get(ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or_default();
    match parse_origin(origin) {
        Ok(parsed) if allowed.contains(&parsed) => Ok(()),
        _ => {
            let message = format!(
                "forbidden: pages of the origin `{origin}` may not use this server; start it \
                 with `--allow-origin {origin}` to allow them\n"
            );
            Err(plain_text(StatusCode::FORBIDDEN, message))
        }
    }
}

/// The realm `name` (the server's name) as a quoted string may hold it: no quote or
/// backslash may end it.
fn quoted_realm(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_graphic() && !matches!(c, '"' | '\\') || *c == ' ')
        .collect()
}

/// The origins of pages served by this very server, as a browser names them.
fn own_origins(local: SocketAddr) -> Vec<String> {
    let port = local.port();
    let ip = local.ip();
    if ip.is_loopback() || ip.is_unspecified() {
        vec![
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://[::1]:{port}"),
        ]
    } else {
        vec![format!("http://{local}")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback() -> SocketAddr {
        "127.0.0.1:8080".parse().unwrap()
    }

    fn headers(authorization: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(value) = authorization {
            headers.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    fn bearer(token: &str) -> Access {
        Access::Bearer {
            token: token.to_string(),
            source: TokenSource::Env,
        }
    }

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn the_right_token_passes_in_any_case_of_the_scheme() {
        let access = bearer(TOKEN);
        for header in [
            format!("Bearer {TOKEN}"),
            format!("bearer {TOKEN}"),
            format!("BEARER  {TOKEN}"),
        ] {
            assert!(
                access.check("test", &headers(Some(&header))).is_ok(),
                "{header}"
            );
        }
    }

    #[test]
    fn a_missing_or_wrong_token_is_401_with_a_bearer_challenge() {
        let access = bearer(TOKEN);
        let wrong_length = TOKEN[1..].to_string();
        let mut one_bit_off = TOKEN.to_string();
        one_bit_off.replace_range(31.., "e");
        for (header, invalid_token) in [
            (None, false),
            (Some("Basic dXNlcjpwYXNz".to_string()), false),
            (Some(format!("Bearer{TOKEN}")), false),
            (Some("Bearer ".to_string()), false),
            (Some(format!("Bearer {wrong_length}")), true),
            (Some(format!("Bearer {one_bit_off}")), true),
            (Some(format!("Bearer {TOKEN}x")), true),
        ] {
            let refused = access
                .check("test", &headers(header.as_deref()))
                .unwrap_err();
            assert_eq!(refused.status(), StatusCode::UNAUTHORIZED, "{header:?}");
            let challenge = refused.headers()[WWW_AUTHENTICATE].to_str().unwrap();
            assert!(challenge.starts_with("Bearer "), "{challenge}");
            assert_eq!(
                challenge.contains("invalid_token"),
                invalid_token,
                "{header:?}: {challenge}"
            );
        }
    }

    #[test]
    fn no_auth_is_open_on_loopback_and_refused_elsewhere() {
        for addr in ["127.0.0.1:0", "[::1]:9000"] {
            let access = Access::resolve(addr.parse().unwrap(), true, None, None).unwrap();
            assert!(access.check("test", &headers(None)).is_ok());
        }
        for addr in ["0.0.0.0:0", "[::]:8080", "192.168.1.5:8080"] {
            let error = Access::resolve(addr.parse().unwrap(), true, None, None)
                .unwrap_err()
                .to_string();
            assert!(error.contains("loopback"), "{error}");
        }
    }

    #[test]
    fn the_token_comes_from_the_file_then_the_environment_then_randomness() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, format!("{TOKEN}\n")).unwrap();
        let from_env = Some(std::ffi::OsString::from("environment-token-1234"));

        let access = Access::resolve(loopback(), false, Some(&file), from_env.clone()).unwrap();
        assert!(
            matches!(&access, Access::Bearer { token, source: TokenSource::File(_) } if token == TOKEN)
        );
        assert!(
            !access.announcement("test").contains(TOKEN),
            "a chosen token is not printed"
        );

        let access = Access::resolve(loopback(), false, None, from_env).unwrap();
        assert!(
            matches!(&access, Access::Bearer { token, source: TokenSource::Env } if token == "environment-token-1234")
        );

        let first = Access::resolve(loopback(), false, None, None).unwrap();
        let second = Access::resolve(loopback(), false, None, None).unwrap();
        let (
            Access::Bearer {
                token: a,
                source: TokenSource::Generated,
            },
            Access::Bearer { token: b, .. },
        ) = (&first, &second)
        else {
            panic!("{first:?} {second:?}");
        };
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(
            first.announcement("test").contains(a.as_str()),
            "a generated token is printed"
        );
    }

    #[test]
    fn a_chosen_token_that_a_header_cannot_carry_or_that_is_short_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for (text, why) in [
            ("", "empty"),
            ("  \n", "empty"),
            ("short-token", "fewer than"),
            ("a token with spaces in it", "character"),
            ("jeton-très-long-et-secret", "character"),
        ] {
            let file = dir.path().join("token");
            std::fs::write(&file, text).unwrap();
            let error = Access::resolve(loopback(), false, Some(&file), None)
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("--token-file") && error.contains(why),
                "{text:?}: {error}"
            );
            let error = Access::resolve(loopback(), false, None, Some(text.into()))
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(TOKEN_ENV) && error.contains(why),
                "{text:?}: {error}"
            );
        }
        let missing = dir.path().join("missing");
        let error = Access::resolve(loopback(), false, Some(&missing), None).unwrap_err();
        assert!(
            matches!(error, AccessError::TokenFileUnreadable { .. }),
            "{error}"
        );
        assert!(error.to_string().contains("cannot read"), "{error}");
    }

    #[test]
    fn origins_are_normalized_to_an_exact_port() {
        for (value, expected) in [
            ("https://App.Example", "https://app.example:443"),
            ("http://app.example/", "http://app.example:80"),
            ("http://localhost:5173", "http://localhost:5173"),
            ("http://[::1]:3000", "http://[::1]:3000"),
            ("chrome-extension://abcdef", "chrome-extension://abcdef:*"),
        ] {
            assert_eq!(parse_origin(value).as_deref(), Ok(expected), "{value}");
        }
        for value in [
            "app.example",
            "https://app.example/path",
            "https://app.example/?q=1",
            "https://user@app.example",
            "",
        ] {
            assert!(parse_origin(value).is_err(), "{value}");
        }
        assert_eq!(
            parse_origin("https://app.example/path"),
            Err(OriginError::PathOrQuery(
                "https://app.example/path".to_string()
            ))
        );
    }

    #[test]
    fn an_absent_or_allowed_origin_passes_and_any_other_is_403() {
        let allowed = allowed_origins(loopback(), &["https://app.example:443".to_string()]);
        let with_origin = |origin: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
            headers
        };
        assert!(check_origin(&allowed, &HeaderMap::new()).is_ok());
        for origin in [
            "http://127.0.0.1:8080",
            "HTTP://LOCALHOST:8080",
            "https://app.example",
        ] {
            assert!(
                check_origin(&allowed, &with_origin(origin)).is_ok(),
                "{origin}"
            );
        }
        for origin in ["http://evil.example", "http://localhost:8081", "null", ""] {
            let refused = check_origin(&allowed, &with_origin(origin)).unwrap_err();
            assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{origin}");
        }
    }

    #[test]
    fn the_server_allows_its_own_origins_and_the_named_ones() {
        let named = vec!["https://app.example:443".to_string()];
        let config = transport_config(loopback(), &named, &[]);
        assert_eq!(
            config.allowed_origins,
            [
                "http://127.0.0.1:8080",
                "http://localhost:8080",
                "http://[::1]:8080",
                "https://app.example:443"
            ]
        );
        assert!(
            !config.allowed_hosts.is_empty(),
            "Host stays checked on loopback"
        );

        let config = transport_config("192.168.1.5:8080".parse().unwrap(), &[], &[]);
        assert_eq!(config.allowed_origins, ["http://192.168.1.5:8080"]);
        assert!(config.allowed_hosts.is_empty());

        let named = vec!["mcp.example.com".to_string()];
        let config = transport_config("192.168.1.5:8080".parse().unwrap(), &[], &named);
        assert_eq!(config.allowed_hosts, ["mcp.example.com"]);
    }

    #[test]
    fn allowed_hosts_are_normalized_and_anything_else_is_refused() {
        for (value, expected) in [
            ("MCP.Example.com", "mcp.example.com"),
            (" mcp.example.com:8443 ", "mcp.example.com:8443"),
            ("10.0.0.5", "10.0.0.5"),
            ("::1", "[::1]"),
            ("[::1]:8080", "[::1]:8080"),
        ] {
            assert_eq!(
                parse_allowed_host(value).as_deref(),
                Ok(expected),
                "{value}"
            );
        }
        assert_eq!(parse_allowed_host("  "), Err(AllowedHostError::Empty));
        for value in [
            "https://mcp.example.com",
            "mcp.example.com/mcp",
            "user@mcp.example.com",
            "mcp.example.com:port",
            "mcp example.com",
            "[]",
            ":8080",
        ] {
            assert_eq!(
                parse_allowed_host(value),
                Err(AllowedHostError::NotAHost(value.to_string())),
                "{value}"
            );
        }
    }

    #[test]
    fn a_host_without_a_port_allows_every_port_and_one_with_a_port_only_that_one() {
        let allowed = vec![
            "mcp.example.com".to_string(),
            "lb.example.com:8443".to_string(),
        ];
        let with_host = |host: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(HOST, HeaderValue::from_str(host).unwrap());
            headers
        };
        let uri = Uri::from_static("/mcp");
        for host in [
            "mcp.example.com",
            "MCP.example.com:9000",
            "lb.example.com:8443",
        ] {
            assert!(
                check_host(&allowed, &uri, &with_host(host)).is_ok(),
                "{host}"
            );
        }
        for host in [
            "lb.example.com",
            "lb.example.com:8444",
            "evil.example",
            "",
            "a b",
        ] {
            let refused = check_host(&allowed, &uri, &with_host(host)).unwrap_err();
            assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{host}");
        }
        let refused = check_host(&allowed, &uri, &HeaderMap::new()).unwrap_err();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        assert!(check_host(&[], &uri, &with_host("evil.example")).is_ok());
    }
}
