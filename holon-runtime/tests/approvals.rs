//! Asked calls in the runtime's SQLite store: they survive a restart, and of two
//! processes approving one call, exactly one runs it.

// The fixtures count runs in a file, with std::fs.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use holon_core::{Deferral, FamilyPolicy, Registry, ToolCall, ToolStatus};
use holon_policy::{ApprovalPolicy, ApprovalState, SignedDecision, Standing};
use holon_runtime::{Runtime, RuntimeConfig};
use serde_json::json;

mod common;
use common::{RunLog, ask_destructive, rt, runs};

fn open(workspace: &Path, state: &Path, policy: Option<ApprovalPolicy>) -> Arc<Runtime> {
    Runtime::open(RuntimeConfig {
        state_dir: Some(state.to_path_buf()),
        policy,
        ..RuntimeConfig::new(workspace)
    })
    .unwrap()
}

/// Asks Bump on `runtime` and returns the approval id.
fn ask(runtime: &Arc<Runtime>, log: &Path) -> String {
    ask_labelled(runtime, log, "once")
}

/// Asks Bump with `label` on `runtime` and returns the approval id.
fn ask_labelled(runtime: &Arc<Runtime>, log: &Path, label: &str) -> String {
    let context = runtime
        .context(FamilyPolicy::all())
        .with_state(RunLog(log.to_path_buf()));
    let call = ToolCall::new("Bump", json!({ "label": label }));
    let result = rt().block_on(Registry::global().dispatch(&context, call));
    assert_eq!(result.status, ToolStatus::Deferred, "{result:?}");
    match result.deferral() {
        Some(Deferral::ApprovalRequired(asked)) => asked.approval_id.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_asked_call_survives_a_restart_and_runs_once_approved() {
    let home = tempfile::tempdir().unwrap();
    let (state, log) = (home.path().join("state"), home.path().join("runs"));
    let runtime = open(home.path(), &state, Some(ask_destructive()));
    let id = ask(&runtime, &log);
    drop(runtime);
    assert_eq!(runs(&log), 0);

    let runtime = open(home.path(), &state, Some(ask_destructive()));
    let approvals = runtime.approvals().unwrap();
    let pending = approvals.store().get(&id).unwrap().unwrap();
    assert_eq!(
        (pending.state, pending.tool.as_str()),
        (ApprovalState::Pending, "Bump")
    );
    let decision = approvals
        .sign(&id, true, Standing::Once, None, "operator")
        .unwrap();
    let context = runtime
        .context(FamilyPolicy::all())
        .with_state(RunLog(log.clone()));
    let result = rt()
        .block_on(approvals.decide(Registry::global(), &context, &decision))
        .unwrap();
    assert!(result.is_success(), "{result:?}");
    assert_eq!(runs(&log), 1);
    let again = rt().block_on(approvals.decide(Registry::global(), &context, &decision));
    assert_eq!(again.unwrap_err().kind.as_str(), "approval_already_decided");
    assert_eq!(runs(&log), 1);
    let stored = approvals.store().get(&id).unwrap().unwrap();
    assert_eq!(stored.state, ApprovalState::Approved);
    assert_eq!(stored.outcome.unwrap()["status"], "success");
}

#[test]
fn a_grant_for_a_principal_is_kept_in_the_store() {
    let home = tempfile::tempdir().unwrap();
    let (state, log) = (home.path().join("state"), home.path().join("runs"));
    let runtime = open(home.path(), &state, Some(ask_destructive()));
    let id = ask(&runtime, &log);
    let approvals = runtime.approvals().unwrap();
    let decision = approvals
        .sign(&id, true, Standing::Principal, None, "operator")
        .unwrap();
    let context = runtime
        .context(FamilyPolicy::all())
        .with_state(RunLog(log.clone()));
    rt().block_on(approvals.decide(Registry::global(), &context, &decision))
        .unwrap();
    drop((approvals, runtime));
    let runtime = open(home.path(), &state, Some(ask_destructive()));
    let context = runtime
        .context(FamilyPolicy::all())
        .with_state(RunLog(log.clone()));
    let call = ToolCall::new("Bump", json!({ "label": "granted" }));
    let result = rt().block_on(Registry::global().dispatch(&context, call));
    assert!(result.is_success(), "{result:?}");
    assert_eq!(runs(&log), 2);
}

#[test]
fn the_same_call_asked_again_reuses_its_stored_approval_across_a_restart() {
    let home = tempfile::tempdir().unwrap();
    let (state, log) = (home.path().join("state"), home.path().join("runs"));
    let runtime = open(home.path(), &state, Some(ask_destructive()));
    let id = ask(&runtime, &log);
    assert_eq!(ask(&runtime, &log), id);
    drop(runtime);
    let runtime = open(home.path(), &state, Some(ask_destructive()));
    assert_eq!(ask(&runtime, &log), id, "the stored pending call is reused");
    let other = ask_labelled(&runtime, &log, "other");
    assert_ne!(other, id);
    let approvals = runtime.approvals().unwrap();
    assert_eq!(approvals.store().list().unwrap().len(), 2);
    let decision = approvals
        .sign(&id, false, Standing::Once, None, "operator")
        .unwrap();
    let context = runtime
        .context(FamilyPolicy::all())
        .with_state(RunLog(log.clone()));
    rt().block_on(approvals.decide(Registry::global(), &context, &decision))
        .unwrap();
    let again = ask(&runtime, &log);
    assert_ne!(again, id, "a decided call is not reused");
    assert_eq!(approvals.store().list().unwrap().len(), 3);
    assert_eq!(runs(&log), 0);
}

#[test]
fn identical_calls_asked_at_once_store_one_pending_approval() {
    const THREADS: usize = 8;
    const ROUNDS: usize = 10;
    let home = tempfile::tempdir().unwrap();
    let (state, log) = (home.path().join("state"), home.path().join("runs"));
    // A runtime a thread, each with its own connection, as processes would be.
    let runtimes: Vec<Arc<Runtime>> = (0..THREADS)
        .map(|_| open(home.path(), &state, Some(ask_destructive())))
        .collect();
    for round in 0..ROUNDS {
        let barrier = std::sync::Barrier::new(THREADS);
        let label = format!("round {round}");
        let ids: Vec<String> = std::thread::scope(|scope| {
            let asks: Vec<_> = runtimes
                .iter()
                .map(|runtime| {
                    scope.spawn(|| {
                        let context = runtime
                            .context(FamilyPolicy::all())
                            .with_state(RunLog(log.clone()));
                        let call = ToolCall::new("Bump", json!({ "label": label }));
                        let executor = rt();
                        barrier.wait();
                        let result = executor.block_on(Registry::global().dispatch(&context, call));
                        match result.deferral() {
                            Some(Deferral::ApprovalRequired(asked)) => asked.approval_id.clone(),
                            _ => panic!("not deferred: {result:?}"),
                        }
                    })
                })
                .collect();
            asks.into_iter().map(|ask| ask.join().unwrap()).collect()
        });
        assert!(ids.iter().all(|id| id == &ids[0]), "round {round}: {ids:?}");
    }
    let stored = runtimes[0].approvals().unwrap().store().list().unwrap();
    assert_eq!(stored.len(), ROUNDS, "{stored:?}");
    assert_eq!(runs(&log), 0);
}

const CHILD_STATE: &str = "HOLON_APPROVAL_TEST_STATE";

/// How many calls the two processes race on.
const RACED: usize = 40;

#[test]
fn two_processes_approving_the_same_calls_run_each_once() {
    let home = tempfile::tempdir().unwrap();
    let (state, log) = (home.path().join("state"), home.path().join("runs"));
    let runtime = open(home.path(), &state, Some(ask_destructive()));
    let approvals = runtime.approvals().unwrap();
    let decisions: Vec<SignedDecision> = (0..RACED)
        .map(|raced| {
            // Each its own call: the same call asked again would be the same approval.
            let id = ask_labelled(&runtime, &log, &format!("race {raced}"));
            approvals
                .sign(&id, true, Standing::Once, None, "operator")
                .unwrap()
        })
        .collect();
    drop((approvals, runtime));
    std::fs::write(
        home.path().join("decisions.json"),
        serde_json::to_string(&decisions).unwrap(),
    )
    .unwrap();
    let children: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "child_decides",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_STATE, home.path())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // Both are waiting for this file: they decide at once.
    std::fs::write(home.path().join("go"), "").unwrap();
    let outputs: Vec<String> = children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            assert!(output.status.success());
            String::from_utf8(output.stdout).unwrap()
        })
        .collect();
    let count = |what: &str| {
        outputs
            .iter()
            .map(|out| out.matches(what).count())
            .sum::<usize>()
    };
    assert_eq!(count("outcome: ran"), RACED, "{outputs:?}");
    assert_eq!(
        count("outcome: approval_already_decided"),
        RACED,
        "{outputs:?}"
    );
    assert_eq!(runs(&log), RACED);
}

/// The child of the test above; does nothing when run on its own.
#[test]
fn child_decides() {
    let Some(home) = std::env::var_os(CHILD_STATE).map(PathBuf::from) else {
        return;
    };
    let runtime = open(&home, &home.join("state"), None);
    let decisions: Vec<SignedDecision> =
        serde_json::from_str(&std::fs::read_to_string(home.join("decisions.json")).unwrap())
            .unwrap();
    let approvals = runtime.approvals().unwrap();
    let context = runtime
        .context(FamilyPolicy::all())
        .with_state(RunLog(home.join("runs")));
    while !home.join("go").exists() {
        std::thread::yield_now();
    }
    let rt = rt();
    for decision in &decisions {
        match rt.block_on(approvals.decide(Registry::global(), &context, decision)) {
            Ok(result) if result.is_success() => println!("outcome: ran"),
            Ok(result) => println!("outcome: {:?}", result.error_kind()),
            Err(error) => println!("outcome: {}", error.kind),
        }
    }
}
