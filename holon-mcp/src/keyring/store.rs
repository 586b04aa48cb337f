//! Where a ring is kept so that every replica reads the same one: the [`KeyStore`]
//! trait, and the store of a server without a database (its process's memory).

use std::sync::{Mutex, PoisonError};

use super::{Keyring, KeyringError};

/// Keeps the ring of a store URL's database. Every replica reads the same ring; the
/// first to find none stores a new one, in a statement its peers cannot race.
pub(crate) trait KeyStore: Send + Sync + 'static {
    /// The ring as stored; when none is, a new one, stored first.
    fn load(&self) -> Result<Keyring, KeyringError>;

    /// Makes a new key current; the current one becomes the previous, and older
    /// keys are deleted. The ring after.
    fn rotate(&self) -> Result<Keyring, KeyringError>;
}

/// The ring of a server without a database: one process's (`memory`).
pub(crate) struct MemoryKeyStore {
    ring: Mutex<Keyring>,
}

impl MemoryKeyStore {
    /// A store of a new random ring.
    pub(crate) fn new() -> Result<Self, KeyringError> {
        Ok(Self {
            ring: Mutex::new(Keyring::generate()?),
        })
    }
}

impl KeyStore for MemoryKeyStore {
    fn load(&self) -> Result<Keyring, KeyringError> {
        Ok(self
            .ring
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone())
    }

    fn rotate(&self) -> Result<Keyring, KeyringError> {
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        *ring = ring.rotated()?;
        Ok(ring.clone())
    }
}

/// The ring of stored keys `(id, secret)`, newest first; `None` when there is none.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn ring_of(rows: Vec<(String, Vec<u8>)>) -> Result<Option<Keyring>, KeyringError> {
    let mut keys = rows
        .into_iter()
        .map(|(id, secret)| super::Key::new(id, secret));
    let Some(current) = keys.next().transpose()? else {
        return Ok(None);
    };
    Keyring::new(current, keys.collect::<Result<_, _>>()?).map(Some)
}
