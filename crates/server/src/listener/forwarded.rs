//! The client's address behind a reverse proxy.
//!
//! A public server sits behind a proxy that ends TLS (nginx, Caddy, a
//! cloud load balancer), and then every socket comes from the proxy. The
//! proxy names the client in a header: `Forwarded` (RFC 7239) or
//! `X-Forwarded-For`. Anyone can write those headers, so they are read
//! only on sockets from an address the operator listed as a proxy
//! (`Config::trusted_proxies`), and only as far back as the chain of
//! listed proxies goes: each proxy appends the address it was reached
//! from, so the list is read from its end, and the first address that is
//! not a listed proxy is the client. A client that writes its own header
//! only adds entries in front of the one its proxy appends.

use std::net::IpAddr;
use std::str::FromStr;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The addresses and ranges of the proxies whose headers are believed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    pub fn new(ranges: Vec<IpNet>) -> TrustedProxies {
        TrustedProxies(ranges)
    }

    /// Reads a list of addresses and CIDR ranges separated by commas or
    /// spaces, such as `127.0.0.1, 10.0.0.0/8, ::1`.
    pub fn parse(text: &str) -> Result<TrustedProxies, String> {
        let ranges = text
            .split([',', ' '])
            .filter(|item| !item.is_empty())
            .map(|item| {
                IpNet::from_str(item)
                    .or_else(|_| IpAddr::from_str(item).map(IpNet::from))
                    .map_err(|_| format!("`{item}` is not an address or a CIDR range"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TrustedProxies(ranges))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `address` is one of the proxies.
    pub fn contains(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.0.iter().any(|range| range.contains(&address))
    }

    /// The client's address for a request that came from `peer` with
    /// `headers`: `peer` itself unless it is a proxy; otherwise the
    /// nearest address of the forwarding chain that is not a proxy. When
    /// every address is a proxy, the farthest one; when an entry cannot
    /// be read (`unknown`, an obfuscated name, garbage), the proxy that
    /// added it, since nothing before it can be known.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.contains(peer) {
            return peer;
        }
        let chain = forwarded_for(headers);
        let mut client = peer;
        for entry in chain.iter().rev() {
            match entry {
                Some(address) => {
                    client = *address;
                    if !self.contains(*address) {
                        break;
                    }
                }
                None => break,
            }
        }
        client
    }
}

/// The addresses a request was forwarded for, the client's first: from
/// `Forwarded` when the request has it, else from `X-Forwarded-For`.
/// An entry that is not an address is `None`.
fn forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let forwarded: Vec<Option<IpAddr>> = elements(headers, "forwarded")
        .filter_map(|element| match element {
            // A `Forwarded` element names its client in its `for` pair;
            // one without it says nothing of the chain.
            Some(element) => element.split(';').find_map(|pair| {
                let (key, value) = pair.split_once('=')?;
                key.trim()
                    .eq_ignore_ascii_case("for")
                    .then(|| node_address(value.trim().trim_matches('"')))
            }),
            None => Some(None),
        })
        .collect();
    if !forwarded.is_empty() {
        return forwarded;
    }
    elements(headers, "x-forwarded-for")
        .map(|entry| entry.and_then(|entry| node_address(entry.trim())))
        .collect()
}

/// The comma-separated elements of every line of header `name`, in order;
/// a line that is not text is one element that cannot be read (`None`).
fn elements<'a>(headers: &'a HeaderMap, name: &str) -> impl Iterator<Item = Option<&'a str>> {
    headers.get_all(name).iter().flat_map(|value| {
        let elements: Vec<Option<&str>> = match value.to_str() {
            Ok(text) => text.split(',').map(Some).collect(),
            Err(_) => vec![None],
        };
        elements
    })
}

/// An address as a forwarding header writes it: `192.0.2.1`,
/// `192.0.2.1:4711`, `2001:db8::1`, or `[2001:db8::1]:4711`.
fn node_address(text: &str) -> Option<IpAddr> {
    if let Ok(address) = IpAddr::from_str(text) {
        return Some(address);
    }
    if let Some(rest) = text.strip_prefix('[') {
        let (inside, _port) = rest.split_once(']')?;
        return IpAddr::from_str(inside).ok();
    }
    let (host, port) = text.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    IpAddr::from_str(host).ok().filter(IpAddr::is_ipv4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_header_from_an_address_that_is_not_a_proxy_is_ignored() {
        let proxies = TrustedProxies::parse("10.0.0.1").unwrap();
        let forged = headers(&[("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(proxies.client(ip("198.51.100.7"), &forged), ip("198.51.100.7"));
        let none = TrustedProxies::default();
        assert_eq!(none.client(ip("10.0.0.1"), &forged), ip("10.0.0.1"));
    }

    #[test]
    fn the_nearest_address_that_is_not_a_proxy_is_the_client() {
        let proxies = TrustedProxies::parse("10.0.0.0/8, 127.0.0.1").unwrap();
        // A client that forged an entry sits behind it: the proxy appended
        // the client's real address after the forged one.
        let chain = headers(&[("x-forwarded-for", "1.2.3.4, 198.51.100.7, 10.1.1.1")]);
        assert_eq!(proxies.client(ip("127.0.0.1"), &chain), ip("198.51.100.7"));
        let split = headers(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "198.51.100.8"),
        ]);
        assert_eq!(proxies.client(ip("127.0.0.1"), &split), ip("198.51.100.8"));
        let all_proxies = headers(&[("x-forwarded-for", "10.0.0.5, 10.0.0.6")]);
        assert_eq!(proxies.client(ip("127.0.0.1"), &all_proxies), ip("10.0.0.5"));
        assert_eq!(
            proxies.client(ip("127.0.0.1"), &HeaderMap::new()),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn forwarded_is_read_before_x_forwarded_for() {
        let proxies = TrustedProxies::parse("::1 127.0.0.1").unwrap();
        let both = headers(&[
            (
                "forwarded",
                "for=192.0.2.60;proto=https, For=\"[2001:db8:cafe::17]:4711\"",
            ),
            ("x-forwarded-for", "198.51.100.7"),
        ]);
        assert_eq!(proxies.client(ip("::1"), &both), ip("2001:db8:cafe::17"));
        let with_port = headers(&[("forwarded", "for=\"192.0.2.43:47011\";by=10.0.0.1")]);
        assert_eq!(proxies.client(ip("127.0.0.1"), &with_port), ip("192.0.2.43"));
    }

    #[test]
    fn an_entry_that_cannot_be_read_stops_the_chain_at_the_proxy_that_wrote_it() {
        let proxies = TrustedProxies::parse("127.0.0.1, 10.0.0.1").unwrap();
        let hidden = headers(&[("forwarded", "for=198.51.100.7, for=unknown, for=10.0.0.1")]);
        assert_eq!(proxies.client(ip("127.0.0.1"), &hidden), ip("10.0.0.1"));
        let garbage = headers(&[("x-forwarded-for", "not an address")]);
        assert_eq!(proxies.client(ip("127.0.0.1"), &garbage), ip("127.0.0.1"));
        // A line that is not text stops the chain as well, in either header.
        for name in ["forwarded", "x-forwarded-for"] {
            let mut bytes = HeaderMap::new();
            let value = if name == "forwarded" {
                "for=198.51.100.7"
            } else {
                "198.51.100.7"
            };
            bytes.append(name, HeaderValue::from_str(value).unwrap());
            bytes.append(name, HeaderValue::from_bytes(b"\xff").unwrap());
            assert_eq!(proxies.client(ip("127.0.0.1"), &bytes), ip("127.0.0.1"), "{name}");
        }
    }

    #[test]
    fn the_list_reads_addresses_and_ranges_and_refuses_anything_else() {
        let proxies = TrustedProxies::parse("127.0.0.1,10.0.0.0/8  fd00::/8").unwrap();
        assert!(proxies.contains(ip("10.200.0.1")));
        assert!(
            proxies.contains(ip("::ffff:127.0.0.1")),
            "an IPv4-mapped address counts as IPv4"
        );
        assert!(proxies.contains(ip("fd12::1")));
        assert!(!proxies.contains(ip("127.0.0.2")));
        assert!(TrustedProxies::parse("").unwrap().is_empty());
        let error = TrustedProxies::parse("10.0.0.0/33").unwrap_err();
        assert!(error.contains("10.0.0.0/33"), "{error}");
    }
}
