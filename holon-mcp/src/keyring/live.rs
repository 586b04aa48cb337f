//! The ring a running server seals and opens with: fixed (a key file, a key the
//! host gave, or a process's random one), or read from its store again when a
//! state names a key the server does not hold and every [`REFRESH`], so that
//! replicas follow a rotation without a restart.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use rmcp::model::{RequestStateCodec, RequestStateError, SealOptions};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{KeyStore, Keyring};

/// How often a server re-reads its store's ring while it seals and opens states: a
/// rotation reaches every replica within this time (or at once, for a replica that
/// opens a state sealed by the new key).
pub const REFRESH: Duration = Duration::from_secs(30);

/// The ring of a running server.
pub(crate) struct LiveKeyring {
    /// Where the ring is read again from; `None` for a fixed ring.
    store: Option<Arc<dyn KeyStore>>,
    /// How old the ring may get before a seal or an open reads it again.
    refresh: Duration,
    loaded: RwLock<Loaded>,
    /// How many times the ring was read: a caller that waited for another's read
    /// uses it rather than reading again.
    reads: AtomicU64,
    reading: Mutex<()>,
}

struct Loaded {
    codec: Arc<RequestStateCodec>,
    at: Instant,
}

impl Loaded {
    fn of(ring: &Keyring) -> Self {
        Self {
            codec: ring.codec().clone(),
            at: Instant::now(),
        }
    }
}

impl LiveKeyring {
    /// A ring that never changes.
    pub(crate) fn fixed(ring: &Keyring) -> Self {
        Self::with_codec(ring.codec().clone())
    }

    /// A ring of `codec`, which never changes.
    pub(crate) fn with_codec(codec: Arc<RequestStateCodec>) -> Self {
        Self {
            store: None,
            refresh: REFRESH,
            loaded: RwLock::new(Loaded {
                codec,
                at: Instant::now(),
            }),
            reads: AtomicU64::new(0),
            reading: Mutex::new(()),
        }
    }

    /// `ring`, as just read from `store`, which is read again as it changes and
    /// once it is `refresh` old.
    pub(crate) fn stored(store: Arc<dyn KeyStore>, ring: &Keyring, refresh: Duration) -> Self {
        Self {
            store: Some(store),
            refresh,
            ..Self::fixed(ring)
        }
    }

    /// This ring, read again from its store once it is `refresh` old.
    pub(crate) fn with_refresh(&self, refresh: Duration) -> Self {
        let codec = self
            .loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .codec
            .clone();
        Self {
            store: self.store.clone(),
            refresh,
            ..Self::with_codec(codec)
        }
    }

    /// The codec of the ring; read again from the store first when it is older
    /// than its refresh period.
    fn codec(&self) -> Arc<RequestStateCodec> {
        let (codec, stale) = {
            let loaded = self.loaded.read().unwrap_or_else(PoisonError::into_inner);
            (loaded.codec.clone(), loaded.at.elapsed() >= self.refresh)
        };
        if stale && self.store.is_some() {
            let seen = self.reads.load(Ordering::Acquire);
            return self.read_again(seen);
        }
        codec
    }

    /// Reads the ring from the store unless another caller did since `seen`: the
    /// codec after. A store that fails leaves the ring as it was (and says so).
    fn read_again(&self, seen: u64) -> Arc<RequestStateCodec> {
        let _reading = self.reading.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(store) = &self.store
            && self.reads.load(Ordering::Acquire) == seen
        {
            // Read first, then swap: callers keep sealing with the ring meanwhile.
            let read = store.load();
            let mut loaded = self.loaded.write().unwrap_or_else(PoisonError::into_inner);
            match read {
                Ok(ring) => *loaded = Loaded::of(&ring),
                Err(error) => {
                    // Try again in a while, not on every call.
                    loaded.at = Instant::now();
                    tracing::warn!(%error, "the requestState keyring could not be read again; the keys read before stay in use");
                }
            }
            self.reads.fetch_add(1, Ordering::AcqRel);
        }
        self.loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .codec
            .clone()
    }

    /// `value` sealed with the current key.
    pub(crate) fn seal_json_with<T: Serialize>(
        &self,
        value: &T,
        options: &SealOptions<'_>,
    ) -> Result<String, RequestStateError> {
        self.codec().seal_json_with(value, options)
    }

    /// The value `sealed` holds, if a key of the ring sealed it for
    /// `associated_data`. A key the server does not hold has the ring read again
    /// first (a rotation another replica saw first); still unknown, it is
    /// [`RequestStateError::UnknownKeyId`]: rotated out, or never the ring's.
    pub(crate) fn open_json_with<T: DeserializeOwned>(
        &self,
        sealed: &str,
        associated_data: &[u8],
    ) -> Result<T, RequestStateError> {
        let seen = self.reads.load(Ordering::Acquire);
        match self.codec().open_json_with(sealed, associated_data) {
            Err(RequestStateError::UnknownKeyId) if self.store.is_some() => self
                .read_again(seen)
                .open_json_with(sealed, associated_data),
            opened => opened,
        }
    }
}
