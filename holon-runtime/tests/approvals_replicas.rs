//! Two replicas of a server on one PostgreSQL database (two runtimes, each with a
//! state directory of its own, approvals in the database): a call asked through one
//! is decided through either, 50 concurrent approvals of it run it exactly once, and
//! both sign with the database's operator keys, which rotate.
//!
//! With per-replica SQLite stores the second replica does not know the call at all
//! (`approval_not_found`), which is what the first test fails on without the
//! database (the second test keeps that visible).

// The fixtures count runs in a file, with std::fs.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

use holon_core::prelude::*;
use holon_core::{Deferral, FamilyPolicy, Registry, ToolCall, ToolStatus};
use holon_policy::{ApprovalState, Standing};
use holon_runtime::approvals::postgres::PostgresApprovalStore;
use holon_runtime::{Runtime, RuntimeConfig};
use holon_test_support::postgres::TestPostgres;
use serde_json::json;

mod common;
use common::{RunLog, ask_destructive, rt, runs};

/// A replica serving `workspace` with the state directory `state`, its approvals in
/// the database `url` when one is given (else in the state directory's SQLite store).
fn replica(workspace: &Path, state: &Path, url: Option<&str>) -> Arc<Runtime> {
    Runtime::open(RuntimeConfig {
        state_dir: Some(state.to_path_buf()),
        policy: Some(ask_destructive()),
        approvals_database: url.map(str::to_string),
        ..RuntimeConfig::new(workspace)
    })
    .unwrap()
}

/// Two replicas on one workspace, each with its own state directory.
struct Replicas {
    home: tempfile::TempDir,
    replicas: [Arc<Runtime>; 2],
}

impl Replicas {
    fn start(url: Option<&str>) -> Self {
        let home = tempfile::tempdir().unwrap();
        let replicas = ["a", "b"]
            .map(|name| replica(home.path(), &home.path().join(format!("state-{name}")), url));
        Self { home, replicas }
    }

    fn log(&self) -> PathBuf {
        self.home.path().join("runs")
    }

    fn context(&self, replica: usize) -> ToolContext {
        self.replicas[replica]
            .context(FamilyPolicy::all())
            .with_state(RunLog(self.log()))
    }

    /// Asks Bump with `label` through `replica`: the approval id.
    fn ask(&self, replica: usize, label: &str) -> String {
        let call = ToolCall::new("Bump", json!({ "label": label }));
        let result = rt().block_on(Registry::global().dispatch(&self.context(replica), call));
        assert_eq!(result.status, ToolStatus::Deferred, "{result:?}");
        match result.deferral() {
            Some(Deferral::ApprovalRequired(asked)) => asked.approval_id.clone(),
            other => panic!("{other:?}"),
        }
    }

    /// Approves `id` through `replica` (signed there, carried out there): the
    /// outcome, or the refusal's kind.
    fn approve(&self, replica: usize, id: &str) -> Result<ToolStatus, String> {
        let approvals = self.replicas[replica].approvals().unwrap();
        let decision = approvals
            .sign(
                id,
                true,
                Standing::Once,
                None,
                &format!("operator-{replica}"),
            )
            .map_err(|error| error.kind.as_str().to_string())?;
        rt().block_on(approvals.decide(Registry::global(), &self.context(replica), &decision))
            .map(|result| result.status)
            .map_err(|error| error.kind.as_str().to_string())
    }
}

#[test]
fn fifty_concurrent_approvals_over_two_replicas_run_the_call_exactly_once() {
    let database = TestPostgres::start();
    let replicas = Arc::new(Replicas::start(Some(database.url())));
    let id = replicas.ask(0, "once");
    let start = Arc::new(Barrier::new(50));
    let approvers: Vec<_> = (0..50)
        .map(|approver| {
            let (replicas, start, id) = (Arc::clone(&replicas), Arc::clone(&start), id.clone());
            std::thread::spawn(move || {
                start.wait();
                replicas.approve(approver % 2, &id)
            })
        })
        .collect();
    let outcomes: Vec<_> = approvers
        .into_iter()
        .map(|approver| approver.join().unwrap())
        .collect();
    let ran = outcomes
        .iter()
        .filter(|outcome| **outcome == Ok(ToolStatus::Success))
        .count();
    let refused = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Err(kind) if kind == "approval_already_decided"))
        .count();
    assert_eq!((ran, refused), (1, 49), "{outcomes:?}");
    assert_eq!(runs(&replicas.log()), 1);
    for replica in [0, 1] {
        let stored = replicas.replicas[replica]
            .approvals()
            .unwrap()
            .store()
            .get(&id)
            .unwrap()
            .unwrap();
        assert_eq!(stored.state, ApprovalState::Approved);
        assert_eq!(stored.outcome.unwrap()["status"], "success");
    }
    // Both replicas sign with the database's key.
    let key_ids = [0, 1].map(|replica| {
        replicas.replicas[replica]
            .approvals()
            .unwrap()
            .current_key_id()
    });
    assert!(key_ids[0].is_some());
    assert_eq!(key_ids[0], key_ids[1]);
}

#[test]
fn with_per_replica_sqlite_stores_the_other_replica_does_not_know_the_call() {
    let replicas = Replicas::start(None);
    let id = replicas.ask(0, "once");
    assert_eq!(
        replicas.approve(1, &id),
        Err("approval_not_found".to_string())
    );
    assert_eq!(replicas.approve(0, &id), Ok(ToolStatus::Success));
    assert_eq!(runs(&replicas.log()), 1);
}

#[test]
fn a_decision_of_the_previous_key_holds_on_every_replica_and_a_rotated_out_one_is_refused() {
    let database = TestPostgres::start();
    let replicas = Replicas::start(Some(database.url()));
    let keys = PostgresApprovalStore::open(database.url()).unwrap().keys();
    let signer = replicas.replicas[0].approvals().unwrap();
    let runner = replicas.replicas[1].approvals().unwrap();

    let first = replicas.ask(0, "first");
    let decision = signer
        .sign(&first, true, Standing::Once, None, "operator")
        .unwrap();
    // Rotated once (`holon-tools keys rotate`): the signing key is the previous one.
    let ring = keys.rotate().unwrap();
    assert_eq!(ring.previous_id(), decision.key_id.as_deref());
    let ran = rt()
        .block_on(runner.decide(Registry::global(), &replicas.context(1), &decision))
        .unwrap();
    assert!(ran.is_success(), "{ran:?}");

    let second = replicas.ask(0, "second");
    let stale = signer
        .sign(&second, true, Standing::Once, None, "operator")
        .unwrap();
    // Rotated twice more: the key that signed it is out of the ring everywhere.
    keys.rotate().unwrap();
    keys.rotate().unwrap();
    for (replica, approvals) in [(1, &runner), (0, &signer)] {
        let refused = rt()
            .block_on(approvals.decide(Registry::global(), &replicas.context(replica), &stale))
            .unwrap_err();
        assert_eq!(
            refused.kind.as_str(),
            "approval_key_rotated_out",
            "{refused:?}"
        );
    }
    assert_eq!(runs(&replicas.log()), 1);
    // A decision signed now uses the newest key, on either replica.
    let fresh = runner
        .sign(&second, true, Standing::Once, None, "operator")
        .unwrap();
    assert_eq!(fresh.key_id.as_deref(), runner.current_key_id().as_deref());
    let ran = rt()
        .block_on(signer.decide(Registry::global(), &replicas.context(0), &fresh))
        .unwrap();
    assert!(ran.is_success(), "{ran:?}");
    assert_eq!(runs(&replicas.log()), 2);
}
