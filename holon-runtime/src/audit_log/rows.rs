//! Verifies an audit chain kept as numbered rows (a database's), with the file
//! chain's verifier: each row is a record's exact JSON line and its hash, numbered
//! from 1 with no gaps, and a head names the last row. A break names the row.

use holon_policy::audit::{ChainBreak, ChainHead};

/// One stored record: its sequence number, its JSON line as written, and the hash
/// stored beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRow {
    /// The record's number in the chain, from 1.
    pub seq: i64,
    /// The record's JSON text, exactly as it was written (no line end).
    pub line: String,
    /// The record's hash, as stored beside its text.
    pub hash: String,
}

/// Where and why a chain of rows does not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowBreak {
    /// The row's record breaks the chain (unreadable, edited, rewritten, or not
    /// following the row before it).
    #[error("row {seq}: {source}")]
    Chain {
        /// The row's sequence number.
        seq: i64,
        /// How the chain breaks there.
        source: ChainBreak,
    },
    /// A row in the middle is gone: the numbers skip it.
    #[error("row {seq} is missing: it was deleted (the rows after it keep their numbers)")]
    Missing {
        /// The missing row's sequence number.
        seq: i64,
    },
    /// The hash stored beside a record is not the record's own.
    #[error("row {seq} was edited: its hash column is not its record's hash")]
    HashColumn {
        /// The row's sequence number.
        seq: i64,
    },
    /// The rows end before the row the head names.
    #[error(
        "the chain ends at row {rows}, but its head names row {head}: rows at its end were deleted"
    )]
    Truncated {
        /// The last row there is.
        rows: i64,
        /// The row the head names.
        head: i64,
    },
    /// The head does not name the last row with its hash.
    #[error(
        "the chain's head names row {head} with another hash than the rows end with (at row {rows}): the head or the last rows were edited"
    )]
    Head {
        /// The last row there is.
        rows: i64,
        /// The row the head names.
        head: i64,
    },
}

/// Verifies `rows` (in sequence order) from the genesis, and that `head` (the last
/// row's number and hash, as the store keeps it) names their end: the chain's head
/// then, or the first row that breaks it.
pub fn verify_rows<'r>(
    rows: impl IntoIterator<Item = &'r AuditRow>,
    head: (i64, &str),
) -> Result<ChainHead, RowBreak> {
    let mut chain = ChainHead::genesis();
    let mut last = 0i64;
    for row in rows {
        let expected = last + 1;
        if row.seq != expected {
            return Err(RowBreak::Missing { seq: expected });
        }
        let line = usize::try_from(row.seq).unwrap_or(usize::MAX);
        // The file verifier skips empty lines; a row is one record, never empty.
        if row.line.trim().is_empty() {
            return Err(RowBreak::Chain {
                seq: row.seq,
                source: ChainBreak::Unreadable {
                    line,
                    reason: "the row's text is empty".to_string(),
                },
            });
        }
        chain
            .extend(line, [row.line.as_str()])
            .map_err(|source| RowBreak::Chain {
                seq: row.seq,
                source,
            })?;
        if row.hash != chain.hash {
            return Err(RowBreak::HashColumn { seq: row.seq });
        }
        last = row.seq;
    }
    let (head_seq, head_hash) = head;
    if head_seq > last {
        return Err(RowBreak::Truncated {
            rows: last,
            head: head_seq,
        });
    }
    if head_seq != last || head_hash != chain.hash {
        return Err(RowBreak::Head {
            rows: last,
            head: head_seq,
        });
    }
    Ok(chain)
}

#[cfg(test)]
mod tests {
    use holon_policy::audit::{AuditRecord, GENESIS_HASH, Outcome, sha256_hex};

    use super::*;

    /// Three chained rows, as a store writes them.
    fn rows() -> Vec<AuditRow> {
        let mut prev = GENESIS_HASH.to_string();
        (1..=3)
            .map(|seq| {
                let mut record = AuditRecord {
                    time_unix_ms: 1,
                    principal: None,
                    caller: None,
                    session: None,
                    tool: format!("Tool{seq}"),
                    call_id: None,
                    arguments_sha256: sha256_hex(b"{}"),
                    arguments: None,
                    outcome: Outcome::Success,
                    kind: None,
                    decision: None,
                    decided_by: None,
                    duration_us: 1,
                    prev_hash: String::new(),
                    hash: String::new(),
                };
                record.seal(&prev);
                prev = record.hash.clone();
                AuditRow {
                    seq,
                    line: serde_json::to_string(&record).unwrap(),
                    hash: record.hash,
                }
            })
            .collect()
    }

    fn head(rows: &[AuditRow]) -> (i64, String) {
        rows.last().map_or((0, GENESIS_HASH.to_string()), |row| {
            (row.seq, row.hash.clone())
        })
    }

    fn verified(rows: &[AuditRow], head: &(i64, String)) -> Result<ChainHead, RowBreak> {
        verify_rows(rows, (head.0, &head.1))
    }

    #[test]
    fn clean_rows_verify_and_an_empty_chain_too() {
        let rows = rows();
        assert_eq!(verified(&rows, &head(&rows)).unwrap().records, 3);
        assert_eq!(verified(&[], &head(&[])).unwrap(), ChainHead::genesis());
    }

    #[test]
    fn each_tampering_names_its_row() {
        let clean = rows();
        let head = head(&clean);

        let mut deleted = clean.clone();
        deleted.remove(1);
        assert_eq!(verified(&deleted, &head), Err(RowBreak::Missing { seq: 2 }));

        let mut edited = clean.clone();
        edited[1].line = edited[1].line.replace("Tool2", "Tool9");
        assert!(matches!(
            verified(&edited, &head),
            Err(RowBreak::Chain {
                seq: 2,
                source: ChainBreak::Edited { .. }
            })
        ));

        let mut hash_edited = clean.clone();
        hash_edited[1].hash = GENESIS_HASH.to_string();
        assert_eq!(
            verified(&hash_edited, &head),
            Err(RowBreak::HashColumn { seq: 2 })
        );

        let mut swapped = clean.clone();
        let (second, third) = (swapped[1].clone(), swapped[2].clone());
        swapped[1] = AuditRow { seq: 2, ..third };
        swapped[2] = AuditRow { seq: 3, ..second };
        assert!(matches!(
            verified(&swapped, &head),
            Err(RowBreak::Chain {
                seq: 2,
                source: ChainBreak::Unlinked { .. }
            })
        ));

        let cut = &clean[..2];
        assert_eq!(
            verified(cut, &head),
            Err(RowBreak::Truncated { rows: 2, head: 3 })
        );
    }
}
