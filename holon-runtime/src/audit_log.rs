//! The audit log file: one JSON line per call, hash-chained
//! ([`holon_policy::audit`]), opened with `O_APPEND` so each record is one write at the
//! end, and flushed to disk (`fdatasync`) after every record, so a record the call's
//! caller saw the result of survives a crash of this process or the machine.
//!
//! Several processes may write one log (a `serve` and an operator's `approvals deny`,
//! concurrent `session`s): each append holds an exclusive lock of the file (`flock`),
//! verifies what the others appended since this process last looked, and chains to
//! the file's last record, so the chain never forks.
//!
//! With the operator's key, the log is anchored by a signed [`Checkpoint`] kept in the
//! state directory, which no command reaches: written when a runtime opens the log and
//! every [`CHECKPOINT_EVERY`] records. A runtime that opens the log verifies only what
//! follows the checkpoint; `audit verify` checks the whole log against it.
//!
//! With the `postgres` feature, the chain may live in a PostgreSQL database instead
//! (the `postgres` module), which every replica of a server shares; [`AuditSink`] is
//! either.

// The audit log is the operator's file, not a tool's: it is opened here directly.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use holon_core::Execution;
use holon_policy::OperatorKey;
use holon_policy::audit::{AuditRecord, ChainBreak, ChainHead, Checkpoint, sha256_hex};

#[cfg(feature = "postgres")]
pub mod postgres;
pub mod rows;

/// A runtime signs a new checkpoint after this many records.
pub const CHECKPOINT_EVERY: usize = 1000;

/// The audit log's file name in the state directory.
pub const AUDIT_FILE_NAME: &str = "audit.jsonl";

/// Where the audit log goes and what it keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditConfig {
    /// The log file [default: `audit.jsonl` in the state directory].
    pub path: Option<PathBuf>,
    /// The PostgreSQL database of the chain (`postgres://...`), instead of a file
    /// (needs the `postgres` feature; naming a file too is refused).
    pub store: Option<String>,
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
    /// The log does not match its signed checkpoint, or the checkpoint is not the
    /// operator key's.
    #[error(
        "the audit log {path} does not verify against its signed checkpoint ({reason}); run `holon-tools audit verify`, keep the file as evidence and start a new log with --audit-file"
    )]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What does not match.
        reason: String,
    },
    /// There is no state directory and no audit file was named.
    #[error(
        "the audit log needs a file: this runtime keeps its state in memory, so name one with --audit-file"
    )]
    NoPath,
    /// The chain's database cannot be reached or used.
    #[error("the audit chain in PostgreSQL cannot be used: {reason}")]
    Database {
        /// What the driver or the server said.
        reason: String,
    },
    /// The chain in the database does not verify: appending would hide where it broke.
    #[error(
        "the audit chain in PostgreSQL does not verify ({source}); run `holon-tools audit verify --store URL`, keep the database as evidence and start a new chain in another database"
    )]
    RowsBroken {
        /// The first row that breaks it.
        source: rows::RowBreak,
    },
    /// The record's JSON does not end with its link and hash, so the database cannot
    /// seal it.
    #[error("the audit record cannot be appended: {source}")]
    Unsealable {
        /// Why.
        source: holon_policy::audit::NoSealSuffix,
    },
    /// Both a file and a database were named for the one chain.
    #[error(
        "the audit chain goes to one place: a file (--audit-file) or a database (--store postgres://...), not both; drop one of them"
    )]
    FileAndStore,
    /// A database was named, but this build cannot write to one.
    #[error(
        "the audit chain in PostgreSQL needs holon-runtime's `postgres` feature, which this build does not have"
    )]
    NotBuilt,
}

/// Where a runtime appends its calls' records: a file, or a PostgreSQL database.
#[derive(Debug)]
pub enum AuditSink {
    /// The file log ([`AuditLog`]).
    File(AuditLog),
    /// The database chain (`postgres::PostgresAuditLog`).
    #[cfg(feature = "postgres")]
    Postgres(postgres::PostgresAuditLog),
}

impl AuditSink {
    /// Appends the record of `execution`, chained to the last record.
    pub fn append(&self, execution: &Execution<'_>) -> Result<(), AuditError> {
        match self {
            Self::File(log) => log.append(execution),
            #[cfg(feature = "postgres")]
            Self::Postgres(log) => log.append(execution),
        }
    }

    /// The file, when the chain is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::File(log) => Some(log.path()),
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => None,
        }
    }
}

/// Where the signed checkpoint of the log at `log` is kept: in the state directory
/// `state_dir`, named after the log's canonical path (so two logs never share one).
pub fn checkpoint_path(state_dir: &Path, log: &Path) -> PathBuf {
    // The log may not exist yet: then its directory's canonical path names it.
    let canonical = std::fs::canonicalize(log)
        .ok()
        .or_else(|| {
            let directory = std::fs::canonicalize(log.parent()?).ok()?;
            Some(directory.join(log.file_name()?))
        })
        .unwrap_or_else(|| log.to_path_buf());
    let digest = sha256_hex(canonical.as_os_str().as_encoded_bytes());
    state_dir.join(format!("audit-checkpoint-{}.json", &digest[..16]))
}

/// Reads the checkpoint file at `path`: `None` when there is none.
pub fn read_checkpoint(path: &Path) -> Result<Option<Checkpoint>, String> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|error| format!("the checkpoint {} is not one: {error}", path.display())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(format!(
            "the checkpoint {} cannot be read: {error}",
            path.display()
        )),
    }
}

/// Where checkpoints go and the key that signs them.
struct Signer {
    path: PathBuf,
    key: OperatorKey,
}

/// An open audit log: appends each call's record, chained after the last.
pub struct AuditLog {
    path: PathBuf,
    keep_arguments: bool,
    signer: Option<Signer>,
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
    /// Where the last record's line starts.
    last_line_at: u64,
    /// The records the newest checkpoint signs.
    signed_records: usize,
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
    /// verify, and new ones chain after the last. With `checkpoints` (the checkpoint
    /// file, from [`checkpoint_path`], and the operator's key), the log is verified
    /// from its signed checkpoint on, and checkpoints are signed as it grows.
    pub fn open(
        path: &Path,
        keep_arguments: bool,
        checkpoints: Option<(PathBuf, OperatorKey)>,
    ) -> Result<Self, AuditError> {
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
            signer: checkpoints.map(|(path, key)| Signer { path, key }),
            tail: Mutex::new(Tail {
                file,
                head: ChainHead::genesis(),
                lines: 0,
                length: 0,
                last_line_at: 0,
                signed_records: 0,
            }),
        };
        log.locked(|tail| {
            log.resume(tail)?;
            log.catch_up(tail)?;
            if tail.head.records > tail.signed_records {
                log.sign(tail)?;
            }
            Ok(())
        })?;
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
            tail.last_line_at = tail.length;
            tail.length += line.len() as u64;
            if tail.head.records >= tail.signed_records + CHECKPOINT_EVERY {
                self.sign(tail)?;
            }
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

    /// Moves the head to the signed checkpoint, when there is one: the record it
    /// names must be where it says, with the hash it signs. What precedes it is not
    /// read again (`audit verify` reads it).
    fn resume(&self, tail: &mut Tail) -> Result<(), AuditError> {
        let Some(signer) = &self.signer else {
            return Ok(());
        };
        let mismatch = |reason: String| AuditError::Checkpoint {
            path: self.path.clone(),
            reason,
        };
        let Some(checkpoint) = read_checkpoint(&signer.path).map_err(mismatch)? else {
            return Ok(());
        };
        if !checkpoint.verify(&signer.key) {
            return Err(mismatch(format!(
                "the checkpoint {} is not signed with the operator's key",
                signer.path.display()
            )));
        }
        let length = tail
            .file
            .metadata()
            .map_err(|source| self.io_error(source))?
            .len();
        if length < checkpoint.length || checkpoint.last_line_at >= checkpoint.length {
            return Err(mismatch(format!(
                "the log has {length} bytes, the checkpoint signs {}: records it signed were removed",
                checkpoint.length
            )));
        }
        let line = self.read(
            tail,
            checkpoint.last_line_at,
            checkpoint.length - checkpoint.last_line_at,
        )?;
        let record = std::str::from_utf8(&line)
            .ok()
            .and_then(|line| line.strip_suffix('\n'))
            .and_then(|text| {
                let record: AuditRecord = serde_json::from_str(text).ok()?;
                (serde_json::to_string(&record).ok()? == text).then_some(record)
            });
        match record {
            Some(record)
                if record.hash == checkpoint.hash && record.computed_hash() == record.hash => {}
            _ => {
                return Err(mismatch(format!(
                    "line {} is not the record the checkpoint signs: the log was rewritten",
                    checkpoint.lines
                )));
            }
        }
        tail.head = checkpoint.head();
        tail.lines = checkpoint.lines;
        tail.length = checkpoint.length;
        tail.last_line_at = checkpoint.last_line_at;
        tail.signed_records = checkpoint.records;
        Ok(())
    }

    /// Signs a checkpoint of the head, written whole (a new file renamed over the old).
    fn sign(&self, tail: &mut Tail) -> Result<(), AuditError> {
        let Some(signer) = &self.signer else {
            return Ok(());
        };
        let checkpoint = Checkpoint::sign(
            &signer.key,
            &tail.head,
            tail.lines,
            tail.length,
            tail.last_line_at,
        );
        let staged = signer
            .path
            .with_extension(format!("{}.tmp", std::process::id()));
        let text = serde_json::to_string(&checkpoint).unwrap_or_default();
        std::fs::write(&staged, text)
            .and_then(|()| std::fs::rename(&staged, &signer.path))
            .map_err(|source| AuditError::Io {
                path: signer.path.clone(),
                source,
            })?;
        tail.signed_records = tail.head.records;
        Ok(())
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
        let bytes = self.read(tail, tail.length, length - tail.length)?;
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
        let mut at = tail.length;
        for line in text.split_inclusive('\n') {
            if !line.trim().is_empty() {
                tail.last_line_at = at;
            }
            at += line.len() as u64;
        }
        tail.lines += lines.len();
        tail.length = length;
        Ok(())
    }

    /// `count` bytes of the file from `offset`.
    fn read(&self, tail: &Tail, offset: u64, count: u64) -> Result<Vec<u8>, AuditError> {
        let mut bytes = Vec::new();
        let mut file = &tail.file;
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.take(count).read_to_end(&mut bytes))
            .map_err(|source| self.io_error(source))?;
        Ok(bytes)
    }

    fn io_error(&self, source: io::Error) -> AuditError {
        AuditError::Io {
            path: self.path.clone(),
            source,
        }
    }
}
