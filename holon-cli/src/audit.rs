//! `holon-tools audit`: list the audit log's records (filtered by tool and time),
//! export them as JSON lines, or verify the chain, in its file or (`--store`) in
//! its PostgreSQL database.

// The CLI reads the operator's audit log directly.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use holon_policy::OperatorKey;
use holon_policy::audit::{AuditRecord, ChainHead, Checkpoint};
use holon_runtime::audit_log::postgres::PostgresAuditLog;
use holon_runtime::audit_log::rows::verify_rows;
use holon_runtime::audit_log::{AUDIT_FILE_NAME, checkpoint_path, read_checkpoint};
use holon_runtime::state_dir::{OPERATOR_KEY_FILE_NAME, operator_key};

use super::Cli;

/// What `audit` does besides listing.
#[derive(Debug, Clone, Copy, Subcommand)]
pub enum AuditAction {
    /// Check the hash chain from its genesis, and against the signed checkpoint in
    /// the state directory when there is one: exit 0 with the record count when it
    /// holds, 1 with the first record that was removed, edited, rewritten, reordered or
    /// cut short, or where the log stops matching its checkpoint.
    Verify,
}

/// Which records to list.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    /// Only calls of this tool (as the caller named it).
    pub tool: Option<String>,
    /// Only calls started at or after this time (Unix milliseconds).
    pub since: Option<u64>,
}

impl AuditFilter {
    fn keeps(&self, record: &AuditRecord) -> bool {
        self.tool.as_ref().is_none_or(|tool| &record.tool == tool)
            && self.since.is_none_or(|since| record.time_unix_ms >= since)
    }
}

/// The audit log's file with these options: `--audit-file`, else `audit.jsonl` in
/// the state directory.
pub(crate) fn audit_path(cli: &Cli) -> Option<PathBuf> {
    if let Some(file) = &cli.audit_file {
        return Some(file.clone());
    }
    Some(state_dir(cli)?.join(AUDIT_FILE_NAME))
}

/// The state directory with these options.
fn state_dir(cli: &Cli) -> Option<PathBuf> {
    if let Some(dir) = &cli.state_dir {
        return Some(dir.clone());
    }
    let workspace = match &cli.workspace {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().ok()?,
    };
    Some(
        holon_runtime::state_dir::default_state_dir(&workspace)
            .unwrap_or_else(|| workspace.join(".holon")),
    )
}

/// The signed checkpoint of the log at `path` and the operator's key, when the state
/// directory has both.
fn checkpoint(cli: &Cli, path: &Path) -> Result<Option<(Checkpoint, OperatorKey)>, String> {
    let Some(dir) = state_dir(cli) else {
        return Ok(None);
    };
    let key_file = dir.join(OPERATOR_KEY_FILE_NAME);
    let Some(checkpoint) = read_checkpoint(&checkpoint_path(&dir, path))? else {
        return Ok(None);
    };
    if !key_file.exists() {
        return Err(format!(
            "a checkpoint is signed but the operator key {} is gone",
            key_file.display()
        ));
    }
    let key = operator_key(&key_file).map_err(|error| error.to_string())?;
    Ok(Some((checkpoint, key)))
}

/// Verifies `lines` from the genesis and, with a checkpoint, that the record it signs
/// is where it says: the head then, or why the log does not hold.
fn verify_log(
    lines: &[String],
    checkpoint: Option<&(Checkpoint, OperatorKey)>,
) -> Result<String, String> {
    let mut head = ChainHead::genesis();
    let Some((checkpoint, key)) = checkpoint else {
        head.extend(1, lines.iter().map(String::as_str))
            .map_err(|broken| broken.to_string())?;
        return Ok(format!(
            "ok: {} records, chain intact from the genesis; last hash {} (no signed checkpoint: a log rewritten whole would verify too)",
            head.records, head.hash
        ));
    };
    if !checkpoint.verify(key) {
        return Err("the checkpoint is not signed with the operator's key".to_string());
    }
    let signed = checkpoint.lines.min(lines.len());
    head.extend(1, lines[..signed].iter().map(String::as_str))
        .map_err(|broken| broken.to_string())?;
    if signed < checkpoint.lines || head != checkpoint.head() {
        return Err(format!(
            "the log does not match its signed checkpoint at record {}: it was rewritten, or records up to it were removed",
            checkpoint.records
        ));
    }
    head.extend(signed + 1, lines[signed..].iter().map(String::as_str))
        .map_err(|broken| broken.to_string())?;
    Ok(format!(
        "ok: {} records, chain intact from the genesis and as signed at record {}; last hash {}",
        head.records, checkpoint.records, head.hash
    ))
}

/// Runs `audit`: verify, or list (text, or `json` lines as stored).
pub(crate) fn audit(
    cli: &Cli,
    action: Option<AuditAction>,
    filter: &AuditFilter,
    json: bool,
) -> ExitCode {
    let Some(path) = audit_path(cli) else {
        eprintln!(
            "holon-tools: cannot read the current directory; pass --workspace or --audit-file"
        );
        return ExitCode::FAILURE;
    };
    let lines = match read_lines(&path) {
        Ok(lines) => lines,
        Err(error) => {
            eprintln!(
                "holon-tools: cannot read the audit log {}: {error}",
                path.display()
            );
            return ExitCode::FAILURE;
        }
    };
    match action {
        Some(AuditAction::Verify) => {
            let verified = checkpoint(cli, &path)
                .and_then(|checkpoint| verify_log(&lines, checkpoint.as_ref()));
            match verified {
                Ok(report) => {
                    println!("{report}");
                    ExitCode::SUCCESS
                }
                Err(broken) => {
                    println!("broken: {broken}");
                    ExitCode::FAILURE
                }
            }
        }
        None => list(&lines, filter, json),
    }
}

/// Runs `audit --store URL`: verify or list the chain in the PostgreSQL database
/// `store` names, with the file chain's verifier.
pub(crate) fn audit_store(
    cli: &Cli,
    store: &str,
    action: Option<AuditAction>,
    filter: &AuditFilter,
    json: bool,
) -> ExitCode {
    if cli.audit_file.is_some() {
        eprintln!(
            "holon-tools audit: --audit-file and --store both name the chain to read: drop one of them"
        );
        return ExitCode::from(2);
    }
    let url = match store.parse::<holon_mcp::StoreUrl>() {
        Ok(holon_mcp::StoreUrl::Postgres(url)) => url,
        Ok(_) => {
            eprintln!(
                "holon-tools audit: --store: the audit chain is kept in PostgreSQL only; write postgres://USER@HOST/DATABASE, or leave --store out to read the file"
            );
            return ExitCode::from(2);
        }
        Err(error) => {
            eprintln!("holon-tools audit: --store: {error}");
            return ExitCode::from(2);
        }
    };
    let rows = PostgresAuditLog::existing(&url, false).and_then(|log| log.rows());
    let (rows, (head_seq, head_hash)) = match rows {
        Ok(rows) => rows,
        Err(error) => {
            eprintln!("holon-tools: {error}");
            return ExitCode::FAILURE;
        }
    };
    match action {
        Some(AuditAction::Verify) => match verify_rows(&rows, (head_seq, &head_hash)) {
            Ok(head) => {
                println!(
                    "ok: {} rows, chain intact from the genesis to the head; last hash {} (no signed checkpoint: a chain rewritten whole would verify too)",
                    head.records, head.hash
                );
                ExitCode::SUCCESS
            }
            Err(broken) => {
                println!("broken: {broken}");
                ExitCode::FAILURE
            }
        },
        None => {
            let lines: Vec<String> = rows.into_iter().map(|row| row.line).collect();
            list(&lines, filter, json)
        }
    }
}

/// The log's lines, read under a shared lock of the file so that no record a runtime
/// is appending is read half-written.
fn read_lines(path: &Path) -> std::io::Result<Vec<String>> {
    let file = File::open(path)?;
    file.lock_shared()?;
    BufReader::new(file).lines().collect()
}

fn list(lines: &[String], filter: &AuditFilter, json: bool) -> ExitCode {
    let mut out = std::io::stdout().lock();
    for (index, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: AuditRecord = match serde_json::from_str(line) {
            Ok(record) => record,
            Err(error) => {
                eprintln!(
                    "holon-tools: line {} of the audit log is not a record ({error}); run `holon-tools audit verify`",
                    index + 1
                );
                return ExitCode::FAILURE;
            }
        };
        if !filter.keeps(&record) {
            continue;
        }
        let written = if json {
            writeln!(out, "{line}")
        } else {
            let outcome = serde_json::to_value(record.outcome).unwrap_or_default();
            // The policy's decision, and who decided, where there are.
            let decision = record
                .decision
                .as_deref()
                .map(|decision| format!(" decision={decision}"))
                .unwrap_or_default();
            let decided_by = record
                .decided_by
                .as_deref()
                .map(|by| format!(" by={by}"))
                .unwrap_or_default();
            writeln!(
                out,
                "{}  {}  {}  {}  {}us  caller={} principal={}{decision}{decided_by}",
                record.time_unix_ms,
                record.tool,
                outcome.as_str().unwrap_or_default(),
                record.kind.as_deref().unwrap_or("-"),
                record.duration_us,
                record.caller.as_deref().unwrap_or("-"),
                record.principal.as_deref().unwrap_or("-"),
            )
        };
        if written.is_err() {
            // stdout closed (a pager quit): nothing more to print.
            break;
        }
    }
    ExitCode::SUCCESS
}
