//! Asked calls across two replicas of `holon-tools serve --store postgres://...` (two
//! processes on one workspace, each with a state directory of its own, one
//! database): a 2026-07-28 approval round asked through one replica is answered
//! through the other, and a call approved out of band (`approvals --store`) runs
//! through the other. With per-replica stores the other replica does not know the
//! call: it asks anew, which the last test keeps visible.

use std::path::Path;

use serde_json::{Value, json};

use crate::approvals::{ASK_CREATE, CREATE, json_of};
use crate::approvals_mcp::{Served, answer, call_2026, stateless};
use crate::cli_support::{holon, holon_command};
use crate::serve::spawn_stdio;
use holon_test_support::postgres::TestPostgres;

/// A workspace, the policy file that asks before CreateWorkItem (outside it), and
/// the state directories of the replicas and of the operator's CLI.
struct Site {
    workspace: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Site {
    fn new() -> Self {
        let site = Self {
            workspace: tempfile::tempdir().unwrap(),
            outside: tempfile::tempdir().unwrap(),
        };
        std::fs::write(site.policy(), ASK_CREATE).unwrap();
        site
    }

    fn ws(&self) -> &Path {
        self.workspace.path()
    }

    fn policy(&self) -> std::path::PathBuf {
        self.outside.path().join("policy.toml")
    }

    fn state(&self, name: &str) -> String {
        self.outside.path().join(name).display().to_string()
    }

    /// `serve` on stdio with the state directory `state`, `--store store` and
    /// `more` arguments.
    fn replica(&self, state: &str, store: &str, more: &[&str]) -> Served {
        let mut command = holon_command(self.ws());
        command
            .args(["--state-dir", &self.state(state), "--policy"])
            .arg(self.policy())
            .args(["serve", "--store", store])
            .args(more);
        Served::of(spawn_stdio(command))
    }

    /// How many work items the replica of `state` made (they are in its state
    /// directory).
    fn work_items(&self, state: &str) -> usize {
        let output = holon(
            self.ws(),
            &[
                "--state-dir",
                &self.state(state),
                "--policy",
                "none",
                "call",
                "ListWorkItems",
                r#"{"filter": "all"}"#,
                "--json",
            ],
        );
        json_of(&output)["structured"]["work_items"]
            .as_array()
            .map_or(0, Vec::len)
    }
}

fn arguments() -> Value {
    serde_json::from_str(CREATE).unwrap()
}

/// A stateless 2026-07-28 call of CreateWorkItem from a client that cannot ask its
/// user: the answer (a deferral).
fn call_without_elicitation(served: &mut Served) -> Value {
    let params = json!({ "name": "CreateWorkItem", "arguments": arguments(),
        "_meta": stateless(json!({})) });
    served.request("tools/call", params, |_| None).1
}

#[test]
fn a_round_asked_through_one_replica_is_answered_through_the_other() {
    let database = TestPostgres::start();
    let site = Site::new();
    let mut one = site.replica("a", database.url(), &[]);
    let mut two = site.replica("b", database.url(), &[]);

    let round = call_2026(&mut one, arguments(), json!({}));
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    let ran = call_2026(&mut two, arguments(), answer(&round, "accept"));
    assert_eq!(ran["result"]["isError"], false, "{ran}");
    assert_eq!((site.work_items("a"), site.work_items("b")), (0, 1));
    // The same answer replayed through the first replica runs nothing: it is asked anew.
    let replayed = call_2026(&mut one, arguments(), answer(&round, "accept"));
    assert_eq!(
        replayed["result"]["resultType"], "input_required",
        "{replayed}"
    );
    assert_eq!((site.work_items("a"), site.work_items("b")), (0, 1));
}

#[test]
fn a_call_approved_out_of_band_runs_through_the_other_replica_once() {
    let database = TestPostgres::start();
    let site = Site::new();
    let mut one = site.replica("a", database.url(), &[]);
    let mut two = site.replica("b", database.url(), &[]);

    let deferred = call_without_elicitation(&mut one);
    let deferral = &deferred["result"]["_meta"]["holon/deferral"];
    assert_eq!(deferral["kind"], "approval_required", "{deferred}");
    let id = deferral["approval_id"].as_str().unwrap().to_string();

    // The operator's CLI has a state directory of its own: the call is the database's.
    let operator = site.state("operator");
    let approve = |id: &str| {
        holon(
            site.ws(),
            &[
                "--state-dir",
                &operator,
                "approvals",
                "--store",
                database.url(),
                "approve",
                id,
                "--json",
            ],
        )
    };
    let approved = approve(&id);
    assert!(approved.status.success(), "{approved:?}");
    let ran = call_without_elicitation(&mut two);
    assert_eq!(ran["result"]["isError"], false, "{ran}");
    assert_eq!((site.work_items("a"), site.work_items("b")), (0, 1));
    let again = approve(&id);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("approval_already_decided")
            || String::from_utf8_lossy(&again.stdout).contains("approval_already_decided"),
        "{again:?}"
    );
}

#[test]
fn with_per_replica_stores_the_other_replica_asks_anew() {
    let site = Site::new();
    // One key file: both replicas open each other's rounds, only the approvals differ.
    let keys = site.outside.path().join("keys");
    std::fs::write(&keys, "k1 aG9sb24tYXBwcm92YWxzLXJlcGxpY2FzLXRlc3QtazE=\n").unwrap();
    let keys = keys.display().to_string();
    let mut one = site.replica("a", "memory", &["--key-file", &keys]);
    let mut two = site.replica("b", "memory", &["--key-file", &keys]);
    let round = call_2026(&mut one, arguments(), json!({}));
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    let other = call_2026(&mut two, arguments(), answer(&round, "accept"));
    assert_eq!(other["result"]["resultType"], "input_required", "{other}");
    assert_eq!((site.work_items("a"), site.work_items("b")), (0, 0));
}
