//! The redirect policy: each hop is checked as the first URL was (scheme, no
//! credentials, an IP literal against the address policy; a host name is checked by
//! the resolver when the hop connects), up to a bound, and recorded.

use std::sync::{Arc, Mutex};

use reqwest::redirect::Policy;

use super::{NetError, PrivateAddresses, url_policy};

/// The URLs one request was redirected to, in order.
pub(super) type Hops = Arc<Mutex<Vec<String>>>;

/// Follows at most `limit` redirects (none: the redirect response is returned as it
/// is), recording each hop in `hops`.
pub(super) fn policy(limit: usize, addresses: PrivateAddresses, hops: Hops) -> Policy {
    if limit == 0 {
        return Policy::none();
    }
    Policy::custom(move |attempt| {
        // `previous` holds every URL requested so far, the first one included.
        if attempt.previous().len() > limit {
            return attempt.error(NetError::TooManyRedirects { limit });
        }
        if let Err(refused) = url_policy::check(attempt.url(), &addresses) {
            return attempt.error(refused);
        }
        let next = attempt.url().to_string();
        hops.lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .push(next);
        attempt.follow()
    })
}
