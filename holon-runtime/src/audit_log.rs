//! The audit log file: one JSON line per call, hash-chained
//! ([`holon_core::audit`]), opened with `O_APPEND` so each record is one write at the
//! end, and flushed to disk (`fdatasync`) after every record, so a record the call's
//! caller saw the result of survives a crash of this process or the machine.
//!
//! Several processes may write one log (a `serve` and an operator's `approvals approve`,
//! concurrent `session`s): each append holds an exclusive lock of the file (`flock`),
//! verifies what the others appended since this process last looked, and chains to
//! the file's last record, so the chain never forks.

// The audit log is the operator's file, not a tool's: it is opened here directly.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use holon_core::Execution;
use holon_core::audit::{AuditRecord, ChainBreak, ChainHead};

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
    /// The file is shorter than when this process last appended to it: records at
    /// its end were removed.
    #[error(
        "the audit log {path} is shorter than when this runtime last wrote to it: records were removed; keep the file as evidence and start a new log with --audit-file"
    )]
    Shrunk {
        /// The file.
        path: PathBuf,
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
    tail: Mutex<Tail>,
}

/// What this process has verified of the file: the chain's head and where it ends.
struct Tail {
    file: File,
    head: ChainHead,
    /// Lines read so far, for the line numbers a break reports.
    lines: usize,
    /// Bytes read so far: the file's length when this process last looked.
    length: u64,
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
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .map_err(|source| AuditError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        let log = Self {
            path: path.to_path_buf(),
            keep_arguments,
            tail: Mutex::new(Tail {
                file,
                head: ChainHead::genesis(),
                lines: 0,
                length: 0,
            }),
        };
        log.locked(|tail| log.catch_up(tail))?;
        Ok(log)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends the record of `execution`, chained to the file's last record.
    pub fn append(&self, execution: &Execution<'_>) -> Result<(), AuditError> {
        let mut record = AuditRecord::of_execution(execution, self.keep_arguments);
        self.locked(|tail| {
            self.catch_up(tail)?;
            record.seal(&tail.head.hash);
            let mut line = serde_json::to_string(&record).unwrap_or_default();
            line.push('\n');
            // One write of the whole line: with O_APPEND it lands at the end in one piece.
            tail.file
                .write_all(line.as_bytes())
                .and_then(|()| tail.file.sync_data())
                .map_err(|source| self.io_error(source))?;
            tail.head.records += 1;
            tail.head.hash = record.hash;
            tail.lines += 1;
            tail.length += line.len() as u64;
            Ok(())
        })
    }

    /// Runs `work` holding this process's lock and the file's exclusive lock, which
    /// every process writing the log takes.
    fn locked<T>(
        &self,
        work: impl FnOnce(&mut Tail) -> Result<T, AuditError>,
    ) -> Result<T, AuditError> {
        let mut tail = self
            .tail
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        tail.file.lock().map_err(|source| self.io_error(source))?;
        let result = work(&mut tail);
        // An unlock that fails would leave the other writers waiting: reported like a
        // failed write (closing the file releases the lock too).
        let unlocked = tail.file.unlock().map_err(|source| self.io_error(source));
        let value = result?;
        unlocked?;
        Ok(value)
    }

    /// Verifies what was appended to the file since this process last looked (by
    /// another process), and moves the head to the file's last record.
    fn catch_up(&self, tail: &mut Tail) -> Result<(), AuditError> {
        let length = tail
            .file
            .metadata()
            .map_err(|source| self.io_error(source))?
            .len();
        if length < tail.length {
            return Err(AuditError::Shrunk {
                path: self.path.clone(),
            });
        }
        if length == tail.length {
            return Ok(());
        }
        let mut bytes = Vec::new();
        let mut file = &tail.file;
        file.seek(SeekFrom::Start(tail.length))
            .and_then(|_| file.take(length - tail.length).read_to_end(&mut bytes))
            .map_err(|source| self.io_error(source))?;
        let broken = |source| AuditError::Broken {
            path: self.path.clone(),
            source,
        };
        let text = String::from_utf8(bytes).map_err(|error| {
            broken(ChainBreak::Unreadable {
                line: tail.lines + 1,
                reason: error.to_string(),
            })
        })?;
        let lines: Vec<&str> = text.lines().collect();
        tail.head
            .extend(tail.lines + 1, lines.iter().copied())
            .map_err(broken)?;
        // A last line without its line end was cut short: appending to it would join
        // the next record to it.
        if !text.ends_with('\n') {
            return Err(broken(ChainBreak::Unreadable {
                line: tail.lines + lines.len(),
                reason: "the line has no line end".to_string(),
            }));
        }
        tail.lines += lines.len();
        tail.length = length;
        Ok(())
    }

    fn io_error(&self, source: io::Error) -> AuditError {
        AuditError::Io {
            path: self.path.clone(),
            source,
        }
    }
}
