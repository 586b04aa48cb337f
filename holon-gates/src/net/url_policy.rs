//! Which URLs a hop may go to: http or https, no credentials, and a host given as an
//! IP literal checked against the address policy here (a resolver is never asked
//! about a literal, so this is the only place it is checked). Host names are checked
//! on the addresses they resolve to, by [`super::resolver`].

use std::net::IpAddr;

use reqwest::Url;
use url::Host;

use super::{NetError, PrivateAddresses};

/// Parses `text` as an absolute http(s) URL a request may go to.
pub(super) fn parse(text: &str, policy: &PrivateAddresses) -> Result<Url, NetError> {
    let url = Url::parse(text.trim()).map_err(|error| NetError::InvalidUrl {
        url: text.to_string(),
        reason: match error {
            url::ParseError::RelativeUrlWithoutBase => {
                "it is not an absolute URL; give one starting with http:// or https://".to_string()
            }
            other => format!("it does not parse ({other})"),
        },
    })?;
    check(&url, policy)?;
    Ok(url)
}

/// Checks a URL a hop goes to (the first or a redirect's).
pub(super) fn check(url: &Url, policy: &PrivateAddresses) -> Result<(), NetError> {
    let shown = || url.to_string();
    if !matches!(url.scheme(), "http" | "https") {
        return Err(NetError::UnsupportedScheme {
            url: shown(),
            scheme: url.scheme().to_string(),
        });
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(NetError::InvalidUrl {
            url: shown(),
            reason: "it carries credentials (user@host), which are not sent; remove them"
                .to_string(),
        });
    }
    let literal = match url.host() {
        None => {
            return Err(NetError::InvalidUrl {
                url: shown(),
                reason: "it has no host".to_string(),
            });
        }
        Some(Host::Domain(_)) => return Ok(()),
        Some(Host::Ipv4(ip)) => IpAddr::V4(ip),
        Some(Host::Ipv6(ip)) => IpAddr::V6(ip),
    };
    policy
        .check(literal)
        .map_err(|reason| NetError::AddressRefused {
            url: shown(),
            address: literal,
            reason,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_http_urls_without_credentials_pass() {
        let allow = PrivateAddresses::Allow;
        let url = parse(" HTTPS://Example.COM/a b?q=1#frag", &allow).unwrap();
        assert_eq!(url.as_str(), "https://example.com/a%20b?q=1#frag");
        for (text, scheme) in [
            ("file:///etc/passwd", "file"),
            ("javascript:alert(1)", "javascript"),
        ] {
            assert!(matches!(
                parse(text, &allow),
                Err(NetError::UnsupportedScheme { scheme: s, .. }) if s == scheme
            ));
        }
        for bad in [
            "example.com/x",
            "http://",
            "http://user:pw@h/",
            "http://h:99999/",
        ] {
            assert!(
                matches!(parse(bad, &allow), Err(NetError::InvalidUrl { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn ip_literals_are_checked_in_every_spelling_the_parser_accepts() {
        let refuse = PrivateAddresses::Refuse;
        // Octal, hex, short and mapped forms all normalise to the address reached.
        for literal in [
            "http://127.0.0.1/",
            "http://0x7f.1/",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://127.1/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::1]/",
            "http://169.254.169.254./",
            "http://[64:ff9b::a9fe:a9fe]/",
        ] {
            assert!(
                matches!(
                    parse(literal, &refuse),
                    Err(NetError::AddressRefused { .. })
                ),
                "{literal}"
            );
        }
        assert!(parse("http://8.8.8.8/", &refuse).is_ok());
        assert!(
            parse("http://localhost/", &refuse).is_ok(),
            "names are checked once resolved"
        );
    }
}
