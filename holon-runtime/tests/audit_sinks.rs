//! One behaviour for both homes of the audit chain, the file and PostgreSQL: each test
//! runs on both. Appenders in several processes (here: several logs, each with its
//! own file handle or connections) make one chain that keeps each appender's order;
//! a reopened chain continues; an edited or deleted record is found at its number and
//! refuses further appends; and the same call gives the same record, byte for byte,
//! whichever home seals it.

// The file backend reads and rewrites its log with std::fs, as an attacker would.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use holon_core::{Decision, Execution, FamilyPolicy, ToolContext, ToolResult};
use holon_policy::audit::ChainBreak;
use holon_runtime::audit_log::postgres::PostgresAuditLog;
use holon_runtime::audit_log::rows::RowBreak;
use holon_runtime::audit_log::{AuditLog, AuditSink};
use holon_test_support::postgres::{TestPostgres, execute};

/// Where a chain lives, and how a test reads, verifies and tampers with it there.
enum Home {
    File {
        _dir: tempfile::TempDir,
        path: PathBuf,
    },
    Postgres {
        database: TestPostgres,
    },
}

impl Home {
    fn file() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        Self::File { _dir: dir, path }
    }

    fn postgres() -> Self {
        Self::Postgres {
            database: TestPostgres::start(),
        }
    }

    fn both() -> [Self; 2] {
        [Self::file(), Self::postgres()]
    }

    fn name(&self) -> &'static str {
        match self {
            Self::File { .. } => "file",
            Self::Postgres { .. } => "postgres",
        }
    }

    /// A writer of the chain, as a process opens it: the chain so far must verify.
    fn open(&self) -> Result<AuditSink, String> {
        match self {
            Self::File { path, .. } => AuditLog::open(path, true, None).map(AuditSink::File),
            Self::Postgres { database } => {
                PostgresAuditLog::open(database.url(), true).map(AuditSink::Postgres)
            }
        }
        .map_err(|error| error.to_string())
    }

    /// The records' lines, in chain order.
    fn lines(&self) -> Vec<String> {
        match self {
            Self::File { path, .. } => std::fs::read_to_string(path)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect(),
            Self::Postgres { database } => {
                let log = PostgresAuditLog::existing(database.url(), true).unwrap();
                log.rows()
                    .unwrap()
                    .0
                    .into_iter()
                    .map(|row| row.line)
                    .collect()
            }
        }
    }

    /// How many records verify, or the number of the first record that breaks the
    /// chain.
    fn verify(&self) -> Result<usize, usize> {
        match self {
            Self::File { path, .. } => {
                let text = std::fs::read_to_string(path).unwrap();
                holon_policy::audit::verify(text.lines())
                    .map(|head| head.records)
                    .map_err(|broken| match broken {
                        ChainBreak::Unreadable { line, .. }
                        | ChainBreak::Edited { line }
                        | ChainBreak::Rewritten { line }
                        | ChainBreak::Unlinked { line } => line,
                        ChainBreak::Truncated { records } => records + 1,
                    })
            }
            Self::Postgres { database } => {
                let log = PostgresAuditLog::existing(database.url(), true).unwrap();
                let number = |seq: i64| usize::try_from(seq).unwrap();
                log.verify()
                    .unwrap()
                    .map(|head| head.records)
                    .map_err(|broken| match broken {
                        RowBreak::Chain { seq, .. }
                        | RowBreak::Missing { seq }
                        | RowBreak::HashColumn { seq } => number(seq),
                        RowBreak::Truncated { rows, .. } => number(rows) + 1,
                        RowBreak::Head { rows, .. } => number(rows),
                    })
            }
        }
    }

    /// Replaces `from` by `to` in record `number`'s text, as someone with write
    /// access to the file or the table would.
    fn edit(&self, number: usize, from: &str, to: &str) {
        match self {
            Self::File { path, .. } => {
                let mut lines = self.lines();
                lines[number - 1] = lines[number - 1].replace(from, to);
                std::fs::write(path, lines.join("\n") + "\n").unwrap();
            }
            Self::Postgres { database } => execute(
                database.url(),
                &format!(
                    "UPDATE holon_audit_records SET line = replace(line, '{from}', '{to}') WHERE seq = {number}"
                ),
            ),
        }
    }

    /// Removes record `number`.
    fn delete(&self, number: usize) {
        match self {
            Self::File { path, .. } => {
                let mut lines = self.lines();
                lines.remove(number - 1);
                std::fs::write(path, lines.join("\n") + "\n").unwrap();
            }
            Self::Postgres { database } => execute(
                database.url(),
                &format!("DELETE FROM holon_audit_records WHERE seq = {number}"),
            ),
        }
    }
}

/// Appends the record of one call of `tool` with `arguments`, started at `started_at`.
fn append_at(sink: &AuditSink, tool: &str, arguments: &str, started_at: SystemTime) {
    let context = ToolContext::new(FamilyPolicy::all());
    let result = ToolResult::deferred("Sleep");
    sink.append(&Execution {
        requested_name: tool,
        input_json: arguments,
        result: &result,
        started_at,
        elapsed: Duration::from_micros(3),
        context: &context,
        decision: Decision::Allowed,
        granted_by: None,
    })
    .unwrap();
}

fn append(sink: &AuditSink, tool: &str) {
    append_at(sink, tool, "{}", SystemTime::now());
}

/// The `tool` field of a record's line.
fn tool_of(line: &str) -> String {
    let record: serde_json::Value = serde_json::from_str(line).unwrap();
    record["tool"].as_str().unwrap().to_string()
}

#[test]
fn concurrent_appenders_make_one_chain_that_keeps_each_ones_order() {
    for home in Home::both() {
        let home = &home;
        std::thread::scope(|scope| {
            for writer in 0..4 {
                scope.spawn(move || {
                    let sink = home.open().unwrap();
                    for call in 0..25 {
                        append(&sink, &format!("W{writer}C{call:02}"));
                    }
                });
            }
        });
        assert_eq!(home.verify(), Ok(100), "{}", home.name());
        let tools: Vec<String> = home.lines().iter().map(|line| tool_of(line)).collect();
        for writer in 0..4 {
            let own: Vec<&String> = tools
                .iter()
                .filter(|tool| tool.starts_with(&format!("W{writer}C")))
                .collect();
            let expected: Vec<String> =
                (0..25).map(|call| format!("W{writer}C{call:02}")).collect();
            assert_eq!(
                own.into_iter().cloned().collect::<Vec<_>>(),
                expected,
                "{}: writer {writer}'s records are each there once, in its order",
                home.name()
            );
        }
    }
}

#[test]
fn a_reopened_chain_continues_where_it_ended() {
    for home in Home::both() {
        let first = home.open().unwrap();
        for tool in ["Read", "Write", "Bash"] {
            append(&first, tool);
        }
        drop(first);
        let again = home.open().unwrap();
        for tool in ["Grep", "Glob"] {
            append(&again, tool);
        }
        assert_eq!(home.verify(), Ok(5), "{}", home.name());
        let tools: Vec<String> = home.lines().iter().map(|line| tool_of(line)).collect();
        assert_eq!(
            tools,
            ["Read", "Write", "Bash", "Grep", "Glob"],
            "{}",
            home.name()
        );
    }
}

#[test]
fn an_edited_record_is_found_at_its_number_and_refuses_appends() {
    for home in Home::both() {
        let sink = home.open().unwrap();
        for tool in ["Read", "Write", "Bash", "Grep", "Glob"] {
            append(&sink, tool);
        }
        drop(sink);
        home.edit(3, "\"Bash\"", "\"Ls\"");
        assert_eq!(home.verify(), Err(3), "{}", home.name());
        assert!(
            home.open().is_err(),
            "{}: a broken chain is not appended to",
            home.name()
        );
    }
}

#[test]
fn a_deleted_record_is_found_at_its_number() {
    for home in Home::both() {
        let sink = home.open().unwrap();
        for tool in ["Read", "Write", "Bash", "Grep", "Glob"] {
            append(&sink, tool);
        }
        drop(sink);
        home.delete(3);
        assert_eq!(home.verify(), Err(3), "{}", home.name());
        assert!(
            home.open().is_err(),
            "{}: a broken chain is not appended to",
            home.name()
        );
    }
}

#[test]
fn the_same_calls_give_the_same_records_in_either_home() {
    // Awkward text in the kept arguments: what the sealing must carry unchanged.
    let calls = [
        ("Read", r#"{"path":"naïve/日本語.txt"}"#),
        (
            "Write",
            r#"{"text":"a \"quoted\" \\ back\\slash\ttab\u0001"}"#,
        ),
        ("Bash", r#"{"prev_hash":"","hash":"","cmd":"echo }"}"#),
    ];
    let started_at = UNIX_EPOCH + Duration::from_millis(1_765_000_000_000);
    let [file, postgres] = Home::both();
    for home in [&file, &postgres] {
        let sink = home.open().unwrap();
        for (tool, arguments) in calls {
            append_at(&sink, tool, arguments, started_at);
        }
        assert_eq!(home.verify(), Ok(3), "{}", home.name());
    }
    assert_eq!(file.lines(), postgres.lines());
}
