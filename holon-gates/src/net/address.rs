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

/// The IPv4 prefixes requests may not reach, first match wins. The special-purpose
/// ones are IANA's IPv4 Special-Purpose Address Registry (RFC 6890); each entry
/// names its own source. Stricter than the registry where it marks a few anycast
/// services inside a block as globally reachable (192.0.0.9, 192.0.0.10): they are
/// not web servers.
#[rustfmt::skip]
const V4_REFUSED: &[(Ipv4Addr, u8, &str)] = &[
    // RFC 8190 / RFC 919: limited broadcast (inside 240.0.0.0/4, named first).
    (Ipv4Addr::new(255, 255, 255, 255), 32, "the broadcast address"),
    // RFC 791 §3.2, RFC 1122 §3.2.1.3: "this network", 0.0.0.0/32 "this host".
    (Ipv4Addr::new(0, 0, 0, 0), 8, "an unspecified (0.0.0.0/8) address"),
    // RFC 1918: private-use.
    (Ipv4Addr::new(10, 0, 0, 0), 8, "a private (RFC 1918) address"),
    // RFC 6598: shared address space (carrier-grade NAT).
    (Ipv4Addr::new(100, 64, 0, 0), 10, "a shared (carrier-grade NAT, 100.64.0.0/10) address"),
    // RFC 1122 §3.2.1.3: loopback.
    (Ipv4Addr::new(127, 0, 0, 0), 8, "a loopback address"),
    // RFC 3927: link-local (cloud metadata services live here).
    (Ipv4Addr::new(169, 254, 0, 0), 16, "a link-local address"),
    // RFC 1918: private-use.
    (Ipv4Addr::new(172, 16, 0, 0), 12, "a private (RFC 1918) address"),
    // RFC 6890 §2.2.2: IETF protocol assignments (DS-Lite RFC 6333, NAT64 discovery
    // RFC 7050, PCP and TURN anycast RFC 7723 / RFC 8155).
    (Ipv4Addr::new(192, 0, 0, 0), 24, "an IETF protocol assignment (192.0.0.0/24)"),
    // RFC 5737: documentation (TEST-NET-1).
    (Ipv4Addr::new(192, 0, 2, 0), 24, "a documentation address"),
    // RFC 7526: the deprecated 6to4 relay anycast prefix.
    (Ipv4Addr::new(192, 88, 99, 0), 24, "a deprecated 6to4 relay anycast (192.88.99.0/24) address"),
    // RFC 1918: private-use.
    (Ipv4Addr::new(192, 168, 0, 0), 16, "a private (RFC 1918) address"),
    // RFC 2544: benchmarking.
    (Ipv4Addr::new(198, 18, 0, 0), 15, "a benchmarking address (198.18.0.0/15)"),
    // RFC 5737: documentation (TEST-NET-2, TEST-NET-3).
    (Ipv4Addr::new(198, 51, 100, 0), 24, "a documentation address"),
    (Ipv4Addr::new(203, 0, 113, 0), 24, "a documentation address"),
    // RFC 5771 (IANA multicast registry): multicast is never a web server.
    (Ipv4Addr::new(224, 0, 0, 0), 4, "a multicast address"),
    // RFC 1112 §4: reserved for future use.
    (Ipv4Addr::new(240, 0, 0, 0), 4, "a reserved (240.0.0.0/4) address"),
];

/// What an IPv6 prefix means for the policy.
#[derive(Debug, Clone, Copy)]
enum V6Rule {
    /// Refused, for this reason.
    Refuse(&'static str),
    /// The IPv4 address in the low 32 bits is what is reached: judged as it.
    Low32,
    /// 6to4: the IPv4 address in bits 16..48 is what is reached: judged as it.
    SixToFour,
}

/// The IPv6 prefixes with a rule, first match wins. Sources: IANA's IPv6
/// Special-Purpose Address Registry (RFC 6890) and IPv6 Address Space registry;
/// each entry names its own. 2001::/23 is refused whole: the few globally reachable
/// assignments inside it (PCP/TURN anycast, AMT, AS112, ORCHIDv2) are not web servers.
#[rustfmt::skip]
const V6_RULES: &[(Ipv6Addr, u8, V6Rule)] = &[
    // RFC 4291 §2.5.2: the unspecified address.
    (Ipv6Addr::UNSPECIFIED, 128, V6Rule::Refuse("the unspecified address (::)")),
    // RFC 4291 §2.5.3: loopback.
    (Ipv6Addr::LOCALHOST, 128, V6Rule::Refuse("a loopback address")),
    // RFC 4291 §2.5.5.2: IPv4-mapped, ::ffff:0:0/96.
    (Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0, 0), 96, V6Rule::Low32),
    // RFC 4291 §2.5.5.1: IPv4-compatible, deprecated: no host should answer there.
    (Ipv6Addr::UNSPECIFIED, 96, V6Rule::Refuse("a deprecated IPv4-compatible (::/96) address")),
    // RFC 6052: the well-known NAT64 prefix; the translator reaches the IPv4 address.
    (Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96, V6Rule::Low32),
    // RFC 8215: local-use IPv4/IPv6 translation, an operator's own network.
    (Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48, V6Rule::Refuse("a local-use NAT64 (64:ff9b:1::/48) address")),
    // RFC 6666: discard-only.
    (Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64, V6Rule::Refuse("a discard-only (100::/64) address")),
    // RFC 9780: the dummy IPv6 prefix.
    (Ipv6Addr::new(0x100, 0, 0, 1, 0, 0, 0, 0), 64, V6Rule::Refuse("a dummy-prefix (100:0:0:1::/64) address")),
    // RFC 4380: Teredo (inside 2001::/23, named first).
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 32, V6Rule::Refuse("a Teredo tunnel address")),
    // RFC 2928, RFC 6890 §2.2.3: IETF protocol assignments (benchmarking RFC 5180,
    // ORCHID RFC 4843 / RFC 7343, ...).
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23, V6Rule::Refuse("an IETF protocol assignment (2001::/23)")),
    // RFC 3849: documentation.
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, V6Rule::Refuse("a documentation address")),
    // RFC 3056: 6to4; the relay reaches the IPv4 address.
    (Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16, V6Rule::SixToFour),
    // RFC 9637: documentation.
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20, V6Rule::Refuse("a documentation address")),
    // RFC 9602: segment routing (SRv6) SIDs, not globally reachable.
    (Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0), 16, V6Rule::Refuse("a segment-routing (5f00::/16) address")),
    // RFC 4193: unique-local.
    (Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, V6Rule::Refuse("a unique-local (fc00::/7) address")),
    // RFC 4291 §2.5.6: link-local.
    (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, V6Rule::Refuse("a link-local address")),
    // RFC 3879: site-local, deprecated but still routed inside some sites.
    (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, V6Rule::Refuse("a site-local (fec0::/10) address")),
    // RFC 4291 §2.7: multicast.
    (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, V6Rule::Refuse("a multicast address")),
];

fn v4_reason(ip: Ipv4Addr) -> Option<&'static str> {
    let bits = u32::from(ip);
    V4_REFUSED
        .iter()
        .find(|(net, len, _)| prefix_match32(bits, u32::from(*net), *len))
        .map(|(_, _, reason)| *reason)
}

fn v6_reason(ip: Ipv6Addr) -> Option<&'static str> {
    let bits = u128::from(ip);
    let rule = V6_RULES
        .iter()
        .find(|(net, len, _)| prefix_match128(bits, u128::from(*net), *len))
        .map(|(_, _, rule)| *rule);
    // Truncation to u32 keeps exactly the bits named.
    match rule {
        Some(V6Rule::Refuse(reason)) => Some(reason),
        Some(V6Rule::Low32) => v4_reason(Ipv4Addr::from(bits as u32)),
        Some(V6Rule::SixToFour) => v4_reason(Ipv4Addr::from((bits >> 80) as u32)),
        // IANA's IPv6 Address Space registry (RFC 4291 §2.4): global unicast is
        // 2000::/3; everything else is reserved or unassigned.
        None if bits >> 125 != 0b001 => Some("a reserved IPv6 address (outside 2000::/3)"),
        None => None,
    }
}

fn prefix_match32(bits: u32, net: u32, len: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    bits & mask == net & mask
}

fn prefix_match128(bits: u128, net: u128, len: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    bits & mask == net & mask
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
            "::8.8.8.8",
            "64:ff9b:1::808:808",
            "100::1",
            "2001:2::1",
            "3fff::1",
            "5f00::1",
            "192.88.99.1",
            "4000::1",
            "::ffff:169.254.169.254",
            "::ffff:0:a9fe:a9fe",
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
            "2002:808:808::1",
            "::ffff:8.8.4.4",
        ] {
            assert_eq!(reason(public), None, "{public} is public");
        }
    }

    /// Each special-purpose block as the registries print it, in text: its first and
    /// last address are refused, and the addresses just outside it are public (where
    /// no other block starts there).
    #[test]
    fn registry_blocks_are_refused_to_their_edges() {
        for (first, last, before, after) in [
            ("0.0.0.0", "0.255.255.255", None, Some("1.0.0.0")),
            (
                "10.0.0.0",
                "10.255.255.255",
                Some("9.255.255.255"),
                Some("11.0.0.0"),
            ),
            (
                "100.64.0.0",
                "100.127.255.255",
                Some("100.63.255.255"),
                Some("100.128.0.0"),
            ),
            (
                "127.0.0.0",
                "127.255.255.255",
                Some("126.255.255.255"),
                Some("128.0.0.0"),
            ),
            (
                "169.254.0.0",
                "169.254.255.255",
                Some("169.253.255.255"),
                Some("169.255.0.0"),
            ),
            (
                "172.16.0.0",
                "172.31.255.255",
                Some("172.15.255.255"),
                Some("172.32.0.0"),
            ),
            (
                "192.0.0.0",
                "192.0.0.255",
                Some("191.255.255.255"),
                Some("192.0.1.0"),
            ),
            (
                "192.0.2.0",
                "192.0.2.255",
                Some("192.0.1.255"),
                Some("192.0.3.0"),
            ),
            (
                "192.88.99.0",
                "192.88.99.255",
                Some("192.88.98.255"),
                Some("192.88.100.0"),
            ),
            (
                "192.168.0.0",
                "192.168.255.255",
                Some("192.167.255.255"),
                Some("192.169.0.0"),
            ),
            (
                "198.18.0.0",
                "198.19.255.255",
                Some("198.17.255.255"),
                Some("198.20.0.0"),
            ),
            (
                "198.51.100.0",
                "198.51.100.255",
                Some("198.51.99.255"),
                Some("198.51.101.0"),
            ),
            (
                "203.0.113.0",
                "203.0.113.255",
                Some("203.0.112.255"),
                Some("203.0.114.0"),
            ),
            (
                "224.0.0.0",
                "239.255.255.255",
                Some("223.255.255.255"),
                None,
            ),
            ("240.0.0.0", "255.255.255.255", None, None),
            (
                "::ffff:0.0.0.0",
                "::ffff:0.255.255.255",
                None,
                Some("::ffff:1.0.0.0"),
            ),
            ("::", "::ffff:ffff", None, None),
            (
                "64:ff9b:1::",
                "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
                None,
                None,
            ),
            ("100::", "100::ffff:ffff:ffff:ffff", None, None),
            ("100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff", None, None),
            (
                "2001::",
                "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
                Some("2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
                Some("2001:200::"),
            ),
            (
                "2001:db8::",
                "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
                Some("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff"),
                Some("2001:db9::"),
            ),
            (
                "3fff::",
                "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
                Some("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
                Some("3fff:1000::"),
            ),
            (
                "5f00::",
                "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                None,
                None,
            ),
            (
                "fc00::",
                "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                None,
                None,
            ),
            (
                "fe80::",
                "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                None,
                None,
            ),
            (
                "fec0::",
                "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                None,
                None,
            ),
            (
                "ff00::",
                "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                None,
                None,
            ),
            // Outside global unicast 2000::/3: reserved.
            (
                "4000::",
                "5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                Some("3fff:1000::"),
                None,
            ),
            (
                "1::",
                "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                None,
                Some("2000::"),
            ),
        ] {
            for refused in [first, last] {
                assert!(reason(refused).is_some(), "{refused} should be refused");
            }
            for public in [before, after].into_iter().flatten() {
                assert_eq!(reason(public), None, "{public}, next to {first}, is public");
            }
        }
        assert_eq!(
            reason("64:ff9b:1::a00:1"),
            Some("a local-use NAT64 (64:ff9b:1::/48) address")
        );
    }

    /// A small deterministic generator (xorshift), so the cases are the same every run.
    fn addresses(seed: u64, count: usize) -> impl Iterator<Item = u128> {
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count).map(move |_| (u128::from(next()) << 64) | u128::from(next()))
    }

    /// Differential against the standard library's stable predicates (an independent
    /// reading of the same RFCs): whatever std calls loopback, private, link-local,
    /// multicast, documentation, unspecified or broadcast is refused; and an IPv4
    /// address judged through every IPv6 embedding that reaches it (mapped, NAT64,
    /// 6to4) gets the same verdict as itself. Random addresses plus addresses drawn
    /// near every block's edges.
    #[test]
    fn agrees_with_std_and_across_embeddings() {
        let mut v4s: Vec<Ipv4Addr> = addresses(0x5eed_0001, 20_000)
            .map(|bits| Ipv4Addr::from(bits as u32))
            .collect();
        for (net, len, _) in V4_REFUSED {
            let base = u32::from(*net);
            let size = 1u64 << (32 - u32::from(*len));
            for offset in [0u64, 1, size - 1, size] {
                v4s.push(Ipv4Addr::from(base.wrapping_add(offset as u32)));
                v4s.push(Ipv4Addr::from(base.wrapping_sub(1)));
            }
        }
        for v4 in v4s {
            let std_says_special = v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_multicast()
                || v4.is_documentation()
                || v4.is_unspecified()
                || v4.is_broadcast();
            let verdict = v4_reason(v4);
            if std_says_special {
                assert!(verdict.is_some(), "{v4}: std calls it special");
            }
            let [a, b, c, d] = v4.octets();
            let embedded = [
                v4.to_ipv6_mapped(),
                Ipv6Addr::new(
                    0x64,
                    0xff9b,
                    0,
                    0,
                    0,
                    0,
                    u16::from_be_bytes([a, b]),
                    u16::from_be_bytes([c, d]),
                ),
                Ipv6Addr::new(
                    0x2002,
                    u16::from_be_bytes([a, b]),
                    u16::from_be_bytes([c, d]),
                    0,
                    0,
                    0,
                    0,
                    1,
                ),
            ];
            for v6 in embedded {
                assert_eq!(v6_reason(v6), verdict, "{v6} reaches {v4}");
            }
        }
        for bits in addresses(0x5eed_0002, 20_000) {
            let v6 = Ipv6Addr::from(bits);
            let std_says_special = v6.is_loopback()
                || v6.is_multicast()
                || v6.is_unspecified()
                || v6.is_unique_local()
                || v6.is_unicast_link_local();
            if std_says_special {
                assert!(v6_reason(v6).is_some(), "{v6}: std calls it special");
            }
            // Random 128-bit addresses are mostly outside 2000::/3: reserved.
            if bits >> 125 != 0b001 {
                assert!(v6_reason(v6).is_some(), "{v6} is outside 2000::/3");
            }
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
