//! The audit chain in PostgreSQL, on a real server (holon-test-support's
//! `postgres`): concurrent appenders from several logs never fork it, and a deleted,
//! edited or reordered row is found and named by its number.

use std::time::{Duration, SystemTime};

use holon_core::{Decision, Execution, FamilyPolicy, ToolContext, ToolResult};
use holon_policy::audit::ChainBreak;
use holon_runtime::audit_log::AuditError;
use holon_runtime::audit_log::postgres::PostgresAuditLog;
use holon_runtime::audit_log::rows::RowBreak;
use holon_test_support::postgres::TestPostgres;

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

/// Runs `statement` on the database of `url`, as someone with the database's
/// password would (a thread of its own: the caller may be inside a runtime).
fn sql(url: &str, statement: &str) {
    let (url, statement) = (url.to_string(), statement.to_string());
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            client.batch_execute(&statement).await.unwrap();
        });
    })
    .join()
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
    sql(
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
    sql(
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
    sql(
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
    sql(
        database.url(),
        "UPDATE holon_audit_records SET hash = md5(hash) || md5(hash) WHERE seq = 4",
    );
    assert_eq!(log.verify().unwrap(), Err(RowBreak::HashColumn { seq: 4 }));
}

#[test]
fn two_swapped_rows_are_found_by_the_first_ones_number() {
    let (database, log) = five_records();
    // Rows 2 and 3 trade places: each keeps its record, under the other's number.
    sql(
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
    sql(database.url(), "DELETE FROM holon_audit_head");
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
/// the log and PostgreSQL) once its connection has prepared the statements: the
/// transaction's start, the head read and locked, the record and the head written,
/// the commit. The record is sealed to the head's hash in between, so one round
/// trip is out of reach without hashing in the database.
#[test]
fn an_append_is_four_round_trips() {
    let database = TestPostgres::start();
    let wire = holon_test_support::wire::WireCounter::start(database.url());
    let log = PostgresAuditLog::open(wire.url(), false).unwrap();
    append(&log, "Warm");
    wire.take();
    append(&log, "Counted");
    let trips = wire.take();
    assert_eq!(trips.len(), 4, "{trips:#?}");
    assert_eq!(
        (trips[0].as_str(), trips[3].as_str()),
        ("START TRANSACTION", "COMMIT"),
        "{trips:#?}"
    );
    assert!(trips[1].starts_with("SELECT"), "{trips:#?}");
    let (rows, _) = PostgresAuditLog::existing(database.url(), false)
        .unwrap()
        .rows()
        .unwrap();
    assert_eq!(rows.len(), 2);
}
