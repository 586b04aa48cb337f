//! The operator's key, the digest of a call's arguments, and a signed decision.
//!
//! A decision's signature is HMAC-SHA-256 under the operator's key of, each field
//! length-prefixed so no two decisions encode alike: a version tag, the approval id,
//! the SHA-256 of the call's arguments in their RFC 8785 canonical form, the
//! principal, the expiry (ms since the Unix epoch), the verdict, the standing grant
//! asked for, the operator's message, who decided and the site (workspace root and
//! state directory) the call was asked at. Changing any of them breaks the
//! signature; only a holder of the key can make one.

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use holon_core::{ToolError, ToolErrorKind};

use crate::site::CallSite;

/// The bytes of an operator key.
const KEY_BYTES: usize = 32;

/// The secret that signs the operator's decisions. Whoever holds it can approve any
/// call, so it lives where no tool reaches (the state directory) and is never shown.
#[derive(Clone)]
pub struct OperatorKey([u8; KEY_BYTES]);

impl OperatorKey {
    /// A new random key from the operating system.
    pub fn generate() -> Result<Self, ToolError> {
        let mut bytes = [0u8; KEY_BYTES];
        getrandom::fill(&mut bytes).map_err(|error| {
            ToolError::new(
                ToolErrorKind::INTERNAL_ERROR,
                format!("the operating system gave no random bytes for an operator key: {error}"),
            )
        })?;
        Ok(Self(bytes))
    }

    /// The key `bytes`.
    pub fn from_bytes(bytes: [u8; KEY_BYTES]) -> Self {
        Self(bytes)
    }

    /// The key written as [`OperatorKey::to_hex`] wrote it (surrounding whitespace
    /// ignored); `None` when it is not 64 hex digits.
    pub fn from_hex(text: &str) -> Option<Self> {
        let mut bytes = [0; KEY_BYTES];
        hex::decode_to_slice(text.trim(), &mut bytes).ok()?;
        Some(Self(bytes))
    }

    /// The key as 64 hex digits, for its file.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    fn mac(&self) -> Hmac<Sha256> {
        // HMAC takes a key of any length.
        <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).expect("HMAC takes any key length")
    }

    /// The MAC under this key fed with `fields`, each length-prefixed so that no two
    /// lists of fields encode alike.
    pub(crate) fn mac_of(&self, fields: &[&[u8]]) -> Hmac<Sha256> {
        let mut mac = self.mac();
        for field in fields {
            mac.update(&(field.len() as u64).to_be_bytes());
            mac.update(field);
        }
        mac
    }
}

impl fmt::Debug for OperatorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OperatorKey(..)")
    }
}

/// A standing grant the operator adds with an approval: later calls of the same tool
/// by the same session or principal run without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// This call only.
    Once,
    /// Every call of this tool in the call's session.
    Session,
    /// Every call of this tool by the call's principal.
    Principal,
}

impl Standing {
    const fn as_str(self) -> &'static str {
        match self {
            Self::Once => "once",
            Self::Session => "session",
            Self::Principal => "principal",
        }
    }
}

/// The operator's decision on one pending call, bound to it and signed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedDecision {
    /// The pending call's id.
    pub approval_id: String,
    /// SHA-256 (hex) of the call's canonical arguments, as the operator saw them.
    pub arguments_sha256: String,
    /// The principal the call is for.
    pub principal: String,
    /// The decision holds until then, ms since the Unix epoch.
    pub expires_at_ms: i64,
    /// `true` to run the call, `false` to refuse it.
    pub approve: bool,
    /// Whether an approval also stands for later calls.
    pub standing: Standing,
    /// The operator's message (with a denial, the model sees it).
    #[serde(default)]
    pub message: Option<String>,
    /// Who decided: the operator's name (`holon-tools approvals --as`, the OS user by
    /// default) or, for an MCP client's user, `mcp-elicitation:<principal>`. The audit
    /// record of the decided call names them.
    pub decided_by: String,
    /// Where the call was asked, as it was stored: an approval runs it there only.
    #[serde(default)]
    pub site: Option<CallSite>,
    /// The id of the key that signed it, in a ring that rotates (see
    /// [`OperatorKeyring`](crate::OperatorKeyring)); `None` for the one unnamed key of a
    /// key file. Verification picks the key by it, so a decision of a key rotated out
    /// is told from a forged one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// HMAC-SHA-256 (hex) of everything above under the operator's key.
    pub signature: String,
}

impl SignedDecision {
    /// A decision on the fields given, signed with the unnamed `key` (a key file's).
    #[allow(clippy::too_many_arguments)] // each is one bound field of the decision
    pub fn sign(
        key: &OperatorKey,
        approval_id: &str,
        arguments_sha256: &str,
        principal: &str,
        expires_at_ms: i64,
        approve: bool,
        standing: Standing,
        message: Option<String>,
        decided_by: &str,
        site: Option<CallSite>,
    ) -> Self {
        Self::sign_with_id(
            key,
            None,
            approval_id,
            arguments_sha256,
            principal,
            expires_at_ms,
            approve,
            standing,
            message,
            decided_by,
            site,
        )
    }

    /// A decision on the fields given, signed with `key`, whose id in its ring is
    /// `key_id` (bound by the signature too).
    #[allow(clippy::too_many_arguments)] // each is one bound field of the decision
    pub fn sign_with_id(
        key: &OperatorKey,
        key_id: Option<&str>,
        approval_id: &str,
        arguments_sha256: &str,
        principal: &str,
        expires_at_ms: i64,
        approve: bool,
        standing: Standing,
        message: Option<String>,
        decided_by: &str,
        site: Option<CallSite>,
    ) -> Self {
        let mut decision = Self {
            approval_id: approval_id.to_string(),
            arguments_sha256: arguments_sha256.to_string(),
            principal: principal.to_string(),
            expires_at_ms,
            approve,
            standing,
            message,
            decided_by: decided_by.to_string(),
            site,
            key_id: key_id.map(str::to_string),
            signature: String::new(),
        };
        decision.signature = hex::encode(decision.signed(key).finalize().into_bytes());
        decision
    }

    /// Whether the signature is `key`'s over these fields (compared in constant time).
    pub fn verify(&self, key: &OperatorKey) -> bool {
        match hex::decode(&self.signature) {
            Ok(signature) => self.signed(key).verify_slice(&signature).is_ok(),
            Err(_) => false,
        }
    }

    /// The MAC fed with every field but the signature.
    fn signed(&self, key: &OperatorKey) -> Hmac<Sha256> {
        let expires = self.expires_at_ms.to_be_bytes();
        // The fields of a struct serialize in one order, and u64s exactly.
        let site = serde_json::to_string(&self.site).unwrap_or_default();
        let fields: [&[u8]; 10] = [
            b"holon-approval-v3",
            self.approval_id.as_bytes(),
            self.arguments_sha256.as_bytes(),
            self.principal.as_bytes(),
            &expires,
            if self.approve { b"approve" } else { b"deny" },
            self.standing.as_str().as_bytes(),
            self.message.as_deref().unwrap_or("").as_bytes(),
            self.decided_by.as_bytes(),
            site.as_bytes(),
        ];
        let mut mac = key.mac_of(&fields);
        mac.update(&[u8::from(self.message.is_some())]);
        // Unnamed keys sign as before key ids existed, so stored decisions still verify.
        if let Some(id) = &self.key_id {
            mac.update(b"key-id");
            mac.update(&(id.len() as u64).to_be_bytes());
            mac.update(id.as_bytes());
        }
        mac
    }
}

/// The RFC 8785 (JCS) canonical text of `arguments`: keys sorted, no whitespace,
/// numbers in their shortest form. Two texts of the same arguments have one form.
pub fn canonical_arguments(arguments: &Value) -> String {
    // Serializing a `Value` does not fail: its keys are strings.
    serde_jcs::to_string(arguments).unwrap_or_default()
}

/// SHA-256 (hex) of the canonical form of `arguments`: what a decision is bound to.
pub fn arguments_digest(arguments: &Value) -> String {
    hex::encode(Sha256::digest(canonical_arguments(arguments).as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_digest_is_of_the_canonical_form() {
        let a = json!({ "b": [1, 2.5, "x"], "a": { "z": null, "y": true } });
        let b: Value =
            serde_json::from_str(r#"{"a":{"y":true,"z":null},"b":[1,2.5,"x"]}"#).unwrap();
        assert_eq!(
            canonical_arguments(&a),
            r#"{"a":{"y":true,"z":null},"b":[1,2.5,"x"]}"#
        );
        assert_eq!(arguments_digest(&a), arguments_digest(&b));
        assert_ne!(
            arguments_digest(&a),
            arguments_digest(&json!({ "b": [1], "a": {} }))
        );
    }

    fn site() -> CallSite {
        let dir = |path: &str, inode| crate::DirIdentity {
            path: path.into(),
            device: 2049,
            inode,
        };
        CallSite {
            workspace: dir("/srv/project", 11),
            state_dir: Some(dir("/state", 12)),
        }
    }

    #[test]
    fn every_field_is_bound_by_the_signature() {
        let key = OperatorKey::from_bytes([7; 32]);
        let decision = SignedDecision::sign(
            &key,
            "id",
            "d1",
            "ada",
            10,
            true,
            Standing::Once,
            None,
            "operator-ada",
            Some(site()),
        );
        assert!(decision.verify(&key));
        assert!(!decision.verify(&OperatorKey::from_bytes([8; 32])));
        let altered: [fn(&mut SignedDecision); 12] = [
            |d| d.approval_id.push('x'),
            |d| d.arguments_sha256 = "d2".into(),
            |d| d.principal = "mallory".into(),
            |d| d.expires_at_ms += 1,
            |d| d.approve = false,
            |d| d.standing = Standing::Principal,
            |d| d.message = Some(String::new()),
            |d| d.decided_by = "mallory".into(),
            |d| d.site = None,
            |d| d.site.as_mut().unwrap().workspace.path = "/elsewhere".into(),
            |d| d.site.as_mut().unwrap().workspace.inode += 1,
            |d| d.site.as_mut().unwrap().state_dir = None,
        ];
        for alter in altered {
            let mut forged = decision.clone();
            alter(&mut forged);
            assert!(!forged.verify(&key), "{forged:?}");
        }
        let key_hex = key.to_hex();
        assert_eq!(OperatorKey::from_hex(&key_hex).unwrap().to_hex(), key_hex);
        assert!(OperatorKey::from_hex("zz").is_none());
    }

    #[test]
    fn a_key_file_of_signed_digit_pairs_is_not_a_key() {
        // `u8::from_str_radix` reads "+a" as 10: 32 such pairs are 64 characters but
        // not 64 hex digits, and must not become a key.
        assert!(OperatorKey::from_hex(&"+a".repeat(KEY_BYTES)).is_none());
    }
}
