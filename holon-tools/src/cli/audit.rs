//! `holon-tools audit`: list the audit log's records (filtered by tool and time),
//! export them as JSON lines, or verify the chain.

// The CLI reads the operator's audit log directly.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use holon_core::audit::{AuditRecord, verify};
use holon_runtime::audit_log::AUDIT_FILE_NAME;

use super::Cli;

/// What `audit` does besides listing.
#[derive(Debug, Clone, Copy, Subcommand)]
pub enum AuditAction {
    /// Check the hash chain from its genesis: exit 0 with the record count when it
    /// holds, 1 with the first record that was removed, edited, reordered or cut short.
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
    let state_dir = match &cli.state_dir {
        Some(dir) => dir.clone(),
        None => {
            let workspace = match &cli.workspace {
                Some(dir) => dir.clone(),
                None => std::env::current_dir().ok()?,
            };
            holon_runtime::state_dir::default_state_dir(&workspace)
                .unwrap_or_else(|| workspace.join(".holon"))
        }
    };
    Some(state_dir.join(AUDIT_FILE_NAME))
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
        Some(AuditAction::Verify) => match verify(lines.iter().map(String::as_str)) {
            Ok(head) => {
                println!(
                    "ok: {} records, chain intact from the genesis; last hash {}",
                    head.records, head.hash
                );
                ExitCode::SUCCESS
            }
            Err(broken) => {
                println!("broken: {broken}");
                ExitCode::FAILURE
            }
        },
        None => list(&lines, filter, json),
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
