//! The audit chain in PostgreSQL, on a real server (holon-test-support's
//! `postgres`): concurrent appenders from several logs never fork it, and a deleted,
//! edited or reordered row is found and named by its number.

use std::time::{Duration, SystemTime};

use holon_core::{Decision, Execution, FamilyPolicy, ToolContext, ToolResult};
use holon_policy::audit::{AuditRecord, ChainBreak, Outcome, sha256_hex};
use holon_runtime::audit_log::AuditError;
use holon_runtime::audit_log::postgres::PostgresAuditLog;
use holon_runtime::audit_log::rows::RowBreak;
use holon_test_support::postgres::{TestPostgres, execute};

/// Appends the record of one (deferred) call of `tool` to `log`.
fn append(log: &PostgresAuditLog, tool: &str) {
    let context = ToolContext::new(FamilyPolicy::all());
    let result = ToolResult::deferred("Sleep");
    log.append(&Execution {
        requested_name: tool,
        input_json: r#"{"duration_ms": 1}"#,
        result: &result,
        started_at: SystemTime::now(),
        elapsed: Duration::from_micros(3),
        context: &context,
        decision: Decision::Allowed,
        granted_by: None,
    })
    .unwrap();
}

/// A database with a chain of five records.
fn five_records() -> (TestPostgres, PostgresAuditLog) {
    let database = TestPostgres::start();
    let log = PostgresAuditLog::open(database.url(), false).unwrap();
    for tool in ["Read", "Write", "Bash", "Grep", "Glob"] {
        append(&log, tool);
    }
    assert_eq!(log.verify().unwrap().unwrap().records, 5);
    (database, log)
}

#[test]
fn four_writers_of_a_hundred_appends_each_make_one_unforked_chain() {
    let database = TestPostgres::start();
    let url = database.url().to_string();
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let url = url.clone();
            std::thread::spawn(move || {
                // A log (its own connections) per writer, as a replica has.
                let log = PostgresAuditLog::open(&url, false).unwrap();
                for call in 0..100 {
                    append(&log, &format!("Tool{writer}_{call}"));
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let log = PostgresAuditLog::open(&url, false).unwrap();
    let (rows, head) = log.rows().unwrap();
    assert_eq!(rows.len(), 400);
    assert_eq!(head.0, 400);
    let chain = log.verify().unwrap().expect("one chain, no fork");
    assert_eq!(chain.records, 400);
    assert_eq!(chain.hash, head.1);
    // Every writer's every call is in it, once.
    for writer in 0..4 {
        for call in 0..100 {
            let tool = format!("\"tool\":\"Tool{writer}_{call}\"");
            assert_eq!(
                rows.iter().filter(|row| row.line.contains(&tool)).count(),
                1,
                "{tool}"
            );
        }
    }
}

#[test]
fn a_deleted_row_is_found_by_its_number_and_stops_appends() {
    let (database, log) = five_records();
    execute(
        database.url(),
        "DELETE FROM holon_audit_records WHERE seq = 3",
    );
    assert_eq!(log.verify().unwrap(), Err(RowBreak::Missing { seq: 3 }));
    let reopened = PostgresAuditLog::open(database.url(), false).unwrap_err();
    assert!(
        matches!(
            reopened,
            AuditError::RowsBroken {
                source: RowBreak::Missing { seq: 3 }
            }
        ),
        "{reopened}"
    );
    assert!(
        reopened.to_string().contains("row 3 is missing"),
        "{reopened}"
    );
}

#[test]
fn deleted_rows_at_the_end_are_found_against_the_head_and_refuse_appends() {
    let (database, log) = five_records();
    execute(
        database.url(),
        "DELETE FROM holon_audit_records WHERE seq >= 4",
    );
    assert_eq!(
        log.verify().unwrap(),
        Err(RowBreak::Truncated { rows: 3, head: 5 })
    );
    // A log opened before the deletion does not chain to the cut tail either.
    let context = ToolContext::new(FamilyPolicy::all());
    let result = ToolResult::deferred("Sleep");
    let refused = log
        .append(&Execution {
            requested_name: "Read",
            input_json: "{}",
            result: &result,
            started_at: SystemTime::now(),
            elapsed: Duration::ZERO,
            context: &context,
            decision: Decision::Allowed,
            granted_by: None,
        })
        .unwrap_err();
    assert!(
        matches!(refused, AuditError::RowsBroken { .. }),
        "{refused}"
    );
}

#[test]
fn an_edited_row_text_or_hash_is_found_by_its_number() {
    let (database, log) = five_records();
    execute(
        database.url(),
        r#"UPDATE holon_audit_records SET line = replace(line, '"Write"', '"Wrote"') WHERE seq = 2"#,
    );
    assert!(
        matches!(
            log.verify().unwrap(),
            Err(RowBreak::Chain {
                seq: 2,
                source: ChainBreak::Edited { line: 2 }
            })
        ),
        "{:?}",
        log.verify()
    );

    let (database, log) = five_records();
    execute(
        database.url(),
        "UPDATE holon_audit_records SET hash = md5(hash) || md5(hash) WHERE seq = 4",
    );
    assert_eq!(log.verify().unwrap(), Err(RowBreak::HashColumn { seq: 4 }));
}

#[test]
fn two_swapped_rows_are_found_by_the_first_ones_number() {
    let (database, log) = five_records();
    // Rows 2 and 3 trade places: each keeps its record, under the other's number.
    execute(
        database.url(),
        "UPDATE holon_audit_records SET seq = -2 WHERE seq = 2;
         UPDATE holon_audit_records SET seq = 2 WHERE seq = 3;
         UPDATE holon_audit_records SET seq = 3 WHERE seq = -2;",
    );
    let broken = log.verify().unwrap().unwrap_err();
    assert!(
        matches!(
            broken,
            RowBreak::Chain {
                seq: 2,
                source: ChainBreak::Unlinked { line: 2 }
            }
        ),
        "{broken}"
    );
    assert!(broken.to_string().starts_with("row 2: "), "{broken}");
}

#[test]
fn a_bad_url_is_a_typed_error_that_does_not_echo_its_password() {
    let error =
        PostgresAuditLog::open("postgres://me:s3cret@/db?sslmode=bogus", false).unwrap_err();
    assert!(matches!(error, AuditError::Database { .. }), "{error}");
    let message = error.to_string();
    assert!(!message.contains("s3cret"), "{message}");
    assert!(
        message.contains("postgres://USER:PASSWORD@HOST"),
        "{message}"
    );
}

#[test]
fn reading_a_database_without_a_chain_says_so_and_creates_none() {
    let database = TestPostgres::start();
    for _ in 0..2 {
        let reader = PostgresAuditLog::existing(database.url(), false).unwrap();
        let error = reader.rows().unwrap_err();
        assert!(matches!(error, AuditError::Database { .. }), "{error}");
        assert!(error.to_string().contains("no audit chain"), "{error}");
    }
    // The head row deleted reads the same: no chain to verify, never an empty one.
    let (database, _log) = five_records();
    execute(database.url(), "DELETE FROM holon_audit_head");
    let reader = PostgresAuditLog::existing(database.url(), false).unwrap();
    assert!(
        reader
            .verify()
            .unwrap_err()
            .to_string()
            .contains("no audit chain")
    );
}

/// An append's round trips to the database, counted on the wire (a proxy between
/// the log and PostgreSQL) once its connection has prepared the statement: one, the
/// call of the function that seals and inserts the record under the head's lock.
#[test]
fn an_append_is_one_round_trip() {
    let database = TestPostgres::start();
    let wire = holon_test_support::wire::WireCounter::start(database.url());
    let log = PostgresAuditLog::open(wire.url(), false).unwrap();
    append(&log, "Warm");
    wire.take();
    append(&log, "Counted");
    let trips = wire.take();
    assert_eq!(trips.len(), 1, "{trips:#?}");
    assert!(
        trips[0].starts_with("SELECT appended, head_seq, last_seq FROM holon_audit_append"),
        "{trips:#?}"
    );
    let (rows, _) = PostgresAuditLog::existing(database.url(), false)
        .unwrap()
        .rows()
        .unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows[1].line.contains(r#""tool":"Counted""#), "{rows:?}");
}

/// A record of a call of `tool` with `arguments` kept, not sealed yet.
fn record(tool: &str, arguments: &str) -> AuditRecord {
    AuditRecord {
        time_unix_ms: 1_700_000_000_000,
        principal: Some("alice".to_string()),
        caller: Some("root".to_string()),
        session: None,
        tool: tool.to_string(),
        call_id: Some("7".to_string()),
        arguments_sha256: sha256_hex(arguments.as_bytes()),
        arguments: Some(arguments.to_string()),
        outcome: Outcome::Success,
        kind: None,
        decision: Some("approved".to_string()),
        decided_by: Some("ada".to_string()),
        duration_us: 42,
        prev_hash: String::new(),
        hash: String::new(),
    }
}

/// Records whose text the database seals must give the hashes and lines the file
/// chain's verifier recomputes, whatever they hold: non-ASCII, quotes, backslashes,
/// control characters, and the very text the sealing appends.
#[test]
fn awkward_record_text_sealed_by_the_database_verifies_as_rust_seals_it() {
    let database = TestPostgres::start();
    let log = PostgresAuditLog::open(database.url(), true).unwrap();
    let awkward = [
        ("Read", "{}".to_string()),
        (
            "Wrïte ✓ 𝄞",
            r#"{"path":"C:\\dir\\\"quoted\".txt"}"#.to_string(),
        ),
        (
            "Bash",
            "{\"command\":\"printf '\\t\\n'\"}\n\t\r\u{0}\u{1}\u{1f}\u{7f}\u{2028}\u{feff}"
                .to_string(),
        ),
        (
            "Glob",
            r#"{"pattern":"*","prev_hash":"","hash":""}","prev_hash":"","hash":""}"#.to_string(),
        ),
        (
            "\"prev_hash\":\"",
            "'; DROP TABLE holon_audit_records; --".to_string(),
        ),
    ];
    let mut prev = holon_policy::audit::GENESIS_HASH.to_string();
    let mut expected = Vec::new();
    for (number, (tool, arguments)) in awkward.iter().enumerate() {
        let seq = log.append_record(record(tool, arguments)).unwrap();
        assert_eq!(seq, i64::try_from(number).unwrap() + 1);
        let mut sealed = record(tool, arguments);
        sealed.seal(&prev);
        prev = sealed.hash.clone();
        expected.push(serde_json::to_string(&sealed).unwrap());
    }
    let (rows, head) = log.rows().unwrap();
    let lines: Vec<&str> = rows.iter().map(|row| row.line.as_str()).collect();
    assert_eq!(lines, expected);
    let chain = holon_policy::audit::verify(lines).expect("the file chain's verifier");
    assert_eq!((chain.records, chain.hash.as_str()), (5, prev.as_str()));
    assert_eq!(head, (5, prev));
    assert_eq!(log.verify().unwrap().unwrap().records, 5);
}

/// Version 1's schema, as its migration made it (released: never changes).
const VERSION_ONE: &str = "CREATE TABLE holon_audit_schema_version (
        version INTEGER PRIMARY KEY NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE TABLE holon_audit_records (
        seq BIGINT PRIMARY KEY NOT NULL,
        line TEXT NOT NULL,
        hash TEXT NOT NULL
    );
    CREATE TABLE holon_audit_head (
        only_row BOOLEAN PRIMARY KEY NOT NULL DEFAULT TRUE CHECK (only_row),
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL
    );
    INSERT INTO holon_audit_schema_version (version) VALUES (1);
    INSERT INTO holon_audit_head (seq, hash)
        VALUES (0, '0000000000000000000000000000000000000000000000000000000000000000');";

/// A chain of `tools` written on the database of `url` as version 1 wrote it: its
/// schema, and each record sealed in Rust and written with version 1's statements.
fn version_one_chain(url: &str, tools: &[&str]) {
    let url = url.to_string();
    let records: Vec<AuditRecord> = tools
        .iter()
        .map(|tool| record(tool, "{\"é\":\"\\\"\"}"))
        .collect();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (mut client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            client.batch_execute(VERSION_ONE).await.unwrap();
            for mut record in records {
                let transaction = client.transaction().await.unwrap();
                let head = transaction
                    .query_one("SELECT seq, hash FROM holon_audit_head FOR UPDATE", &[])
                    .await
                    .unwrap();
                let (seq, hash): (i64, String) = (head.get(0), head.get(1));
                let named: (Option<i64>, Option<&str>) = if seq == 0 {
                    (None, None)
                } else {
                    (Some(seq), Some(hash.as_str()))
                };
                record.seal(&hash);
                let line = serde_json::to_string(&record).unwrap();
                let written = transaction
                    .execute(
                        "WITH last AS (
                             SELECT seq, hash FROM holon_audit_records ORDER BY seq DESC LIMIT 1
                         ), record AS (
                             INSERT INTO holon_audit_records (seq, line, hash)
                             SELECT $1, $2, $3
                             WHERE (SELECT seq FROM last) IS NOT DISTINCT FROM $4
                               AND (SELECT hash FROM last) IS NOT DISTINCT FROM $5
                             RETURNING seq
                         )
                         UPDATE holon_audit_head SET seq = $1, hash = $3
                         WHERE EXISTS (SELECT 1 FROM record)",
                        &[&(seq + 1), &line, &record.hash, &named.0, &named.1],
                    )
                    .await
                    .unwrap();
                assert_eq!(written, 1);
                transaction.commit().await.unwrap();
            }
        });
    })
    .join()
    .unwrap();
}

#[test]
fn a_chain_written_by_version_one_is_migrated_and_appended_to() {
    let database = TestPostgres::start();
    version_one_chain(database.url(), &["Read", "Write", "Bash"]);
    let log = PostgresAuditLog::open(database.url(), false).unwrap();
    assert_eq!(log.verify().unwrap().unwrap().records, 3);
    append(&log, "Grep");
    append(&log, "Glob");
    let chain = log
        .verify()
        .unwrap()
        .expect("one chain across the versions");
    assert_eq!(chain.records, 5);
    let (rows, head) = log.rows().unwrap();
    assert!(rows[4].line.contains(r#""tool":"Glob""#), "{rows:?}");
    assert_eq!(head, (5, chain.hash));
    // Migrated once: a log opened again finds version 2 and appends on.
    let again = PostgresAuditLog::open(database.url(), false).unwrap();
    append(&again, "Again");
    assert_eq!(log.verify().unwrap().unwrap().records, 6);
}
