//! One behavioural suite for every approval store: in memory, the runtime's SQLite
//! store and PostgreSQL (a real server, see holon-mcp's `tests/support/postgres.rs`).
//! Each case opens two handles on one storage, as two processes or two replicas do:
//! a call stored through one is there for the other before the store answers; the
//! first decision wins; an expired call is not reused; principals never share a
//! call; and of 16 concurrent claims of one call exactly one succeeds.

use std::sync::{Arc, Barrier};

use holon_core::ToolCapabilityFamily;
use holon_policy::{
    ApprovalState, ApprovalStore, MemoryApprovalStore, OperatorKey, PendingCall, Rule,
    SignedDecision, Standing, Verdict, arguments_digest,
};
use holon_runtime::Store;
use holon_runtime::approvals::postgres::PostgresApprovalStore;
use holon_test_support::postgres::TestPostgres;
use serde_json::json;

/// Opens one more handle on the storage under test.
type Open<'a> = &'a dyn Fn() -> Arc<dyn ApprovalStore>;

fn now_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// A pending call of `tool` for `principal`, asked now, open for an hour.
fn call(id: &str, tool: &str, principal: &str) -> PendingCall {
    let arguments = json!({ "label": tool, "n": 1 });
    let now = now_ms();
    PendingCall {
        id: id.to_string(),
        tool: tool.to_string(),
        arguments_sha256: arguments_digest(&arguments),
        arguments,
        principal: principal.to_string(),
        caller: Some("agent-1".to_string()),
        session: None,
        families: vec![ToolCapabilityFamily::LocalEnvironment],
        site: None,
        reason: "it changes things".to_string(),
        created_at_ms: now,
        expires_at_ms: now + 3_600_000,
        state: ApprovalState::Pending,
        message: None,
        decided_by: None,
        outcome: None,
        approval: None,
    }
}

fn the_stored_call_is_there_for_the_other_handle_before_it_is_answered(open: Open<'_>) {
    let (one, two) = (open(), open());
    let asked = call("create-1", "Create", "ada");
    let stored = one.insert_unless_pending(&asked, now_ms()).unwrap();
    assert_eq!(stored, asked);
    // Read back exactly as stored, through the other handle.
    assert_eq!(two.get("create-1").unwrap(), Some(asked.clone()));
    assert!(
        two.list()
            .unwrap()
            .iter()
            .any(|listed| listed.id == "create-1")
    );
    // Asked again through the other handle while pending: the same call.
    let mut again = call("create-2", "Create", "ada");
    again.created_at_ms += 1;
    assert_eq!(
        two.insert_unless_pending(&again, now_ms()).unwrap().id,
        "create-1"
    );
    assert_eq!(two.get("create-2").unwrap(), None);
    assert_eq!(one.get("absent").unwrap(), None);
    // The same id twice is an error, not a second row.
    assert!(two.insert(&asked).is_err());
}

fn the_first_decision_wins(open: Open<'_>) {
    let (one, two) = (open(), open());
    one.insert(&call("first-1", "First", "ada")).unwrap();
    assert!(
        one.claim("first-1", ApprovalState::Approved, None, "ada-operator")
            .unwrap()
    );
    assert!(
        !two.claim("first-1", ApprovalState::Denied, Some("no"), "bob-operator")
            .unwrap()
    );
    let decided = two.get("first-1").unwrap().unwrap();
    assert_eq!(decided.state, ApprovalState::Approved);
    assert_eq!(decided.decided_by.as_deref(), Some("ada-operator"));
    assert_eq!(decided.message, None);
    two.record_outcome("first-1", &json!({ "status": "success" }))
        .unwrap();
    assert_eq!(
        one.get("first-1").unwrap().unwrap().outcome,
        Some(json!({ "status": "success" }))
    );
    // An approval stored out of band: once, and only on a pending call.
    one.insert(&call("first-2", "First", "ada")).unwrap();
    let approval = SignedDecision::sign(
        &OperatorKey::from_bytes([9; 32]),
        "first-2",
        "digest",
        "ada",
        now_ms() + 1000,
        true,
        Standing::Once,
        None,
        "operator",
        None,
    );
    assert!(one.store_approval("first-2", &approval).unwrap());
    assert!(!two.store_approval("first-2", &approval).unwrap());
    assert_eq!(
        two.get("first-2")
            .unwrap()
            .unwrap()
            .approved_awaiting_retry(),
        Some(&approval)
    );
    assert!(!two.store_approval("first-1", &approval).unwrap());
}

fn an_expired_call_is_not_reused(open: Open<'_>) {
    let (one, two) = (open(), open());
    let mut old = call("expiry-1", "Expiry", "ada");
    old.created_at_ms -= 7_200_000;
    old.expires_at_ms = now_ms() - 1;
    one.insert(&old).unwrap();
    assert_eq!(two.find_pending(&old, now_ms()).unwrap(), None);
    let fresh = call("expiry-2", "Expiry", "ada");
    assert_eq!(
        two.insert_unless_pending(&fresh, now_ms()).unwrap().id,
        "expiry-2"
    );
    assert_eq!(
        one.find_pending(&fresh, now_ms())
            .unwrap()
            .map(|found| found.id),
        Some("expiry-2".to_string())
    );
}

fn principals_never_share_a_call(open: Open<'_>) {
    let (one, two) = (open(), open());
    let ada = call("principal-ada", "Shared", "ada");
    let bob = call("principal-bob", "Shared", "bob");
    assert_eq!(ada.arguments_sha256, bob.arguments_sha256);
    assert_eq!(
        one.insert_unless_pending(&ada, now_ms()).unwrap().id,
        "principal-ada"
    );
    assert_eq!(
        two.insert_unless_pending(&bob, now_ms()).unwrap().id,
        "principal-bob"
    );
    assert!(
        one.claim(
            "principal-ada",
            ApprovalState::Denied,
            Some("no"),
            "operator"
        )
        .unwrap()
    );
    assert_eq!(
        two.get("principal-bob").unwrap().unwrap().state,
        ApprovalState::Pending
    );
    assert_eq!(
        two.find_pending(&bob, now_ms())
            .unwrap()
            .map(|found| found.id),
        Some("principal-bob".to_string())
    );
    // A grant names its principal, and reads back as it was given.
    let grant = Rule::new(Verdict::Allow)
        .for_tool("Shared")
        .for_principal("ada")
        .granted_by("operator");
    one.add_grant(&grant).unwrap();
    assert!(two.grants().unwrap().contains(&grant));
}

fn one_of_sixteen_concurrent_claimants_wins(open: Open<'_>) {
    let handles = [open(), open()];
    handles[0].insert(&call("race-1", "Race", "ada")).unwrap();
    let start = Arc::new(Barrier::new(16));
    let claims: Vec<_> = (0..16)
        .map(|claimant| {
            let (store, start) = (Arc::clone(&handles[claimant % 2]), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                store
                    .claim(
                        "race-1",
                        ApprovalState::Approved,
                        None,
                        &format!("claimant-{claimant}"),
                    )
                    .unwrap()
            })
        })
        .collect();
    let won = claims
        .into_iter()
        .map(|claim| claim.join().unwrap())
        .filter(|won| *won)
        .count();
    assert_eq!(won, 1, "exactly one claim succeeds");

    // Sixteen identical calls asked at once: one is stored, every asker gets it.
    let start = Arc::new(Barrier::new(16));
    let asked: Vec<_> = (0..16)
        .map(|asker| {
            let (store, start) = (Arc::clone(&handles[asker % 2]), Arc::clone(&start));
            std::thread::spawn(move || {
                let mine = call(&format!("asked-{asker}"), "Asked", "ada");
                start.wait();
                store.insert_unless_pending(&mine, now_ms()).unwrap().id
            })
        })
        .collect();
    let ids: std::collections::BTreeSet<String> =
        asked.into_iter().map(|ask| ask.join().unwrap()).collect();
    assert_eq!(ids.len(), 1, "one pending call: {ids:?}");
    let stored = handles[0]
        .list()
        .unwrap()
        .into_iter()
        .filter(|listed| listed.tool == "Asked")
        .count();
    assert_eq!(stored, 1);
}

fn suite(open: Open<'_>) {
    the_stored_call_is_there_for_the_other_handle_before_it_is_answered(open);
    the_first_decision_wins(open);
    an_expired_call_is_not_reused(open);
    principals_never_share_a_call(open);
    one_of_sixteen_concurrent_claimants_wins(open);
}

#[test]
fn the_memory_store() {
    let store: Arc<dyn ApprovalStore> = Arc::new(MemoryApprovalStore::new());
    suite(&|| Arc::clone(&store));
}

#[test]
fn the_sqlite_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    suite(&|| Arc::new(Store::open(&path).unwrap()));
}

#[test]
fn the_postgres_store() {
    let database = TestPostgres::start();
    let url = database.url().to_string();
    suite(&|| Arc::new(PostgresApprovalStore::open(&url).unwrap()));
}
