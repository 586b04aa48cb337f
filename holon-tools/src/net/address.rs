//! Which addresses an outgoing request may reach. Checked on the addresses a host
//! resolves to, right before connecting to exactly those addresses, on every hop.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Which non-public addresses (loopback, private, link-local, ...) requests may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PrivateAddresses {
    /// None: only public unicast addresses (the default).
    #[default]
    Refuse,
    /// All of them.
    Allow,
    /// Only these (IPv4-mapped IPv6 addresses compare as their IPv4 address).
    AllowOnly(Vec<IpAddr>),
}

impl PrivateAddresses {
    /// Parses a switch: `false`/`0`/`no`/`off` (or empty) refuses, `true`/`1`/`yes`/
    /// `on`/`all` allows, and a comma-separated list of IP addresses allows only those.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "" | "false" | "0" | "no" | "off" => return Ok(Self::Refuse),
            "true" | "1" | "yes" | "on" | "all" => return Ok(Self::Allow),
            _ => {}
        }
        text.split(',')
            .map(|item| {
                let item = item.trim();
                item.parse::<IpAddr>().map(canonical).map_err(|_| {
                    format!("`{item}` is neither true/false nor an IP address; give `true`, `false` or a comma-separated list of IP addresses")
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self::AllowOnly)
    }

    /// `Ok` when a request may connect to `ip`, else why not (the kind of address).
    pub fn check(&self, ip: IpAddr) -> Result<(), &'static str> {
        let Some(reason) = non_public_reason(ip) else {
            return Ok(());
        };
        match self {
            Self::Refuse => Err(reason),
            Self::Allow => Ok(()),
            Self::AllowOnly(allowed) if allowed.contains(&canonical(ip)) => Ok(()),
            Self::AllowOnly(_) => Err(reason),
        }
    }
}

/// An IPv4-mapped IPv6 address as its IPv4 address; others unchanged.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// Why `ip` is not a public unicast address, or `None` when it is one.
pub fn non_public_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_reason(v4),
        IpAddr::V6(v6) => v6_reason(v6),
    }
}

fn v4_reason(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(if ip.is_unspecified() || a == 0 {
        "an unspecified (0.0.0.0/8) address"
    } else if ip.is_loopback() {
        "a loopback address"
    } else if ip.is_private() {
        "a private (RFC 1918) address"
    } else if ip.is_link_local() {
        "a link-local address"
    } else if a == 100 && (b & 0b1100_0000) == 64 {
        "a shared (carrier-grade NAT, 100.64.0.0/10) address"
    } else if ip.is_broadcast() {
        "the broadcast address"
    } else if ip.is_documentation() {
        "a documentation address"
    } else if a == 192 && b == 0 && c == 0 {
        "an IETF protocol assignment (192.0.0.0/24)"
    } else if a == 198 && (b & 0xfe) == 18 {
        "a benchmarking address (198.18.0.0/15)"
    } else if ip.is_multicast() {
        "a multicast address"
    } else if a >= 240 {
        "a reserved (240.0.0.0/4) address"
    } else {
        return None;
    })
}

fn v6_reason(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_reason(v4);
    }
    let segments = ip.segments();
    let embedded = |high: u16, low: u16| {
        let [h1, h2] = high.to_be_bytes();
        let [l1, l2] = low.to_be_bytes();
        Ipv4Addr::new(h1, h2, l1, l2)
    };
    Some(if ip.is_unspecified() {
        "the unspecified address (::)"
    } else if ip.is_loopback() {
        "a loopback address"
    } else if ip.is_multicast() {
        "a multicast address"
    } else if ip.is_unique_local() {
        "a unique-local (fc00::/7) address"
    } else if ip.is_unicast_link_local() {
        "a link-local address"
    } else if segments[0] & 0xffc0 == 0xfec0 {
        "a site-local (fec0::/10) address"
    } else if segments[0] == 0x2001 && segments[1] == 0x0db8 {
        "a documentation address"
    } else if segments[0] == 0x2001 && segments[1] == 0 {
        "a Teredo tunnel address"
    } else if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        // NAT64: the IPv4 address in the low 32 bits is what is reached.
        return v4_reason(embedded(segments[6], segments[7]));
    } else if segments[0] == 0x2002 {
        // 6to4: the IPv4 address in bits 16..48.
        return v4_reason(embedded(segments[1], segments[2]));
    } else if segments[..6] == [0; 6] {
        // IPv4-compatible (deprecated) ::a.b.c.d.
        return v4_reason(embedded(segments[6], segments[7]));
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(text: &str) -> Option<&'static str> {
        non_public_reason(text.parse().unwrap())
    }

    #[test]
    fn classifies_non_public_addresses() {
        for refused in [
            "127.0.0.1",
            "127.2.3.4",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.9",
            "198.18.0.1",
            "224.0.0.1",
            "240.0.0.1",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "::127.0.0.1",
        ] {
            assert!(reason(refused).is_some(), "{refused} should be refused");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "100.128.0.1",
            "172.32.0.1",
            "2606:4700:4700::1111",
            "::ffff:1.1.1.1",
            "64:ff9b::101:101",
        ] {
            assert_eq!(reason(public), None, "{public} is public");
        }
    }

    #[test]
    fn parses_the_switch_and_allow_lists() {
        assert_eq!(PrivateAddresses::parse(""), Ok(PrivateAddresses::Refuse));
        assert_eq!(PrivateAddresses::parse("off"), Ok(PrivateAddresses::Refuse));
        assert_eq!(PrivateAddresses::parse("TRUE"), Ok(PrivateAddresses::Allow));
        let only = PrivateAddresses::parse("127.0.0.1, ::ffff:10.0.0.2").unwrap();
        assert_eq!(
            only,
            PrivateAddresses::AllowOnly(vec![
                "127.0.0.1".parse().unwrap(),
                "10.0.0.2".parse().unwrap()
            ])
        );
        assert!(only.check("127.0.0.1".parse().unwrap()).is_ok());
        assert!(only.check("::ffff:127.0.0.1".parse().unwrap()).is_ok());
        assert!(only.check("127.0.0.2".parse().unwrap()).is_err());
        assert!(only.check("8.8.8.8".parse().unwrap()).is_ok());
        assert!(PrivateAddresses::parse("maybe").is_err());
        assert!(
            PrivateAddresses::Refuse
                .check("10.0.0.1".parse().unwrap())
                .is_err()
        );
        assert!(
            PrivateAddresses::Allow
                .check("10.0.0.1".parse().unwrap())
                .is_ok()
        );
    }
}
