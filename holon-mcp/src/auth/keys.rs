//! The keys that verify access tokens: a JWKS from a URL or a file, or one PEM key;
//! cached, and fetched again when a token names a key the cache lacks (key rotation),
//! at most once per refresh interval.

// The resource server's own I/O: it reads the key file and fetches the JWKS its
// operator names.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use tokio::sync::Mutex;

use super::config::KeySource;

/// The most a JWKS document may weigh.
const MAX_JWKS_BYTES: usize = 1 << 20;

/// How long one JWKS fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Keys older than this are fetched again on the next token (a key the issuer
/// withdrew stops verifying within this time).
const MAX_KEY_AGE: Duration = Duration::from_secs(3600);

/// One verification key.
pub(crate) struct Key {
    /// Its `kid`, if it has one.
    kid: Option<String>,
    /// The one algorithm its JWK pins, if it does.
    alg: Option<Algorithm>,
    family: AlgorithmFamily,
    pub(crate) key: DecodingKey,
}

/// The keys of one fetch.
struct KeySet {
    keys: Vec<Arc<Key>>,
    fetched: Instant,
}

/// Why no key verifies a token.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NoKey {
    /// The token names a key id no key has.
    UnknownKid,
    /// The token names no key id and no single key of its algorithm's family exists.
    Ambiguous,
}

/// The keys of a [`KeySource`], cached.
pub(crate) struct KeyStore {
    source: KeySource,
    client: Option<reqwest::Client>,
    cache: RwLock<Arc<KeySet>>,
    /// When the last fetch started; held during a fetch so that one runs at a time.
    last_fetch: Mutex<Option<Instant>>,
    refresh_interval: Duration,
}

impl KeyStore {
    /// The store of `source`, its keys loaded now. A JWKS URL that cannot be fetched
    /// now is noted by `warn` and fetched again on the first token; a file that
    /// cannot be read, or holds no usable key, is an error.
    pub(crate) async fn load(
        source: KeySource,
        refresh_interval: Duration,
        warn: impl FnOnce(String),
    ) -> Result<Self, String> {
        let client = match &source {
            KeySource::JwksUrl(_) => Some(http_client()?),
            _ => None,
        };
        let store = Self {
            source,
            client,
            cache: RwLock::new(Arc::new(KeySet {
                keys: Vec::new(),
                fetched: Instant::now(),
            })),
            last_fetch: Mutex::new(None),
            refresh_interval,
        };
        match store.fetch().await {
            Ok(keys) => store.replace(keys),
            Err(error) if matches!(store.source, KeySource::JwksUrl(_)) => warn(error),
            Err(error) => return Err(error),
        }
        *store.last_fetch.lock().await = Some(Instant::now());
        Ok(store)
    }

    /// The key that verifies a token with key id `kid` and algorithm `alg`,
    /// fetching the keys again if none does (or they are old) and the refresh
    /// interval allows.
    pub(crate) async fn key_for(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Arc<Key>, NoKey> {
        let cached = self.snapshot();
        let fresh = cached.fetched.elapsed() < MAX_KEY_AGE;
        if let (true, Ok(key)) = (fresh, select(&cached.keys, kid, alg)) {
            return Ok(key);
        }
        self.refresh(&cached).await;
        select(&self.snapshot().keys, kid, alg)
    }

    fn snapshot(&self) -> Arc<KeySet> {
        self.cache
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    fn replace(&self, keys: Vec<Arc<Key>>) {
        let set = Arc::new(KeySet {
            keys,
            fetched: Instant::now(),
        });
        *self
            .cache
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = set;
    }

    /// Fetches the keys again unless another fetch replaced `seen` meanwhile or the
    /// last fetch is more recent than the refresh interval. A failed fetch keeps the
    /// keys there were.
    async fn refresh(&self, seen: &Arc<KeySet>) {
        if matches!(self.source, KeySource::PublicKeyPem(_)) {
            return;
        }
        let mut last = self.last_fetch.lock().await;
        if !Arc::ptr_eq(seen, &self.snapshot()) {
            return;
        }
        if last.is_some_and(|at| at.elapsed() < self.refresh_interval) {
            return;
        }
        *last = Some(Instant::now());
        if let Ok(keys) = self.fetch().await {
            self.replace(keys);
        }
    }

    async fn fetch(&self) -> Result<Vec<Arc<Key>>, String> {
        match &self.source {
            KeySource::JwksUrl(url) => {
                let client = self.client.as_ref().ok_or("no HTTP client")?;
                let text = fetch_jwks(client, url.as_str()).await?;
                parse_jwks(&text).map_err(|error| format!("the JWKS at {url}: {error}"))
            }
            KeySource::JwksFile(path) => {
                let text = std::fs::read(path)
                    .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
                parse_jwks(&text).map_err(|error| format!("{}: {error}", path.display()))
            }
            KeySource::PublicKeyPem(path) => {
                let pem = std::fs::read(path)
                    .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
                let key = pem_key(&pem).map_err(|error| format!("{}: {error}", path.display()))?;
                Ok(vec![Arc::new(key)])
            }
        }
    }
}

/// The key among `keys` for a token with `kid` and `alg`: the one with that id (whose
/// pinned algorithm, if any, is `alg`), or without an id, the only key of `alg`'s family.
fn select(keys: &[Arc<Key>], kid: Option<&str>, alg: Algorithm) -> Result<Arc<Key>, NoKey> {
    let usable =
        |key: &&Arc<Key>| key.family == alg.family() && key.alg.is_none_or(|own| own == alg);
    match kid {
        Some(kid) => keys
            .iter()
            .filter(usable)
            .find(|key| key.kid.as_deref() == Some(kid))
            .cloned()
            .ok_or(NoKey::UnknownKid),
        None => {
            let mut candidates = keys.iter().filter(usable);
            match (candidates.next(), candidates.next()) {
                (Some(key), None) => Ok(key.clone()),
                _ => Err(NoKey::Ambiguous),
            }
        }
    }
}

/// The signing keys of a JWKS document; keys for encryption, of a kind this server
/// cannot verify with, or symmetric are left out.
fn parse_jwks(text: &[u8]) -> Result<Vec<Arc<Key>>, String> {
    let set: JwkSet = serde_json::from_slice(text)
        .map_err(|error| format!("not a JWKS document ({{\"keys\": [...]}}): {error}"))?;
    let keys: Vec<Arc<Key>> = set
        .keys
        .iter()
        .filter(|jwk| {
            !matches!(
                jwk.common.public_key_use,
                Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
            )
        })
        .filter_map(|jwk| {
            // A key pinned to an algorithm that signs nothing (RSA-OAEP) is no signing key.
            let alg = match jwk.common.key_algorithm {
                Some(alg) => Some(alg.to_string().parse::<Algorithm>().ok()?),
                None => None,
            };
            let key = DecodingKey::from_jwk(jwk).ok()?;
            let family = key.family();
            (family != AlgorithmFamily::Hmac).then(|| {
                Arc::new(Key {
                    kid: jwk.common.key_id.clone(),
                    alg,
                    family,
                    key,
                })
            })
        })
        .collect();
    if keys.is_empty() && !set.keys.is_empty() {
        return Err(
            "it has no public signing key this server can use (RSA, EC P-256/P-384 or Ed25519)"
                .to_string(),
        );
    }
    Ok(keys)
}

/// The key of a PEM `PUBLIC KEY` (or RSA `RSA PUBLIC KEY`) file.
fn pem_key(pem: &[u8]) -> Result<Key, String> {
    let key = DecodingKey::from_rsa_pem(pem)
        .or_else(|_| DecodingKey::from_ec_pem(pem))
        .or_else(|_| DecodingKey::from_ed_pem(pem))
        .map_err(|_| {
            "not a PEM public key (RSA, EC or Ed25519 `-----BEGIN PUBLIC KEY-----`)".to_string()
        })?;
    Ok(Key {
        kid: None,
        alg: None,
        family: key.family(),
        key,
    })
}

/// An HTTPS client trusting Mozilla's roots, with rustls on ring (the workspace's
/// TLS stack), no redirects (a JWKS URL is the one its operator named).
fn http_client() -> Result<reqwest::Client, String> {
    use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto};
    let roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let config = ClientConfig::builder_with_provider(Arc::new(crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("cannot set up TLS: {error}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(config)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(FETCH_TIMEOUT)
        .no_proxy()
        .build()
        .map_err(|error| format!("cannot build the JWKS client: {error}"))
}

/// The body of `url`, at most [`MAX_JWKS_BYTES`].
async fn fetch_jwks(client: &reqwest::Client, url: &str) -> Result<Vec<u8>, String> {
    let mut response = client
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|error| format!("cannot fetch the JWKS at {url}: {error}"))?;
    if !response.status().is_success() {
        return Err(format!("the JWKS at {url} answered {}", response.status()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| format!("cannot read the JWKS at {url}: {error}"))?
    {
        if body.len() + chunk.len() > MAX_JWKS_BYTES {
            return Err(format!("the JWKS at {url} is over {MAX_JWKS_BYTES} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::EncodingKey;
    use jsonwebtoken::jwk::Jwk;
    use p256::elliptic_curve::Generate;
    use p256::pkcs8::EncodePrivateKey;
    use serde_json::{Value, json};

    fn ec_jwk(kid: Option<&str>) -> Value {
        let der = p256::SecretKey::generate().to_pkcs8_der().unwrap();
        let key = EncodingKey::from_ec_der(der.as_bytes());
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
        jwk.common.key_id = kid.map(str::to_string);
        serde_json::to_value(jwk).unwrap()
    }

    fn parse(keys: Vec<Value>) -> Result<Vec<Arc<Key>>, String> {
        parse_jwks(json!({ "keys": keys }).to_string().as_bytes())
    }

    #[test]
    fn symmetric_and_encryption_keys_are_never_verification_keys() {
        let secret = json!({ "kty": "oct", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQ", "kid": "hs", "alg": "HS256" });
        let mut encryption = ec_jwk(Some("enc"));
        encryption["use"] = json!("enc");
        let keys = parse(vec![secret.clone(), encryption, ec_jwk(Some("sig"))]).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].kid.as_deref(), Some("sig"));
        let error = parse(vec![secret]).err().unwrap();
        assert!(error.contains("no public signing key"), "{error}");
        let error = parse_jwks(b"[]").err().unwrap();
        assert!(error.contains("not a JWKS"), "{error}");
    }

    #[test]
    fn a_key_is_chosen_by_kid_and_algorithm_family() {
        let keys = parse(vec![ec_jwk(Some("a")), ec_jwk(Some("b"))]).unwrap();
        let chosen = select(&keys, Some("b"), Algorithm::ES256).map(|key| key.kid.clone());
        assert_eq!(chosen, Ok(Some("b".to_string())));
        assert_eq!(
            select(&keys, Some("c"), Algorithm::ES256).err(),
            Some(NoKey::UnknownKid)
        );
        // An EC key pinned to ES256 verifies neither RS256 nor ES384.
        for alg in [Algorithm::RS256, Algorithm::ES384] {
            assert_eq!(select(&keys, Some("a"), alg).err(), Some(NoKey::UnknownKid));
        }
        assert_eq!(
            select(&keys, None, Algorithm::ES256).err(),
            Some(NoKey::Ambiguous)
        );
        let single = parse(vec![ec_jwk(None)]).unwrap();
        assert!(select(&single, None, Algorithm::ES256).is_ok());
    }
}
