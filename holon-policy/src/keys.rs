//! Which operator keys sign and verify decisions: a current key, and the previous one
//! while a rotation settles.
//!
//! A decision names the key that signed it ([`SignedDecision::key_id`]), and is
//! verified with that key only, rather than tried against each key of the ring: a
//! decision of a key rotated out is then refused as such
//! ([`KeyRefusal::RotatedOut`]), told apart from a forged one, and a verification
//! costs one HMAC whatever the ring holds.

use std::fmt;

use crate::signing::{OperatorKey, SignedDecision};

/// The longest key id: ids are short names (holon-mcp's keyring draws 16 hex digits).
const MAX_ID_LEN: usize = 64;

/// One key of a ring and its id; `None` for a key file's one key, which has none.
#[derive(Clone)]
struct NamedKey {
    id: Option<String>,
    key: OperatorKey,
}

/// The keys of a host's approvals: decisions are signed with the current one and
/// verified with the one they name, current or previous.
#[derive(Clone)]
pub struct OperatorKeyring {
    current: NamedKey,
    previous: Option<NamedKey>,
}

/// Why a ring cannot be made of the keys given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyringError {
    /// An id is empty, too long, or not of letters, digits, `-`, `_` and `.`.
    #[error("the operator key id `{0}` is not 1 to 64 letters, digits, `-`, `_` or `.`")]
    BadId(String),
    /// The current and the previous key have one id.
    #[error("the current and the previous operator key are both named `{0}`")]
    SameId(String),
}

/// Why a decision's signature does not hold under a ring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRefusal {
    /// Not signed by the key it names (or, naming none, by the ring's unnamed key).
    Invalid,
    /// It names a key the ring no longer holds: signed before the key was rotated out.
    RotatedOut(String),
}

fn checked_id(id: String) -> Result<String, KeyringError> {
    let fits = !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if fits {
        Ok(id)
    } else {
        Err(KeyringError::BadId(id))
    }
}

impl OperatorKeyring {
    /// A ring of one unnamed key (a key file's): its decisions name no key, and sign
    /// as they did before rings existed.
    pub fn single(key: OperatorKey) -> Self {
        Self {
            current: NamedKey { id: None, key },
            previous: None,
        }
    }

    /// A ring of named keys: `current` signs, `previous` (the current one before the
    /// last rotation) still verifies what it signed.
    pub fn named(
        current: (String, OperatorKey),
        previous: Option<(String, OperatorKey)>,
    ) -> Result<Self, KeyringError> {
        let current_id = checked_id(current.0)?;
        let previous = match previous {
            Some((id, key)) => {
                let id = checked_id(id)?;
                if id == current_id {
                    return Err(KeyringError::SameId(id));
                }
                Some(NamedKey { id: Some(id), key })
            }
            None => None,
        };
        Ok(Self {
            current: NamedKey {
                id: Some(current_id),
                key: current.1,
            },
            previous,
        })
    }

    /// The id of the key that signs, `None` for an unnamed key.
    pub fn current_id(&self) -> Option<&str> {
        self.current.id.as_deref()
    }

    /// The id of the previous key, if the ring holds one.
    pub fn previous_id(&self) -> Option<&str> {
        self.previous.as_ref().and_then(|key| key.id.as_deref())
    }

    /// Whether the ring holds a key of the id `id` names (`None`: the unnamed key).
    pub fn holds(&self, id: Option<&str>) -> bool {
        self.key_of(id).is_some()
    }

    /// The key that signs, and its id.
    pub(crate) fn signing_key(&self) -> (&OperatorKey, Option<&str>) {
        (&self.current.key, self.current.id.as_deref())
    }

    fn key_of(&self, id: Option<&str>) -> Option<&OperatorKey> {
        std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|named| named.id.as_deref() == id)
            .map(|named| &named.key)
    }

    /// Whether `decision` is signed by the key it names, which this ring holds.
    pub fn verify(&self, decision: &SignedDecision) -> Result<(), KeyRefusal> {
        match self.key_of(decision.key_id.as_deref()) {
            Some(key) if decision.verify(key) => Ok(()),
            Some(_) => Err(KeyRefusal::Invalid),
            None => match &decision.key_id {
                // A ring of named keys never held an unnamed one: nothing rotated out.
                None => Err(KeyRefusal::Invalid),
                Some(id) => Err(KeyRefusal::RotatedOut(id.clone())),
            },
        }
    }
}

impl fmt::Debug for OperatorKeyring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OperatorKeyring")
            .field("current", &self.current.id)
            .field("previous", &self.previous.as_ref().map(|key| &key.id))
            .finish_non_exhaustive()
    }
}

/// Where a host's approvals read their ring (a database every replica shares), at
/// each signature and verification.
pub trait OperatorKeySource: Send + Sync {
    /// The ring as stored now.
    fn load(&self) -> Result<OperatorKeyring, String>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signing::Standing;

    fn decision(key: &OperatorKey, id: Option<&str>) -> SignedDecision {
        SignedDecision::sign_with_id(
            key,
            id,
            "approval",
            "digest",
            "ada",
            10,
            true,
            Standing::Once,
            None,
            "operator",
            None,
        )
    }

    #[test]
    fn the_previous_key_verifies_and_a_rotated_out_one_is_named() {
        let (k1, k2, k3) = (
            OperatorKey::from_bytes([1; 32]),
            OperatorKey::from_bytes([2; 32]),
            OperatorKey::from_bytes([3; 32]),
        );
        let ring =
            OperatorKeyring::named(("k3".into(), k3.clone()), Some(("k2".into(), k2.clone())))
                .unwrap();
        assert_eq!(ring.verify(&decision(&k3, Some("k3"))), Ok(()));
        assert_eq!(ring.verify(&decision(&k2, Some("k2"))), Ok(()));
        assert_eq!(
            ring.verify(&decision(&k1, Some("k1"))),
            Err(KeyRefusal::RotatedOut("k1".into()))
        );
        // A key id swapped onto another key's decision does not verify.
        let mut swapped = decision(&k2, Some("k2"));
        swapped.key_id = Some("k3".into());
        assert_eq!(ring.verify(&swapped), Err(KeyRefusal::Invalid));
        // Signed by k2 but naming k3.
        assert_eq!(
            ring.verify(&decision(&k2, Some("k3"))),
            Err(KeyRefusal::Invalid)
        );
        assert_eq!(ring.verify(&decision(&k3, None)), Err(KeyRefusal::Invalid));
    }

    #[test]
    fn an_unnamed_key_signs_as_before_and_bad_ids_are_refused() {
        let key = OperatorKey::from_bytes([7; 32]);
        let ring = OperatorKeyring::single(key.clone());
        let signed = decision(&key, None);
        assert!(signed.key_id.is_none());
        assert_eq!(ring.verify(&signed), Ok(()));
        assert_eq!(
            ring.verify(&decision(&key, Some("named"))),
            Err(KeyRefusal::RotatedOut("named".into()))
        );
        for bad in ["", "a b", &"x".repeat(65)] {
            assert!(matches!(
                OperatorKeyring::named((bad.to_string(), key.clone()), None),
                Err(KeyringError::BadId(_))
            ));
        }
        assert_eq!(
            OperatorKeyring::named(("a".into(), key.clone()), Some(("a".into(), key))).unwrap_err(),
            KeyringError::SameId("a".into())
        );
    }
}
