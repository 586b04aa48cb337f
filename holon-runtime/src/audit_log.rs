//! The audit log file: one JSON line per call, hash-chained
//! ([`holon_core::audit`]), opened with `O_APPEND` so each record is one write at the
//! end, and flushed to disk (`fdatasync`) after every record, so a record the call's
//! caller saw the result of survives a crash of this process or the machine.

// The audit log is the operator's file, not a tool's: it is opened here directly.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use holon_core::Execution;
use holon_core::audit::{AuditRecord, ChainBreak, GENESIS_HASH, verify};

/// The audit log's file name in the state directory.
pub const AUDIT_FILE_NAME: &str = "audit.jsonl";

/// Where the audit log goes and what it keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditConfig {
    /// The log file [default: `audit.jsonl` in the state directory].
    pub path: Option<PathBuf>,
    /// Whether records keep the arguments' text besides their digest (they may hold
    /// secrets the model was given).
    pub keep_arguments: bool,
}

/// Why the audit log cannot be opened or written.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The file could not be opened, read or written.
    #[error("the audit log {path} cannot be used: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The existing log does not verify: appending would hide where it broke.
    #[error(
        "the audit log {path} does not verify ({source}); run `holon-tools audit verify`, keep the file as evidence and start a new log with --audit-file"
    )]
    Broken {
        /// The file.
        path: PathBuf,
        /// Where the chain broke.
        source: ChainBreak,
    },
    /// There is no state directory and no audit file was named.
    #[error(
        "the audit log needs a file: this runtime keeps its state in memory, so name one with --audit-file"
    )]
    NoPath,
}

/// An open audit log: appends each call's record, chained after the last.
pub struct AuditLog {
    path: PathBuf,
    keep_arguments: bool,
    /// The file and the hash of its last record.
    tail: Mutex<(File, String)>,
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog")
            .field("path", &self.path)
            .field("keep_arguments", &self.keep_arguments)
            .finish_non_exhaustive()
    }
}

impl AuditLog {
    /// Opens (creating it when missing) the log at `path`; the existing records must
    /// verify, and new ones chain after the last.
    pub fn open(path: &Path, keep_arguments: bool) -> Result<Self, AuditError> {
        let io_error = |source| AuditError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .map_err(io_error)?;
        let head = read_head(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            keep_arguments,
            tail: Mutex::new((file, head)),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends the record of `execution`.
    pub fn append(&self, execution: &Execution<'_>) -> Result<(), AuditError> {
        let mut record = AuditRecord::of_execution(execution, self.keep_arguments);
        let mut tail = self
            .tail
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (file, last_hash) = &mut *tail;
        record.seal(last_hash);
        let mut line = serde_json::to_string(&record).unwrap_or_default();
        line.push('\n');
        // One write of the whole line: with O_APPEND it lands at the end in one piece.
        file.write_all(line.as_bytes())
            .and_then(|()| file.sync_data())
            .map_err(|source| AuditError::Io {
                path: self.path.clone(),
                source,
            })?;
        *last_hash = record.hash;
        Ok(())
    }
}

/// Verifies the log at `path` from its genesis and returns its last hash.
fn read_head(path: &Path) -> Result<String, AuditError> {
    let file = File::open(path).map_err(|source| AuditError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let lines: Vec<String> = BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(|source| AuditError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    match verify(lines.iter().map(String::as_str)) {
        Ok(head) if head.records == 0 => Ok(GENESIS_HASH.to_string()),
        Ok(head) => Ok(head.hash),
        Err(source) => Err(AuditError::Broken {
            path: path.to_path_buf(),
            source,
        }),
    }
}
