//! Bounds of the execution log (`tool_executions`): a refused call's input is kept as
//! a bounded excerpt with its size and SHA-1 (six refused 10 MB calls made a 63 MB
//! store when the whole input was kept), and old records are pruned by age and by the
//! total size of the inputs they hold.

use std::time::Duration;

use rusqlite::{Connection, params};

use super::StoreError;

/// How much of a refused call's input is kept: 2 KiB, enough to see what was sent.
pub const REFUSED_INPUT_EXCERPT_BYTES: usize = 2048;

/// How long and how much of the execution log is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutionRetention {
    /// Records older than this are removed (`None`: kept however old).
    pub max_age: Option<Duration>,
    /// When the inputs of all records hold more bytes than this, the oldest records
    /// are removed until they do not (`None`: no bound).
    pub max_input_bytes: Option<u64>,
}

/// By default records are kept 30 days, and their inputs 256 MiB in all.
pub const DEFAULT_EXECUTION_RETENTION: ExecutionRetention = ExecutionRetention {
    max_age: Some(Duration::from_secs(30 * 24 * 60 * 60)),
    max_input_bytes: Some(256 << 20),
};

impl Default for ExecutionRetention {
    fn default() -> Self {
        DEFAULT_EXECUTION_RETENTION
    }
}

/// A refused input as it is stored: its first [`REFUSED_INPUT_EXCERPT_BYTES`] (cut on
/// a character boundary, marked), its size and SHA-1; a short input stays whole
/// (`None` for the hash).
pub fn bound_refused_input(input: String) -> (String, u64, Option<String>) {
    let bytes = input.len() as u64;
    if input.len() <= REFUSED_INPUT_EXCERPT_BYTES {
        return (input, bytes, None);
    }
    let sha1 = sha1_smol::Sha1::from(input.as_bytes()).digest().to_string();
    let mut end = REFUSED_INPUT_EXCERPT_BYTES;
    while !input.is_char_boundary(end) {
        end -= 1;
    }
    let excerpt = format!(
        "{}[... holon-tools: refused input cut: {bytes} bytes in all, sha1 {sha1} ...]",
        &input[..end]
    );
    (excerpt, bytes, Some(sha1))
}

fn sqlite(doing: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    move |source| StoreError::Sqlite {
        doing: doing.to_string(),
        source,
    }
}

/// Records a wait still points at are never removed: they are its evidence.
const UNREFERENCED: &str =
    "id NOT IN (SELECT execution_id FROM waits WHERE execution_id IS NOT NULL)";

/// Removes the records `retention` does not keep at `now_ms`; returns how many.
pub fn prune(
    connection: &Connection,
    retention: &ExecutionRetention,
    now_ms: i64,
) -> Result<usize, StoreError> {
    let mut removed = 0;
    if let Some(age) = retention.max_age {
        let age_ms = i64::try_from(age.as_millis()).unwrap_or(i64::MAX);
        removed += connection
            .execute(
                &format!("DELETE FROM tool_executions WHERE started_at_ms < ?1 AND {UNREFERENCED}"),
                [now_ms.saturating_sub(age_ms)],
            )
            .map_err(sqlite("removing old execution records"))?;
    }
    if let Some(max) = retention.max_input_bytes {
        // The newest record from which on, going back, the inputs exceed `max`: it
        // and every older one go.
        let cutoff: Option<i64> = connection
            .query_row(
                "SELECT id FROM (
                   SELECT id, SUM(length(CAST(input_json AS BLOB))) OVER (ORDER BY id DESC) AS kept
                   FROM tool_executions)
                 WHERE kept > ?1 ORDER BY id DESC LIMIT 1",
                [i64::try_from(max).unwrap_or(i64::MAX)],
                |row| row.get(0),
            )
            .map_or_else(
                |error| match error {
                    rusqlite::Error::QueryReturnedNoRows => Ok(None),
                    error => Err(error),
                },
                |id| Ok(Some(id)),
            )
            .map_err(sqlite("measuring the execution log"))?;
        if let Some(cutoff) = cutoff {
            removed += connection
                .execute(
                    &format!("DELETE FROM tool_executions WHERE id <= ?1 AND {UNREFERENCED}"),
                    params![cutoff],
                )
                .map_err(sqlite("removing the oldest execution records"))?;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_refused_input_keeps_an_excerpt_its_size_and_hash() {
        let short = "{\"a\": 1}".to_string();
        assert_eq!(bound_refused_input(short.clone()), (short, 8, None));
        let long = format!("{{\"text\": \"{}\"}}", "é".repeat(5000));
        let (excerpt, bytes, sha1) = bound_refused_input(long.clone());
        assert_eq!(bytes, long.len() as u64);
        let sha1 = sha1.unwrap();
        assert_eq!(
            sha1,
            sha1_smol::Sha1::from(long.as_bytes()).digest().to_string()
        );
        assert!(excerpt.len() < REFUSED_INPUT_EXCERPT_BYTES + 200);
        assert!(long.starts_with(excerpt.split("[... holon-tools").next().unwrap()));
        assert!(excerpt.contains(&format!("{bytes} bytes in all, sha1 {sha1}")));
    }
}
