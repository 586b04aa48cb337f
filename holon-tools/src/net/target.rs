//! Parsed request targets: http and https URLs only, redirect resolution (RFC 3986
//! reference resolution, for the forms servers send), and query encoding.

use std::fmt;

use hyper::Uri;

use super::NetError;

/// The scheme of a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Plain HTTP.
    Http,
    /// HTTP over TLS.
    Https,
}

impl Scheme {
    fn default_port(self) -> u16 {
        match self {
            Self::Http => 80,
            Self::Https => 443,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
        }
    }
}

/// Where one request goes: an absolute http or https URL taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The scheme.
    pub scheme: Scheme,
    /// The host name or IP address, without IPv6 brackets.
    pub host: String,
    /// The port.
    pub port: u16,
    /// The path and query, starting with `/`.
    pub path_and_query: String,
}

impl Target {
    /// Parses an absolute http or https URL. The fragment is dropped; characters a URL
    /// may not hold raw (spaces, non-ASCII) are percent-encoded first.
    pub fn parse(url: &str) -> Result<Self, NetError> {
        let invalid = |reason: &str| NetError::InvalidUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let trimmed = url.trim();
        let without_fragment = trimmed.split('#').next().unwrap_or(trimmed);
        let Some(scheme_end) = scheme_length(without_fragment) else {
            return Err(invalid(
                "it is not an absolute URL; give one starting with http:// or https://",
            ));
        };
        let scheme = match without_fragment[..scheme_end].to_ascii_lowercase().as_str() {
            "http" => Scheme::Http,
            "https" => Scheme::Https,
            other => {
                return Err(NetError::UnsupportedScheme {
                    url: url.to_string(),
                    scheme: other.to_string(),
                });
            }
        };
        let uri: Uri = encode_unsafe(without_fragment)
            .parse()
            .map_err(|error| invalid(&format!("it does not parse ({error}); host names must be ASCII (punycode for international names)")))?;
        let authority = uri.authority().ok_or_else(|| invalid("it has no host"))?;
        if authority.as_str().contains('@') {
            return Err(invalid(
                "it carries credentials (user@host), which are not sent; remove them",
            ));
        }
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        if host.is_empty() {
            return Err(invalid("it has no host"));
        }
        if !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | ':'))
        {
            return Err(invalid("its host has characters a host name cannot have"));
        }
        // The text after the host: `http` accepts ports it cannot represent, so the
        // port is read here, and a bad one is an error rather than the default.
        let after_host = match authority.as_str().rfind(']') {
            Some(end) => &authority.as_str()[end + 1..],
            None => authority
                .as_str()
                .rfind(':')
                .map_or("", |colon| &authority.as_str()[colon..]),
        };
        let port = match after_host.strip_prefix(':') {
            None | Some("") => scheme.default_port(),
            Some(digits) => digits
                .parse::<u16>()
                .ok()
                .filter(|port| *port != 0)
                .ok_or_else(|| invalid("its port is not a number from 1 to 65535"))?,
        };
        let path_and_query = match uri.path_and_query().map(|p| p.as_str()) {
            None | Some("") => "/".to_string(),
            Some(p) if !p.starts_with('/') => format!("/{p}"),
            Some(p) => p.to_string(),
        };
        Ok(Self {
            scheme,
            port,
            host,
            path_and_query,
        })
    }

    /// The `Host` header value: the host, and the port when it is not the default.
    pub fn host_header(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == self.scheme.default_port() {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    fn origin(&self) -> String {
        format!("{}://{}", self.scheme.as_str(), self.host_header())
    }

    /// Resolves a `Location` header (absolute, scheme-relative, absolute-path,
    /// query-only or relative-path) against this target.
    pub fn join(&self, location: &str) -> Result<Self, NetError> {
        let location = location.trim();
        let location = location.split('#').next().unwrap_or(location);
        let absolute = if scheme_length(location).is_some() {
            location.to_string()
        } else if let Some(rest) = location.strip_prefix("//") {
            format!("{}://{rest}", self.scheme.as_str())
        } else if location.starts_with('/') {
            format!("{}{}", self.origin(), remove_dot_segments(location))
        } else {
            let (path, _query) = self
                .path_and_query
                .split_once('?')
                .unwrap_or((&self.path_and_query, ""));
            if location.is_empty() {
                format!("{}{}", self.origin(), self.path_and_query)
            } else if location.starts_with('?') {
                format!("{}{path}{location}", self.origin())
            } else {
                let directory = &path[..path.rfind('/').map_or(0, |i| i + 1)];
                let merged = format!("{directory}{location}");
                format!("{}{}", self.origin(), remove_dot_segments(&merged))
            }
        };
        Self::parse(&absolute)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.origin(), self.path_and_query)
    }
}

/// The length of the scheme of `text` (before `:`), when it starts with one.
fn scheme_length(text: &str) -> Option<usize> {
    let colon = text.find(':')?;
    let scheme = &text[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(colon)
}

/// Percent-encodes the bytes a URL may not hold raw: controls, space, `"<>\^`{|}`
/// and every non-ASCII byte.
fn encode_unsafe(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for byte in url.bytes() {
        if byte.is_ascii_graphic() && !b"\"<>\\^`{|}".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Applies `.` and `..` segments of a path (the query is left alone).
fn remove_dot_segments(path_and_query: &str) -> String {
    let (path, query) = match path_and_query.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (path_and_query, None),
    };
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (index, segment) in segments.iter().enumerate() {
        let last = index + 1 == segments.len();
        match *segment {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            other => out.push(other),
        }
    }
    let mut result = format!("/{}", out.join("/"));
    if let Some(query) = query {
        result.push('?');
        result.push_str(query);
    }
    result
}

/// Encodes `value` for a query string (`application/x-www-form-urlencoded`).
pub fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(url: &str) -> Target {
        Target::parse(url).unwrap()
    }

    #[test]
    fn parses_http_and_https_only() {
        let t = target("HTTPS://Example.COM/a/b?q=1#frag");
        assert_eq!(t.scheme, Scheme::Https);
        assert_eq!(t.host, "example.com");
        assert_eq!(t.port, 443);
        assert_eq!(t.path_and_query, "/a/b?q=1");
        assert_eq!(t.to_string(), "https://example.com/a/b?q=1");
        let v6 = target("http://[::1]:8080");
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 8080));
        assert_eq!(v6.to_string(), "http://[::1]:8080/");
        assert_eq!(target("http://h/a b/é").path_and_query, "/a%20b/%C3%A9");
        for (url, scheme) in [("file:///etc/passwd", "file"), ("ftp://h/x", "ftp")] {
            assert!(matches!(
                Target::parse(url),
                Err(NetError::UnsupportedScheme { scheme: s, .. }) if s == scheme
            ));
        }
        assert_eq!(target("http://h:/x").port, 80);
        for bad in [
            "example.com/x",
            "http://",
            "http://user:pw@h/",
            "/relative",
            "http://127.0.0.1:99999/",
            "http://h:0/",
            "http://h:abc/",
            "http://[fe80::1%25eth0]/",
        ] {
            assert!(
                matches!(Target::parse(bad), Err(NetError::InvalidUrl { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn resolves_redirect_locations() {
        let base = target("http://h:8080/dir/page?x=1");
        let join = |location: &str| base.join(location).unwrap().to_string();
        assert_eq!(join("https://o/p"), "https://o/p");
        assert_eq!(join("//o/p"), "http://o/p");
        assert_eq!(join("/a/../b"), "http://h:8080/b");
        assert_eq!(join("?y=2"), "http://h:8080/dir/page?y=2");
        assert_eq!(join("next"), "http://h:8080/dir/next");
        assert_eq!(join("../up?z"), "http://h:8080/up?z");
        assert_eq!(join("./"), "http://h:8080/dir/");
        assert!(base.join("file:///etc/passwd").is_err());
    }

    #[test]
    fn form_encodes_queries() {
        assert_eq!(form_encode("rust & C++ é"), "rust+%26+C%2B%2B+%C3%A9");
    }
}
