//! The audit record of a call, and the hash chain that makes a log of them
//! tamper-evident: each record carries the previous record's hash (the first, a fixed
//! genesis), and its own hash covers its fields and that link. Removing, editing or
//! reordering a record breaks the chain at that point; [`verify`] finds where.
//!
//! The record is built from what a [`DispatchObserver`](holon_core::DispatchObserver) sees
//! ([`AuditRecord::of_execution`]); where it is written is the host's choice.
//!
//! A chain alone cannot show a log rewritten whole (every hash recomputed) or cut at its
//! end. A [`Checkpoint`] anchors it: the head at some record, signed with the operator's
//! key, which the tools never reach. A rewrite of anything up to a checkpoint no longer
//! gives the signed hash, and only a holder of the key can sign a new one.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use holon_core::{Decision, Execution, Principal, SessionId, ToolErrorKind, ToolStatus};

use crate::{DecidedBy, OperatorKey};

/// The `prev_hash` of the first record of a chain.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// How a call ended, as the audit log tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The tool ran and succeeded.
    Success,
    /// The call failed (`kind` says how): bad input, the tool's own error, a time limit.
    Error,
    /// The call waits for something (`kind` is none; the result's directive says what).
    Deferred,
    /// The family gate refused the call before anything ran (`family_not_allowed`).
    Refused,
}

/// One call, as the audit log keeps it. Field order is the serialized order, which the
/// chain's hash covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// When the call started, in milliseconds since the Unix epoch (UTC).
    pub time_unix_ms: u64,
    /// The authenticated principal's id, when the transport had one.
    pub principal: Option<String>,
    /// The caller (agent id) the host named in the context.
    pub caller: Option<String>,
    /// The transport's session id, when it has sessions.
    pub session: Option<String>,
    /// The tool as the caller named it (an alias or an unknown name is kept as sent).
    pub tool: String,
    /// The caller's id for the call, when it gave one.
    pub call_id: Option<String>,
    /// SHA-256, in lowercase hex, of the arguments' JSON text: the text the tool parses.
    pub arguments_sha256: String,
    /// That text itself, when the host keeps arguments (they may hold secrets).
    pub arguments: Option<String>,
    /// How the call ended.
    pub outcome: Outcome,
    /// The error kind, when it failed or was refused.
    pub kind: Option<String>,
    /// The approval policy's decision, where one was in force: `allowed`, `asked`,
    /// `approved` or `denied` (by the operator, whose signed decision it carried out),
    /// or `refused` (a `deny` rule, or an approval that did not hold). `None` when
    /// only the family gate applied.
    pub decision: Option<String>,
    /// Who decided an `approved` or `denied` call: the operator's name, or
    /// `mcp-elicitation:<principal>` for an MCP client's user (see
    /// [`SignedDecision::decided_by`](crate::SignedDecision::decided_by)).
    /// Absent from other records, and from records written before it existed, which
    /// therefore hash as they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// How long the call took, in microseconds.
    pub duration_us: u64,
    /// The previous record's `hash`, or [`GENESIS_HASH`] for the first.
    pub prev_hash: String,
    /// SHA-256 of `prev_hash` and this record's other fields (see [`AuditRecord::seal`]).
    pub hash: String,
}

impl AuditRecord {
    /// The record of `execution`, its arguments kept when `keep_arguments`. It is not
    /// chained yet: [`AuditRecord::seal`] links it.
    pub fn of_execution(execution: &Execution<'_>, keep_arguments: bool) -> Self {
        let result = execution.result;
        let kind = result.error_kind().map(str::to_string);
        let outcome = match result.status {
            ToolStatus::Success => Outcome::Success,
            ToolStatus::Deferred => Outcome::Deferred,
            ToolStatus::Error
                if result.error_kind() == Some(ToolErrorKind::FAMILY_NOT_ALLOWED.as_str()) =>
            {
                Outcome::Refused
            }
            ToolStatus::Error => Outcome::Error,
        };
        let context = execution.context;
        let time_unix_ms = execution
            .started_at
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            });
        Self {
            time_unix_ms,
            principal: context
                .state::<Principal>()
                .ok()
                .map(|principal| principal.id().to_string()),
            caller: context.caller().map(str::to_string),
            session: context
                .state::<SessionId>()
                .ok()
                .map(|session| session.as_str().to_string()),
            tool: execution.requested_name.to_string(),
            call_id: result.call_id.clone(),
            arguments_sha256: sha256_hex(execution.input_json.as_bytes()),
            arguments: keep_arguments.then(|| execution.input_json.to_string()),
            outcome,
            kind,
            // Only where a policy was in force: without one every call is just allowed.
            decision: context
                .call_gate()
                .map(|_| execution.decision.as_str().to_string()),
            decided_by: match execution.decision {
                Decision::Approved | Decision::Denied => context
                    .state::<DecidedBy>()
                    .ok()
                    .map(|decided| decided.0.clone()),
                // A standing grant's author allowed it, where one did.
                Decision::Allowed => execution.granted_by.map(str::to_string),
                _ => None,
            },
            duration_us: u64::try_from(execution.elapsed.as_micros()).unwrap_or(u64::MAX),
            prev_hash: String::new(),
            hash: String::new(),
        }
    }

    /// Links the record after the record whose hash is `prev_hash`, and sets its hash.
    pub fn seal(&mut self, prev_hash: &str) {
        self.prev_hash = prev_hash.to_string();
        self.hash = self.computed_hash();
    }

    /// The record's JSON up to its link: the text before [`UNSEALED_SUFFIX`], which a
    /// store can seal without this crate, given the previous hash `P` (lowercase hex):
    /// the hash is SHA-256 of `prefix + "prev_hash":"P","hash":""}`, and the line
    /// `prefix + "prev_hash":"P","hash":"HASH"}`, as [`AuditRecord::seal`] gives.
    /// Fails when a field serializes after `hash`, so that such a record is refused
    /// rather than sealed to another text than the verifier reads.
    pub fn unsealed_prefix(&self) -> Result<String, NoSealSuffix> {
        let mut unsealed = self.clone();
        unsealed.prev_hash = String::new();
        unsealed.hash = String::new();
        let text = serde_json::to_string(&unsealed).map_err(|_| NoSealSuffix)?;
        text.strip_suffix(UNSEALED_SUFFIX)
            .map(str::to_string)
            .ok_or(NoSealSuffix)
    }

    /// The hash the record's fields give: SHA-256 of its JSON with `hash` empty.
    pub fn computed_hash(&self) -> String {
        let mut unsealed = self.clone();
        unsealed.hash = String::new();
        // A struct of strings, numbers and unit enums always serializes.
        let text = serde_json::to_string(&unsealed).unwrap_or_default();
        sha256_hex(text.as_bytes())
    }
}

/// How a record's JSON ends before it is sealed: its last two fields, `prev_hash` and
/// `hash`, both empty (every field before them is kept whole, strings escaped).
pub const UNSEALED_SUFFIX: &str = r#""prev_hash":"","hash":""}"#;

/// A record's JSON does not end with [`UNSEALED_SUFFIX`]: it cannot be sealed from its
/// prefix ([`AuditRecord::unsealed_prefix`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the audit record's JSON does not end with its `prev_hash` and `hash` fields: it cannot be sealed outside this program"
)]
pub struct NoSealSuffix;

/// Where and why a chain does not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainBreak {
    /// A line is not a record: cut short (a truncated write) or altered beyond parsing.
    #[error("line {line} is not an audit record ({reason}): the log was cut short or altered")]
    Unreadable {
        /// The 1-based line number.
        line: usize,
        /// What the parser said.
        reason: String,
    },
    /// A record's fields do not give its hash: it was edited.
    #[error("record {line} was edited: its fields do not give its hash")]
    Edited {
        /// The 1-based line number.
        line: usize,
    },
    /// The record gives its hash but is not stored as it was written (extra keys,
    /// other escapes or spacing): the line was rewritten.
    #[error(
        "record {line} was rewritten: its text is not the text it was written as (extra keys or other escapes)"
    )]
    Rewritten {
        /// The 1-based line number.
        line: usize,
    },
    /// A record does not follow the one before it: one was removed, or records were
    /// reordered.
    #[error(
        "record {line} does not follow the record before it: a record was removed or the records reordered"
    )]
    Unlinked {
        /// The 1-based line number.
        line: usize,
    },
    /// The log ends before the record its head names: records at the end were removed.
    #[error(
        "the log ends after {records} records, before the last record its head names: records at the end were removed"
    )]
    Truncated {
        /// How many records the log still has.
        records: usize,
    },
}

/// The end of a verified chain: how many records and the last hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainHead {
    /// How many records.
    pub records: usize,
    /// The last record's hash ([`GENESIS_HASH`] when there is none).
    pub hash: String,
}

impl ChainHead {
    /// The head of an empty log.
    pub fn genesis() -> Self {
        Self {
            records: 0,
            hash: GENESIS_HASH.to_string(),
        }
    }

    /// Verifies `lines` as what follows this head (a log's later lines, the first of
    /// them numbered `first_line` in what a break reports) and moves the head to their
    /// last record. Each record must be stored exactly as this crate writes it: a
    /// record with extra keys or re-escaped text gives the same hash, so only its text
    /// shows it was rewritten.
    pub fn extend<'l>(
        &mut self,
        first_line: usize,
        lines: impl IntoIterator<Item = &'l str>,
    ) -> Result<(), ChainBreak> {
        for (index, text) in lines.into_iter().enumerate() {
            let line = first_line + index;
            if text.trim().is_empty() {
                continue;
            }
            let record: AuditRecord =
                serde_json::from_str(text).map_err(|error| ChainBreak::Unreadable {
                    line,
                    reason: error.to_string(),
                })?;
            if record.computed_hash() != record.hash {
                return Err(ChainBreak::Edited { line });
            }
            if serde_json::to_string(&record).ok().as_deref() != Some(text) {
                return Err(ChainBreak::Rewritten { line });
            }
            if record.prev_hash != self.hash {
                return Err(ChainBreak::Unlinked { line });
            }
            self.records += 1;
            self.hash = record.hash;
        }
        Ok(())
    }
}

/// The head of a log at one record, signed with the operator's key: where the log's
/// first `lines` lines (`length` bytes) end, their records chain to `hash`. Kept beside
/// the log; a runtime verifies only what follows it, and `audit verify` checks the
/// whole log against it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// Records up to here.
    pub records: usize,
    /// Lines up to here (empty lines included).
    pub lines: usize,
    /// Bytes up to here: the end of the last record's line.
    pub length: u64,
    /// Where the last record's line starts, in bytes.
    pub last_line_at: u64,
    /// The last record's hash.
    pub hash: String,
    /// HMAC-SHA-256 (hex) of the fields above under the operator's key.
    pub signature: String,
}

impl Checkpoint {
    /// The checkpoint of `head` at `lines` lines and `length` bytes, the last record's
    /// line starting at `last_line_at`, signed with `key`.
    pub fn sign(
        key: &OperatorKey,
        head: &ChainHead,
        lines: usize,
        length: u64,
        last_line_at: u64,
    ) -> Self {
        let mut checkpoint = Self {
            records: head.records,
            lines,
            length,
            last_line_at,
            hash: head.hash.clone(),
            signature: String::new(),
        };
        use hmac::Mac as _;
        checkpoint.signature = hex::encode(checkpoint.mac(key).finalize().into_bytes());
        checkpoint
    }

    /// Whether the signature is `key`'s over these fields (compared in constant time).
    pub fn verify(&self, key: &OperatorKey) -> bool {
        use hmac::Mac as _;
        hex::decode(&self.signature)
            .is_ok_and(|signature| self.mac(key).verify_slice(&signature).is_ok())
    }

    /// The chain's head at this checkpoint.
    pub fn head(&self) -> ChainHead {
        ChainHead {
            records: self.records,
            hash: self.hash.clone(),
        }
    }

    fn mac(&self, key: &OperatorKey) -> hmac::Hmac<Sha256> {
        let numbers = [
            self.records as u64,
            self.lines as u64,
            self.length,
            self.last_line_at,
        ]
        .map(u64::to_be_bytes);
        key.mac_of(&[
            b"holon-audit-checkpoint-v1",
            &numbers[0],
            &numbers[1],
            &numbers[2],
            &numbers[3],
            self.hash.as_bytes(),
        ])
    }
}

/// Verifies a log's lines (JSON lines, one record each, empty lines ignored) from the
/// genesis: each record's hash is its own and links to the one before.
pub fn verify<'l>(lines: impl IntoIterator<Item = &'l str>) -> Result<ChainHead, ChainBreak> {
    let mut head = ChainHead::genesis();
    head.extend(1, lines)?;
    Ok(head)
}

/// SHA-256 of `bytes` in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(tool: &str) -> AuditRecord {
        AuditRecord {
            time_unix_ms: 1,
            principal: None,
            caller: Some("root".into()),
            session: None,
            tool: tool.into(),
            call_id: None,
            arguments_sha256: sha256_hex(b"{}"),
            arguments: None,
            outcome: Outcome::Success,
            kind: None,
            decision: None,
            decided_by: None,
            duration_us: 5,
            prev_hash: String::new(),
            hash: String::new(),
        }
    }

    /// Three chained records, one JSON line each.
    fn log() -> Vec<String> {
        let mut prev = GENESIS_HASH.to_string();
        ["Read", "Write", "Bash"]
            .into_iter()
            .map(|tool| {
                let mut record = record(tool);
                record.seal(&prev);
                prev = record.hash.clone();
                serde_json::to_string(&record).unwrap()
            })
            .collect()
    }

    fn verified(lines: &[String]) -> Result<ChainHead, ChainBreak> {
        verify(lines.iter().map(String::as_str))
    }

    #[test]
    fn a_clean_log_verifies_to_its_last_hash() {
        let lines = log();
        let head = verified(&lines).expect("clean");
        assert_eq!(head.records, 3);
        let last: AuditRecord = serde_json::from_str(&lines[2]).unwrap();
        assert_eq!(head.hash, last.hash);
        assert_eq!(verified(&[]).unwrap().hash, GENESIS_HASH);
    }

    #[test]
    fn a_deleted_record_breaks_the_link() {
        let mut lines = log();
        lines.remove(1);
        assert_eq!(verified(&lines), Err(ChainBreak::Unlinked { line: 2 }));
        let mut lines = log();
        lines.remove(0);
        assert_eq!(verified(&lines), Err(ChainBreak::Unlinked { line: 1 }));
    }

    #[test]
    fn an_edited_record_no_longer_gives_its_hash() {
        let mut lines = log();
        lines[1] = lines[1].replace("\"Write\"", "\"Wrote\"");
        assert_eq!(verified(&lines), Err(ChainBreak::Edited { line: 2 }));
    }

    #[test]
    fn an_edited_and_rehashed_record_breaks_the_next_link() {
        let mut lines = log();
        let mut edited: AuditRecord = serde_json::from_str(&lines[1]).unwrap();
        edited.outcome = Outcome::Error;
        let prev = edited.prev_hash.clone();
        edited.seal(&prev);
        lines[1] = serde_json::to_string(&edited).unwrap();
        assert_eq!(verified(&lines), Err(ChainBreak::Unlinked { line: 3 }));
    }

    #[test]
    fn a_record_rewritten_with_its_hash_kept_is_found_by_its_text() {
        let lines = log();
        let extra_key = lines[1].replacen('{', r#"{"note":"added later","#, 1);
        let re_escaped = lines[1].replace("\"Write\"", "\"\\u0057rite\"");
        let spaced = lines[1].replace("\":", "\": ");
        for rewritten in [extra_key, re_escaped, spaced] {
            let mut edited = lines.clone();
            edited[1] = rewritten;
            assert_eq!(
                verified(&edited),
                Err(ChainBreak::Rewritten { line: 2 }),
                "{}",
                edited[1]
            );
        }
    }

    #[test]
    fn a_head_extends_over_later_lines_as_one_verification_would() {
        let lines = log();
        let mut head = verified(&lines[..1]).unwrap();
        head.extend(2, lines[1..].iter().map(String::as_str))
            .unwrap();
        assert_eq!(head, verified(&lines).unwrap());
        let mut stale = verified(&lines[..1]).unwrap();
        assert_eq!(
            stale.extend(3, lines[2..].iter().map(String::as_str)),
            Err(ChainBreak::Unlinked { line: 3 })
        );
    }

    #[test]
    fn a_checkpoint_verifies_under_its_key_only_and_binds_every_field() {
        let key = OperatorKey::from_bytes([7; 32]);
        let head = verified(&log()).unwrap();
        let checkpoint = Checkpoint::sign(&key, &head, 3, 900, 600);
        assert!(checkpoint.verify(&key));
        assert_eq!(checkpoint.head(), head);
        assert!(!checkpoint.verify(&OperatorKey::from_bytes([8; 32])));
        let forged = [
            Checkpoint {
                records: 2,
                ..checkpoint.clone()
            },
            Checkpoint {
                lines: 4,
                ..checkpoint.clone()
            },
            Checkpoint {
                length: 901,
                ..checkpoint.clone()
            },
            Checkpoint {
                last_line_at: 601,
                ..checkpoint.clone()
            },
            Checkpoint {
                hash: GENESIS_HASH.to_string(),
                ..checkpoint.clone()
            },
            Checkpoint {
                signature: "00".repeat(32),
                ..checkpoint.clone()
            },
        ];
        for forged in forged {
            assert!(!forged.verify(&key), "{forged:?}");
        }
    }

    #[test]
    fn reordered_records_break_the_link() {
        let mut lines = log();
        lines.swap(1, 2);
        assert_eq!(verified(&lines), Err(ChainBreak::Unlinked { line: 2 }));
    }

    /// A record written before `decided_by` existed, with the hash that version gave it.
    const RECORD_BEFORE_DECIDED_BY: &str = r#"{"time_unix_ms":1,"principal":null,"caller":"root","session":null,"tool":"Bash","call_id":null,"arguments_sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","arguments":null,"outcome":"success","kind":null,"decision":"approved","duration_us":5,"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","hash":"e359f1f5976286a7959ab0fe9ed6dea43d17c141c66010857f9c0e1deb609095"}"#;

    #[test]
    fn a_record_from_before_decided_by_still_verifies_and_chains_on() {
        let old: AuditRecord = serde_json::from_str(RECORD_BEFORE_DECIDED_BY).unwrap();
        assert_eq!(old.decided_by, None);
        assert_eq!(
            serde_json::to_string(&old).unwrap(),
            RECORD_BEFORE_DECIDED_BY
        );
        let mut next = record("Write");
        next.decision = Some("denied".into());
        next.decided_by = Some("ada".into());
        next.seal(&old.hash);
        let lines = [
            RECORD_BEFORE_DECIDED_BY.to_string(),
            serde_json::to_string(&next).unwrap(),
        ];
        assert_eq!(verified(&lines).unwrap().records, 2);
    }

    #[test]
    fn who_decided_is_covered_by_the_hash() {
        let mut decided = record("Bash");
        decided.decision = Some("approved".into());
        decided.decided_by = Some("ada".into());
        decided.seal(GENESIS_HASH);
        let line = serde_json::to_string(&decided).unwrap();
        assert!(line.contains(r#""decided_by":"ada""#), "{line}");
        assert_eq!(verified(std::slice::from_ref(&line)).unwrap().records, 1);
        let edited = line.replace(r#""decided_by":"ada""#, r#""decided_by":"mallory""#);
        assert_eq!(verified(&[edited]), Err(ChainBreak::Edited { line: 1 }));
        let removed = line.replace(r#","decided_by":"ada""#, "");
        assert_eq!(verified(&[removed]), Err(ChainBreak::Edited { line: 1 }));
    }

    /// The line and hash of the record whose unsealed prefix is `prefix`, sealed
    /// after `prev_hash` the way a store that cannot run this crate does.
    fn sealed_from_prefix(prefix: &str, prev_hash: &str) -> (String, String) {
        let hash =
            sha256_hex(format!(r#"{prefix}"prev_hash":"{prev_hash}","hash":""}}"#).as_bytes());
        let line = format!(r#"{prefix}"prev_hash":"{prev_hash}","hash":"{hash}"}}"#);
        (line, hash)
    }

    #[test]
    fn the_link_and_the_hash_are_the_last_fields_so_a_prefix_seals_as_seal_does() {
        let mut full = record("Bash");
        full.principal = Some("p".into());
        full.session = Some("s".into());
        full.call_id = Some("c".into());
        // Quotes, backslashes, control characters and the suffix itself, all escaped.
        full.arguments = Some(
            "é \" \\ \n\t\u{0}\u{1f}\u{7f} \u{2028} ✓ 𝄞 \"prev_hash\":\"\",\"hash\":\"\"}".into(),
        );
        full.kind = Some("k".into());
        full.decision = Some("approved".into());
        full.decided_by = Some("ada".into());
        let keys = [
            "time_unix_ms",
            "principal",
            "caller",
            "session",
            "tool",
            "call_id",
            "arguments_sha256",
            "arguments",
            "outcome",
            "kind",
            "decision",
            "decided_by",
            "duration_us",
            "prev_hash",
            "hash",
        ];
        let prefix = full.unsealed_prefix().expect("the link and hash come last");
        let text = format!("{prefix}{UNSEALED_SUFFIX}");
        let at: Vec<usize> = keys
            .iter()
            .map(|key| {
                text.find(&format!(r#"{{"{key}":"#))
                    .or_else(|| text.find(&format!(r#","{key}":"#)))
                    .unwrap_or_else(|| panic!("{key} in {text}"))
            })
            .collect();
        assert!(at.windows(2).all(|pair| pair[0] < pair[1]), "{text}");
        assert_eq!(
            text.matches("\":").count() - 2,
            keys.len(),
            "no other key: {text}"
        );
        for (record, prev) in [
            (full, GENESIS_HASH.to_string()),
            (record("Read"), "ab".repeat(32)),
        ] {
            let mut sealed = record.clone();
            sealed.seal(&prev);
            let (line, hash) = sealed_from_prefix(&record.unsealed_prefix().unwrap(), &prev);
            assert_eq!(hash, sealed.hash);
            assert_eq!(line, serde_json::to_string(&sealed).unwrap());
            let mut head = ChainHead {
                records: 0,
                hash: prev.clone(),
            };
            head.extend(1, [line.as_str()]).unwrap();
            assert_eq!(head.hash, hash);
            // Sealed or not, a record gives the same prefix.
            assert_eq!(sealed.unsealed_prefix(), record.unsealed_prefix());
        }
    }

    #[test]
    fn a_record_cut_short_is_unreadable() {
        let mut lines = log();
        let cut = lines[2].len() / 2;
        lines[2].truncate(cut);
        assert!(
            matches!(
                verified(&lines),
                Err(ChainBreak::Unreadable { line: 3, .. })
            ),
            "{:?}",
            verified(&lines)
        );
    }
}
