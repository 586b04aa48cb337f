//! The client's DNS resolver: the system's lookup, then every address it returns is
//! checked against the address policy before the connector sees any of them. The
//! connector dials only these addresses, so a second lookup (DNS rebinding) cannot
//! slip a refused address in.

use std::net::SocketAddr;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::{NetError, PrivateAddresses};

/// Resolves names for one client, under its policy.
pub(super) struct PolicyResolver {
    pub(super) policy: PrivateAddresses,
    /// Host names resolved without the check: the proxies the operator chose.
    pub(super) exempt: Vec<String>,
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        let policy = if self
            .exempt
            .iter()
            .any(|exempt| exempt.eq_ignore_ascii_case(&host))
        {
            PrivateAddresses::Allow
        } else {
            self.policy.clone()
        };
        Box::pin(async move {
            let addresses = resolve_checked(&host, &policy).await?;
            Ok(Box::new(addresses.into_iter()) as Addrs)
        })
    }
}

/// The addresses `host` resolves to, every one allowed by `policy`. One refused
/// address refuses the host: a name that mixes public and private addresses is not
/// trusted with either.
pub(super) async fn resolve_checked(
    host: &str,
    policy: &PrivateAddresses,
) -> Result<Vec<SocketAddr>, NetError> {
    let resolve_error = |error: String| NetError::Resolve {
        host: host.to_string(),
        error,
    };
    // Port 0: reqwest puts the URL's port in.
    let addresses: Vec<SocketAddr> = tokio::net::lookup_host((host, 0))
        .await
        .map_err(|error| resolve_error(error.to_string()))?
        .collect();
    if addresses.is_empty() {
        return Err(resolve_error("no address".to_string()));
    }
    for address in &addresses {
        policy
            .check(address.ip())
            .map_err(|reason| NetError::AddressRefused {
                url: host.to_string(),
                address: address.ip(),
                reason,
            })?;
    }
    Ok(addresses)
}
