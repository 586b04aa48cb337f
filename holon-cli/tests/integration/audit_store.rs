//! The audit chain in PostgreSQL through the CLI: `serve --store postgres://..
//! --audit` appends each call to the database's chain, `audit --store` lists it and
//! `audit verify --store` verifies it, naming the row of a deletion, an edit or a
//! swap; a file named too is refused.

use serde_json::json;

use crate::cli_support::{holon, holon_command};
use crate::serve::{handshake, lines, response, send, spawn_stdio, wait};
use holon_test_support::postgres::{TestPostgres, execute};

/// `audit verify --store URL`: whether it passed, and what it printed.
fn verify(workspace: &std::path::Path, url: &str) -> (bool, String) {
    let output = holon(workspace, &["audit", "verify", "--store", url]);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr),
    )
}

#[test]
fn serve_appends_its_calls_to_the_database_chain_which_verify_checks_row_by_row() {
    let database = TestPostgres::start();
    let url = database.url();
    let dir = tempfile::tempdir().unwrap();
    let mut command = holon_command(dir.path());
    command.args(["--audit", "serve", "--store", url]);
    let mut child = spawn_stdio(command);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    handshake(&mut stdin, &stdout);
    for id in 2..5 {
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": "Sleep", "arguments": {"duration_ms": 1}}}),
        );
        let called = response(&stdout, id);
        assert_eq!(called["result"]["isError"], false, "{called}");
    }
    drop(stdin);
    assert_eq!(wait(&mut child), Some(0));
    // Not in a file: in the database.
    assert!(!dir.path().join(".holon").join("audit.jsonl").exists());

    let listed = holon(dir.path(), &["audit", "--store", url, "--json"]);
    assert!(listed.status.success(), "{listed:?}");
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert_eq!(listed.lines().count(), 3, "{listed}");
    assert!(
        listed
            .lines()
            .all(|line| line.contains(r#""tool":"Sleep""#))
    );
    let (ok, report) = verify(dir.path(), url);
    assert!(ok && report.starts_with("ok: 3 rows"), "{report}");

    // An edited text, then an edited hash: each named by its row, then undone.
    execute(
        url,
        "CREATE TABLE saved AS SELECT * FROM holon_audit_records;
         UPDATE holon_audit_records SET line = replace(line, '\"Sleep\"', '\"Slept\"') WHERE seq = 2;",
    );
    let (ok, report) = verify(dir.path(), url);
    assert!(
        !ok && report.contains("row 2: record 2 was edited"),
        "{report}"
    );
    let restore =
        "DELETE FROM holon_audit_records; INSERT INTO holon_audit_records SELECT * FROM saved;";
    execute(
        url,
        &format!(
            "{restore} UPDATE holon_audit_records SET hash = md5(hash) || md5(hash) WHERE seq = 3;"
        ),
    );
    let (ok, report) = verify(dir.path(), url);
    assert!(
        !ok && report.contains("row 3 was edited: its hash column"),
        "{report}"
    );

    // Two swapped rows.
    execute(
        url,
        &format!(
            "{restore} UPDATE holon_audit_records SET seq = -1 WHERE seq = 1;
             UPDATE holon_audit_records SET seq = 1 WHERE seq = 2;
             UPDATE holon_audit_records SET seq = 2 WHERE seq = -1;"
        ),
    );
    let (ok, report) = verify(dir.path(), url);
    assert!(
        !ok && report.contains("row 1: record 1 does not follow"),
        "{report}"
    );

    // A deleted row.
    execute(
        url,
        &format!("{restore} DELETE FROM holon_audit_records WHERE seq = 2;"),
    );
    let (ok, report) = verify(dir.path(), url);
    assert!(!ok && report.contains("row 2 is missing"), "{report}");

    execute(url, restore);
    let (ok, report) = verify(dir.path(), url);
    assert!(ok, "{report}");
}

#[test]
fn an_audit_file_and_a_postgres_store_together_are_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let file = tempfile::tempdir().unwrap();
    let audit_file = file.path().join("audit.jsonl");
    let url = "postgres://nobody@localhost/none";
    let output = holon(
        dir.path(),
        &[
            "--audit-file",
            audit_file.to_str().unwrap(),
            "serve",
            "--store",
            url,
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--audit-file") && stderr.contains("--store postgres://"),
        "{stderr}"
    );
    assert!(!audit_file.exists());

    let output = holon(
        dir.path(),
        &["audit", "verify", "--store", "sqlite:tasks.db"],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("PostgreSQL only"),
        "{output:?}"
    );
}
