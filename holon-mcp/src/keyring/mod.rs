//! The keys that seal a 2026-07-28 call's `requestState`: a ring of the current key
//! (it seals) and the previous ones (they still open), each named by an id that the
//! sealed state carries, so that opening picks the key that sealed it.
//!
//! Every replica of a server must hold the same ring: it lives in the store URL's
//! database ([`Stores`](crate::Stores)), or in a key file the operator hands each
//! replica ([`Keyring::from_file`]). A server re-reads a stored ring when a state
//! names a key it does not hold, and every [`REFRESH`].

mod file;
pub(crate) mod live;
#[cfg(feature = "postgres")]
pub(crate) mod postgres;
#[cfg(feature = "sqlite")]
pub(crate) mod sqlite;
pub(crate) mod store;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::RequestStateCodec;

pub use live::REFRESH;
pub(crate) use store::KeyStore;

/// The fewest bytes a key has (rmcp's minimum for an HMAC-SHA256 key).
const MIN_SECRET_BYTES: usize = RequestStateCodec::MIN_KEY_LENGTH;

/// The bytes of a key this crate draws.
const SECRET_BYTES: usize = 32;

/// The longest key id (it travels in every sealed state).
const MAX_ID_CHARS: usize = 64;

/// Why a keyring cannot be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyringError {
    /// The store that keeps the ring failed (the disk, the database).
    #[error("the keyring store failed: {0}")]
    Store(String),
    /// A key file that cannot be read, or that names no valid ring.
    #[error("the key file {}: {problem}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong, and how to write it.
        problem: String,
    },
    /// A key that cannot seal: its id or its secret.
    #[error("the key `{id}` {problem}")]
    Key {
        /// The key's id, as given.
        id: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The OS gave no random bytes for a new key.
    #[error("the OS gave no random bytes for a new key: {0}")]
    Random(String),
}

/// One key of a ring: its id and its secret.
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) id: String,
    pub(crate) secret: Vec<u8>,
}

impl Key {
    /// A new key: 32 random bytes, and a random id.
    pub(crate) fn generate() -> Result<Self, KeyringError> {
        let mut secret = vec![0u8; SECRET_BYTES];
        getrandom::fill(&mut secret).map_err(|error| KeyringError::Random(error.to_string()))?;
        let mut id = [0u8; 8];
        getrandom::fill(&mut id).map_err(|error| KeyringError::Random(error.to_string()))?;
        let id = hex::encode(id);
        Ok(Self { id, secret })
    }

    /// `id` and `secret`, checked: an id of 1 to 64 letters, digits, `-`, `_`, `.`;
    /// a secret of at least 32 bytes.
    pub(crate) fn new(id: impl Into<String>, secret: Vec<u8>) -> Result<Self, KeyringError> {
        let id = id.into();
        let problem = |problem: String| KeyringError::Key {
            id: id.clone(),
            problem,
        };
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
        if id.is_empty() || id.chars().count() > MAX_ID_CHARS || !id.chars().all(allowed) {
            return Err(problem(format!(
                "is not a key id: write 1 to {MAX_ID_CHARS} letters, digits, `-`, `_` or `.`"
            )));
        }
        if secret.len() < MIN_SECRET_BYTES {
            return Err(problem(format!(
                "has {} bytes: a key has at least {MIN_SECRET_BYTES} random bytes (`openssl rand -base64 32` makes one)",
                secret.len()
            )));
        }
        Ok(Self { id, secret })
    }
}

/// The ring that seals `requestState`: the current key seals, the previous ones
/// still open what they sealed. Its `Debug` shows the key ids, never a secret.
///
/// ```
/// let ring = holon_mcp::Keyring::generate()?;
/// let rotated = ring.rotated()?;
/// assert_eq!(rotated.previous_ids().collect::<Vec<_>>(), [ring.current_id()]);
/// # Ok::<(), holon_mcp::KeyringError>(())
/// ```
#[derive(Clone)]
pub struct Keyring {
    current: Key,
    previous: Vec<Key>,
    /// rmcp's codec of these keys (`rs2` states, which name their key).
    codec: Arc<RequestStateCodec>,
}

impl fmt::Debug for Keyring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keyring")
            .field("current", &self.current.id)
            .field("previous", &self.previous_ids().collect::<Vec<_>>())
            .finish()
    }
}

impl Keyring {
    /// A ring of one new random key: what a server without a store uses (its
    /// states open in this process only).
    pub fn generate() -> Result<Self, KeyringError> {
        Self::new(Key::generate()?, Vec::new())
    }

    /// A ring whose `current` key seals and whose `previous` keys still open, each
    /// `(id, secret)`: an id of 1 to 64 letters, digits, `-`, `_` or `.`, a secret of
    /// at least 32 random bytes, no id twice.
    pub fn from_keys<'a>(
        current: (&str, &[u8]),
        previous: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> Result<Self, KeyringError> {
        let current = Key::new(current.0, current.1.to_vec())?;
        let previous = previous
            .into_iter()
            .map(|(id, secret)| Key::new(id, secret.to_vec()))
            .collect::<Result<_, _>>()?;
        Self::new(current, previous)
    }

    /// The ring `current` and `previous` make.
    pub(crate) fn new(current: Key, previous: Vec<Key>) -> Result<Self, KeyringError> {
        let mut ids = vec![current.id.as_str()];
        for key in &previous {
            if ids.contains(&key.id.as_str()) {
                return Err(KeyringError::Key {
                    id: key.id.clone(),
                    problem: "is in the ring twice: give each key an id of its own".to_string(),
                });
            }
            ids.push(&key.id);
        }
        let keys = std::iter::once(&current)
            .chain(&previous)
            .map(|key| (key.id.clone(), key.secret.clone()));
        let codec =
            RequestStateCodec::new_with_keyring(current.id.clone(), keys).map_err(|error| {
                KeyringError::Key {
                    id: current.id.clone(),
                    problem: format!("cannot seal: {error}"),
                }
            })?;
        Ok(Self {
            current,
            previous,
            codec: Arc::new(codec),
        })
    }

    /// The ring of the key file at `path`: one key a line, `ID BASE64_SECRET`, the
    /// current key first and the previous ones after it; empty lines and lines that
    /// start with `#` are skipped.
    pub fn from_file(path: impl Into<PathBuf>) -> Result<Self, KeyringError> {
        let path = path.into();
        let text = file::read(&path).map_err(|problem| KeyringError::File {
            path: path.clone(),
            problem,
        })?;
        Self::parse(&text).map_err(|problem| KeyringError::File { path, problem })
    }

    /// The ring a key file's `text` holds; the error says what is wrong, and how to
    /// write it.
    fn parse(text: &str) -> Result<Self, String> {
        let mut keys = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let number = index + 1;
            let mut words = line.split_whitespace();
            let (Some(id), Some(secret), None) = (words.next(), words.next(), words.next()) else {
                return Err(format!(
                    "line {number} is not `ID BASE64_SECRET`: write one key a line, its id, a space and its secret in base64"
                ));
            };
            let secret = STANDARD.decode(secret).map_err(|error| {
                format!("line {number}: the secret of `{id}` is not base64 ({error}); `openssl rand -base64 32` makes one")
            })?;
            keys.push(Key::new(id, secret).map_err(|error| format!("line {number}: {error}"))?);
        }
        let mut keys = keys.into_iter();
        let Some(current) = keys.next() else {
            return Err(
                "names no key: write one line `ID BASE64_SECRET` a key, the current key first (`openssl rand -base64 32` makes a secret)"
                    .to_string(),
            );
        };
        Self::new(current, keys.collect()).map_err(|error| error.to_string())
    }

    /// This ring rotated: a new random key is current, this ring's current key is
    /// the previous one, and older keys are dropped (one previous key is enough
    /// when rotations are further apart than a state lives: 15 minutes).
    pub fn rotated(&self) -> Result<Self, KeyringError> {
        Self::new(Key::generate()?, vec![self.current.clone()])
    }

    /// The id of the key that seals.
    pub fn current_id(&self) -> &str {
        &self.current.id
    }

    /// The ids of the keys that still open, newest first.
    pub fn previous_ids(&self) -> impl Iterator<Item = &str> {
        self.previous.iter().map(|key| key.id.as_str())
    }

    /// The codec that seals with the current key and opens with any.
    pub(crate) fn codec(&self) -> &Arc<RequestStateCodec> {
        &self.codec
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rmcp::model::{RequestStateError, SealOptions};

    use super::*;

    const A: &[u8] = b"0123456789abcdef0123456789abcdef";
    const B: &[u8] = b"fedcba9876543210fedcba9876543210";

    fn seal(ring: &Keyring) -> String {
        let options = SealOptions::new()
            .associated_data(b"call")
            .ttl(Duration::from_secs(60));
        ring.codec().seal_json_with(&"state", &options).unwrap()
    }

    fn open(ring: &Keyring, sealed: &str) -> Result<String, RequestStateError> {
        ring.codec().open_json_with(sealed, b"call")
    }

    #[test]
    fn a_state_names_the_key_that_sealed_it_and_opens_while_that_key_is_in_the_ring() {
        let first = Keyring::from_keys(("k1", A), []).unwrap();
        let sealed = seal(&first);
        // `rs2.BASE64URL(ID).BODY.TAG`: the id is in the state.
        let id = sealed.split('.').nth(1).unwrap();
        assert_eq!(
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(id)
                .unwrap(),
            b"k1"
        );
        let second = Keyring::from_keys(("k2", B), [("k1", A)]).unwrap();
        assert_eq!(open(&second, &sealed).unwrap(), "state");
        assert!(seal(&second).starts_with("rs2.azI."), "k2 seals");
        let third = Keyring::from_keys(("k3", A), [("k2", B)]).unwrap();
        assert!(matches!(
            open(&third, &sealed),
            Err(RequestStateError::UnknownKeyId)
        ));
    }

    #[test]
    fn a_state_whose_key_id_was_changed_is_refused_as_forged() {
        // Both keys have the same secret: only the id's place in the MAC tells.
        let ring = Keyring::from_keys(("k1", A), [("k2", A)]).unwrap();
        let sealed = seal(&ring);
        let mut parts: Vec<&str> = sealed.split('.').collect();
        let forged_id = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("k2");
        parts[1] = &forged_id;
        assert!(matches!(
            open(&ring, &parts.join(".")),
            Err(RequestStateError::IntegrityCheckFailed)
        ));
    }

    #[test]
    fn rotation_keeps_the_current_key_as_the_only_previous_one() {
        let ring = Keyring::generate().unwrap();
        let once = ring.rotated().unwrap();
        let twice = once.rotated().unwrap();
        assert_ne!(once.current_id(), ring.current_id());
        assert_eq!(
            twice.previous_ids().collect::<Vec<_>>(),
            [once.current_id()]
        );
        let sealed = seal(&ring);
        assert!(open(&once, &sealed).is_ok());
        assert!(matches!(
            open(&twice, &sealed),
            Err(RequestStateError::UnknownKeyId)
        ));
    }

    #[test]
    fn a_key_file_lists_the_current_key_first_and_a_bad_one_says_how_to_write_it() {
        let text = format!(
            "# sealing keys\n\nk2 {}\nk1 {}\n",
            STANDARD.encode(B),
            STANDARD.encode(A)
        );
        let ring = Keyring::parse(&text).unwrap();
        assert_eq!(ring.current_id(), "k2");
        assert_eq!(ring.previous_ids().collect::<Vec<_>>(), ["k1"]);
        let cases = [
            ("", "names no key"),
            ("k1\n", "line 1 is not `ID BASE64_SECRET`"),
            ("k1 !!!\n", "is not base64"),
            ("k1 c2hvcnQ=\n", "has 5 bytes"),
            (
                "k/1 MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=\n",
                "is not a key id",
            ),
        ];
        for (text, expected) in cases {
            let error = Keyring::parse(text).expect_err(text);
            assert!(error.contains(expected), "{text:?}: {error}");
        }
        let twice = format!("k1 {}\nk1 {}\n", STANDARD.encode(A), STANDARD.encode(B));
        let error = Keyring::parse(&twice).expect_err("the same id twice");
        assert!(error.contains("twice"), "{error}");
    }

    #[test]
    fn the_debug_form_shows_ids_and_no_secret() {
        let ring = Keyring::from_keys(("k2", B), [("k1", A)]).unwrap();
        let shown = format!("{ring:?}");
        assert!(shown.contains("k2") && shown.contains("k1"), "{shown}");
        assert!(
            !shown.contains("fedcba") && !shown.contains("012345"),
            "{shown}"
        );
    }
}
