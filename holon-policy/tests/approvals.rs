//! The approval policy in the dispatcher: allow, deny, ask; and the operator's
//! signed decisions, which run an asked call exactly once or refuse it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use holon_core::prelude::*;
use holon_core::{
    AskedCalls, Deferral, DispatchObserver, Execution, FamilyPolicy, Principal, Registry, ToolCall,
    ToolCapabilityFamily, ToolStatus,
};
use holon_policy::audit::AuditRecord;
use holon_policy::{
    AnnotationMatch, ApprovalPolicy, ApprovalState, ApprovalStore, ApprovalStoreError, Approvals,
    Decision, MemoryApprovalStore, OperatorKey, PendingCall, Rule, SignedDecision, Standing,
    Verdict, WithApprovals,
};
use serde_json::{Value, json};

/// How many times the tool below ran.
#[derive(Default)]
struct Counter(AtomicUsize);

/// Arguments of Bump.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct BumpArgs {
    /// A label, echoed.
    #[schemars(length(min = 1))]
    label: String,
}

#[derive(Serialize, JsonSchema)]
struct Bumped {
    label: String,
    runs: usize,
}

/// Adds one to the host's counter and says how many runs there were.
#[holon_tool(family = LocalEnvironment, annotations(destructive, open_world = false))]
fn bump(counter: &Counter, args: BumpArgs) -> Result<Bumped, ToolError> {
    let runs = counter.0.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(Bumped {
        label: args.label,
        runs,
    })
}

/// Reads nothing; allowed by every policy below.
#[holon_tool(family = CoreAgent, annotations(read_only))]
fn peek() -> Result<String, ToolError> {
    Ok("peeked".to_string())
}

const KEY: [u8; 32] = [42; 32];

fn ask_bump() -> ApprovalPolicy {
    ApprovalPolicy::new(Verdict::Allow).with_rule(
        Rule::new(Verdict::Ask)
            .for_annotation(AnnotationMatch::Destructive)
            .because("it changes things"),
    )
}

struct Host {
    approvals: Arc<Approvals>,
    counter: Arc<Counter>,
    decisions: Arc<Decisions>,
}

/// The audit record of every call, as a host's observer would write it.
#[derive(Default)]
struct Decisions(Mutex<Vec<AuditRecord>>);

impl DispatchObserver for Decisions {
    fn record(&self, execution: &Execution<'_>) {
        let mut seen = self.0.lock().unwrap();
        seen.push(AuditRecord::of_execution(execution, false));
    }
}

impl Host {
    fn new(policy: ApprovalPolicy, store: Arc<dyn ApprovalStore>) -> Self {
        Self::with(Approvals::new(policy, store, OperatorKey::from_bytes(KEY)))
    }

    fn with(approvals: Approvals) -> Self {
        Self {
            approvals: Arc::new(approvals),
            counter: Arc::default(),
            decisions: Arc::default(),
        }
    }

    fn context(&self) -> ToolContext {
        ToolContext::new(FamilyPolicy::all())
            .with_caller("agent-1")
            .with_shared_state(Arc::clone(&self.counter))
            .with_observer(self.decisions.clone())
            .with_approvals(Arc::clone(&self.approvals))
    }

    fn runs(&self) -> usize {
        self.counter.0.load(Ordering::SeqCst)
    }

    fn decisions(&self) -> Vec<Decision> {
        self.decisions
            .0
            .lock()
            .unwrap()
            .iter()
            .map(|record| match record.decision.as_deref() {
                Some("allowed") => Decision::Allowed,
                Some("asked") => Decision::Asked,
                Some("approved") => Decision::Approved,
                Some("denied") => Decision::Denied,
                Some("refused") => Decision::Refused,
                other => panic!("no decision: {other:?}"),
            })
            .collect()
    }

    /// Each audit record's decision and who decided.
    fn deciders(&self) -> Vec<(String, Option<String>)> {
        self.decisions
            .0
            .lock()
            .unwrap()
            .iter()
            .map(|record| (record.decision.clone().unwrap(), record.decided_by.clone()))
            .collect()
    }

    async fn call(&self, context: &ToolContext, name: &str, input: Value) -> ToolResult {
        Registry::global()
            .dispatch(context, ToolCall::new(name, input))
            .await
    }

    /// Asks Bump and returns the approval id the deferred envelope names.
    async fn ask(&self) -> String {
        let result = self
            .call(&self.context(), "Bump", json!({ "label": "a" }))
            .await;
        approval_id(&result)
    }

    async fn decide(&self, decision: &SignedDecision) -> Result<ToolResult, ToolError> {
        self.approvals
            .decide(Registry::global(), &self.context(), decision)
            .await
    }
}

fn approval_id(result: &ToolResult) -> String {
    assert_eq!(result.status, ToolStatus::Deferred, "{result:?}");
    match result.deferral() {
        Some(Deferral::ApprovalRequired(asked)) => asked.approval_id.clone(),
        other => panic!("not an approval: {other:?}"),
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

#[test]
fn an_asked_call_runs_only_once_the_operator_approves_it_and_only_once() {
    rt().block_on(async {
        let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
        let result = host
            .call(&host.context(), "Bump", json!({ "label": "x" }))
            .await;
        assert_eq!(host.runs(), 0, "nothing runs before the operator decides");
        let envelope = serde_json::to_value(&result).unwrap();
        let deferral = &envelope["deferral"];
        assert_eq!(envelope["status"], "deferred");
        assert_eq!(deferral["kind"], "approval_required");
        assert_eq!(deferral["tool"], "Bump");
        assert_eq!(deferral["arguments"], json!({ "label": "x" }));
        assert_eq!(deferral["principal"], "agent-1");
        assert_eq!(deferral["caller"], "agent-1");
        let reason = deferral["reason"].as_str().unwrap();
        assert!(reason.contains("it changes things"), "{reason}");
        assert!(reason.contains("annotation destructive"), "{reason}");
        assert!(
            result.receipt().contains("approval_id"),
            "{}",
            result.receipt()
        );
        let id = approval_id(&result);

        // A read-only tool is not asked about.
        let peeked = host.call(&host.context(), "Peek", json!({})).await;
        assert!(peeked.is_success(), "{peeked:?}");

        let decision = host
            .approvals
            .sign(&id, true, Standing::Once, None, "operator")
            .unwrap();
        let ran = host.decide(&decision).await.unwrap();
        assert!(ran.is_success(), "{ran:?}");
        assert_eq!(ran.structured.unwrap()["label"], "x");
        assert_eq!(host.runs(), 1);

        let replayed = host.decide(&decision).await.unwrap_err();
        assert_eq!(replayed.kind.as_str(), "approval_already_decided");
        assert_eq!(host.runs(), 1, "a replayed approval runs nothing");
        let stored = host.approvals.store().get(&id).unwrap().unwrap();
        assert_eq!(stored.state, ApprovalState::Approved);
        assert_eq!(stored.outcome.unwrap()["status"], "success");
        assert_eq!(
            host.decisions(),
            [
                Decision::Asked,
                Decision::Allowed,
                Decision::Approved,
                Decision::Refused
            ]
        );
    });
}

#[test]
fn a_denied_call_never_runs_and_the_model_reads_the_operators_message() {
    rt().block_on(async {
        let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
        let id = host.ask().await;
        let message = Some("not on the production tree".to_string());
        let denial = host
            .approvals
            .sign(&id, false, Standing::Once, message, "operator")
            .unwrap();
        let refused = host.decide(&denial).await.unwrap();
        let error = refused.error.as_deref().unwrap();
        assert_eq!(error.kind.as_str(), "approval_denied");
        assert!(
            error.message.contains("not on the production tree"),
            "{}",
            error.message
        );
        let approval = host
            .approvals
            .sign(&id, true, Standing::Once, None, "operator");
        // Signing works on any stored call; carrying it out does not after a denial.
        let late = host.decide(&approval.unwrap()).await.unwrap_err();
        assert_eq!(late.kind.as_str(), "approval_already_decided");
        assert_eq!(host.runs(), 0);
        assert_eq!(
            host.decisions(),
            [Decision::Asked, Decision::Denied, Decision::Refused]
        );
    });
}

#[test]
fn forged_expired_altered_and_wrong_principal_decisions_run_nothing() {
    rt().block_on(async {
        let store = Arc::new(TamperingStore::default());
        let host = Host::new(ask_bump(), store.clone());
        let key = OperatorKey::from_bytes(KEY);
        let id = host.ask().await;
        let good = host
            .approvals
            .sign(&id, true, Standing::Once, None, "operator")
            .unwrap();

        // Signed with another key.
        let mut forged = SignedDecision::sign(
            &OperatorKey::from_bytes([1; 32]),
            &id,
            &good.arguments_sha256,
            &good.principal,
            good.expires_at_ms,
            true,
            Standing::Once,
            None,
            "operator",
            None,
        );
        assert_eq!(
            kind(host.decide(&forged).await),
            "approval_signature_invalid"
        );
        // The signature of a good decision on other fields (a later expiry).
        forged = good.clone();
        forged.expires_at_ms += 1;
        assert_eq!(
            kind(host.decide(&forged).await),
            "approval_signature_invalid"
        );
        // Another decision's digest: the signature does not cover it.
        forged = good.clone();
        forged.arguments_sha256 = holon_policy::arguments_digest(&json!({ "label": "b" }));
        assert_eq!(
            kind(host.decide(&forged).await),
            "approval_signature_invalid"
        );
        // Properly signed, but expired.
        let expired = SignedDecision::sign(
            &key,
            &id,
            &good.arguments_sha256,
            &good.principal,
            1,
            true,
            Standing::Once,
            None,
            "operator",
            None,
        );
        assert_eq!(kind(host.decide(&expired).await), "approval_expired");
        // Properly signed, for another principal.
        let elsewhere = SignedDecision::sign(
            &key,
            &id,
            &good.arguments_sha256,
            "mallory",
            good.expires_at_ms,
            true,
            Standing::Once,
            None,
            "operator",
            None,
        );
        assert_eq!(
            kind(host.decide(&elsewhere).await),
            "approval_principal_mismatch"
        );
        // The stored arguments were changed after the operator decided.
        *store.alter.lock().unwrap() = Some(json!({ "label": "rm -rf" }));
        assert_eq!(kind(host.decide(&good).await), "approval_arguments_altered");
        assert_eq!(host.runs(), 0);

        // Untampered, the good decision still holds, once.
        *store.alter.lock().unwrap() = None;
        assert!(host.decide(&good).await.unwrap().is_success());
        assert_eq!(host.runs(), 1);
    });
}

#[test]
fn a_call_past_its_time_to_live_cannot_be_approved() {
    rt().block_on(async {
        let approvals = Approvals::new(
            ask_bump(),
            Arc::new(MemoryApprovalStore::new()),
            OperatorKey::from_bytes(KEY),
        )
        .with_ttl(Duration::ZERO);
        let host = Host::with(approvals);
        let id = host.ask().await;
        let decision = host
            .approvals
            .sign(&id, true, Standing::Once, None, "operator")
            .unwrap();
        assert_eq!(kind(host.decide(&decision).await), "approval_expired");
        assert_eq!(host.runs(), 0);
    });
}

#[test]
fn sixteen_threads_approving_one_call_run_it_once() {
    let host = Arc::new(Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new())));
    let id = rt().block_on(host.ask());
    let decision = host
        .approvals
        .sign(&id, true, Standing::Once, None, "operator")
        .unwrap();
    let start = Arc::new(std::sync::Barrier::new(16));
    let outcomes: Vec<bool> = (0..16)
        .map(|_| {
            let (host, decision, start) = (host.clone(), decision.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                rt().block_on(host.decide(&decision)).is_ok()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|thread| thread.join().unwrap())
        .collect();
    assert_eq!(outcomes.iter().filter(|ok| **ok).count(), 1);
    assert_eq!(host.runs(), 1);
}

#[test]
fn deny_rules_refuse_and_allow_rules_run_the_most_specific_first() {
    rt().block_on(async {
        let policy = ApprovalPolicy::new(Verdict::Allow)
            .with_rule(Rule::new(Verdict::Deny).for_family(ToolCapabilityFamily::LocalEnvironment))
            .with_rule(
                Rule::new(Verdict::Allow)
                    .for_tool("Bump")
                    .for_principal("ada"),
            );
        let host = Host::new(policy, Arc::new(MemoryApprovalStore::new()));
        let refused = host
            .call(&host.context(), "Bump", json!({ "label": "a" }))
            .await;
        assert_eq!(refused.error_kind(), Some("policy_denied"));
        assert!(
            refused
                .error
                .as_ref()
                .unwrap()
                .message
                .contains("family local_environment")
        );
        assert_eq!(host.runs(), 0);
        let ada = host.context().with_state(Principal::new("ada", ["tools"]));
        assert!(
            host.call(&ada, "Bump", json!({ "label": "a" }))
                .await
                .is_success()
        );
        assert_eq!(host.runs(), 1);
        assert_eq!(host.decisions(), [Decision::Refused, Decision::Allowed]);
    });
}

#[test]
fn always_for_a_principal_grants_that_principals_later_calls_only() {
    rt().block_on(async {
        let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
        let id = host.ask().await;
        let decision = host
            .approvals
            .sign(&id, true, Standing::Principal, None, "operator")
            .unwrap();
        host.decide(&decision).await.unwrap();
        let again = host
            .call(&host.context(), "Bump", json!({ "label": "b" }))
            .await;
        assert!(again.is_success(), "{again:?}");
        assert_eq!(host.runs(), 2);
        let other = host.context().with_caller("agent-2");
        let asked = host.call(&other, "Bump", json!({ "label": "c" })).await;
        assert_eq!(asked.status, ToolStatus::Deferred);
        assert_eq!(host.runs(), 2);
        let session = host.approvals.sign(
            &approval_id(&asked),
            true,
            Standing::Session,
            None,
            "operator",
        );
        assert_eq!(
            session.unwrap_err().kind.as_str(),
            "approval_standing_unavailable"
        );
    });
}

#[test]
fn the_audit_record_names_who_decided_and_a_grant_names_who_granted_it() {
    rt().block_on(async {
        let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
        let blank = host
            .approvals
            .sign(&host.ask().await, true, Standing::Once, None, "  ");
        assert_eq!(blank.unwrap_err().kind.as_str(), "approval_decider_missing");

        let id = host.ask().await;
        let approval = host
            .approvals
            .sign(&id, true, Standing::Principal, None, "ada")
            .unwrap();
        assert_eq!(approval.decided_by, "ada");
        // Who decided is signed: naming someone else breaks the signature.
        let mut impersonated = approval.clone();
        impersonated.decided_by = "mallory".into();
        assert_eq!(
            kind(host.decide(&impersonated).await),
            "approval_signature_invalid"
        );
        assert!(host.decide(&approval).await.unwrap().is_success());
        let grants = host.approvals.store().grants().unwrap();
        let reason = grants[0].reason.as_deref().unwrap();
        assert!(reason.contains("granted by ada"), "{reason}");

        let other = host.context().with_caller("agent-2");
        let asked = host.call(&other, "Bump", json!({ "label": "c" })).await;
        let denial = host
            .approvals
            .sign(&approval_id(&asked), false, Standing::Once, None, "bob")
            .unwrap();
        host.decide(&denial).await.unwrap();
        let ada = Some("ada".to_string());
        let bob = Some("bob".to_string());
        assert_eq!(
            host.deciders(),
            [
                ("asked".to_string(), None),
                ("asked".to_string(), None),
                ("approved".to_string(), ada),
                ("asked".to_string(), None),
                ("denied".to_string(), bob),
            ]
        );
    });
}

#[test]
fn a_call_a_standing_grant_allows_names_the_grants_author_in_its_audit_record() {
    rt().block_on(async {
        let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
        let id = host.ask().await;
        let approval = host
            .approvals
            .sign(&id, true, Standing::Principal, None, "ada")
            .unwrap();
        assert!(host.decide(&approval).await.unwrap().is_success());
        let grants = host.approvals.store().grants().unwrap();
        assert_eq!(grants[0].granted_by.as_deref(), Some("ada"));

        let later = host
            .call(&host.context(), "Bump", json!({ "label": "b" }))
            .await;
        assert!(later.is_success(), "{later:?}");
        assert_eq!(host.runs(), 2);
        let records = host.deciders();
        assert_eq!(
            records.last(),
            Some(&("allowed".to_string(), Some("ada".to_string()))),
            "{records:?}"
        );
    });
}

#[test]
fn identical_calls_asked_at_once_store_one_pending_approval() {
    const THREADS: usize = 8;
    const ROUNDS: usize = 25;
    let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
    for round in 0..ROUNDS {
        let barrier = std::sync::Barrier::new(THREADS);
        let input = json!({ "label": format!("round {round}") });
        let ids: Vec<String> = std::thread::scope(|scope| {
            let asks: Vec<_> = (0..THREADS)
                .map(|_| {
                    scope.spawn(|| {
                        let runtime = rt();
                        let context = host.context();
                        barrier.wait();
                        approval_id(&runtime.block_on(host.call(&context, "Bump", input.clone())))
                    })
                })
                .collect();
            asks.into_iter().map(|ask| ask.join().unwrap()).collect()
        });
        assert!(ids.iter().all(|id| id == &ids[0]), "round {round}: {ids:?}");
    }
    assert_eq!(host.approvals.store().list().unwrap().len(), ROUNDS);
    assert_eq!(host.runs(), 0);
}

#[test]
fn a_call_asked_again_while_pending_reuses_its_approval() {
    rt().block_on(async {
        let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
        let first = host.ask().await;
        assert_eq!(host.ask().await, first, "the same call, the same approval");
        let pending = host.approvals.store().list().unwrap();
        assert_eq!(pending.len(), 1, "{pending:?}");
        // Other arguments, or another caller, are another call.
        let other = host
            .call(&host.context(), "Bump", json!({ "label": "b" }))
            .await;
        let other = approval_id(&other);
        let elsewhere = host.context().with_caller("agent-2");
        let elsewhere = approval_id(&host.call(&elsewhere, "Bump", json!({ "label": "a" })).await);
        let ids = [&first, &other, &elsewhere];
        assert!(
            ids.iter()
                .all(|id| ids.iter().filter(|i| i == &id).count() == 1)
        );
        assert_eq!(host.approvals.store().list().unwrap().len(), 3);
        // Once decided, asking again is a new call.
        let decision = host
            .approvals
            .sign(&first, true, Standing::Once, None, "operator")
            .unwrap();
        host.decide(&decision).await.unwrap();
        let again = host.ask().await;
        assert_ne!(again, first);
        assert_eq!(host.approvals.store().list().unwrap().len(), 4);
        assert_eq!(host.runs(), 1);
    });
}

#[test]
fn an_expired_pending_call_is_not_reused() {
    rt().block_on(async {
        let approvals = Approvals::new(
            ask_bump(),
            Arc::new(MemoryApprovalStore::new()),
            OperatorKey::from_bytes(KEY),
        )
        .with_ttl(Duration::ZERO);
        let host = Host::with(approvals);
        let first = host.ask().await;
        assert_ne!(host.ask().await, first);
    });
}

#[test]
fn an_asked_call_with_bad_arguments_is_answered_at_once_and_not_stored() {
    rt().block_on(async {
        let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
        let result = host
            .call(&host.context(), "Bump", json!({ "label": "" }))
            .await;
        assert_eq!(result.error_kind(), Some("invalid_tool_input"));
        let text = Registry::global()
            .dispatch_text(&host.context(), "Bump", r#"{"label":"a","label":"b"}"#)
            .await;
        assert_eq!(text.error_kind(), Some("duplicate_field"));
        assert!(host.approvals.store().list().unwrap().is_empty());
    });
}

fn kind(outcome: Result<ToolResult, ToolError>) -> String {
    match outcome {
        Ok(result) => panic!("the decision was carried out: {result:?}"),
        Err(error) => error.kind.as_str().to_string(),
    }
}

/// A store whose stored arguments someone may change behind the host's back.
#[derive(Default)]
struct TamperingStore {
    inner: MemoryApprovalStore,
    alter: Mutex<Option<Value>>,
}

impl ApprovalStore for TamperingStore {
    fn insert(&self, call: &PendingCall) -> Result<(), ApprovalStoreError> {
        self.inner.insert(call)
    }
    fn insert_unless_pending(
        &self,
        call: &PendingCall,
        now_ms: i64,
    ) -> Result<PendingCall, ApprovalStoreError> {
        self.inner.insert_unless_pending(call, now_ms)
    }
    fn get(&self, id: &str) -> Result<Option<PendingCall>, ApprovalStoreError> {
        let mut call = self.inner.get(id)?;
        if let (Some(call), Some(arguments)) = (&mut call, &*self.alter.lock().unwrap()) {
            call.arguments = arguments.clone();
        }
        Ok(call)
    }
    fn list(&self) -> Result<Vec<PendingCall>, ApprovalStoreError> {
        self.inner.list()
    }
    fn claim(
        &self,
        id: &str,
        to: ApprovalState,
        message: Option<&str>,
        decided_by: &str,
    ) -> Result<bool, ApprovalStoreError> {
        self.inner.claim(id, to, message, decided_by)
    }
    fn store_approval(
        &self,
        id: &str,
        approval: &SignedDecision,
    ) -> Result<bool, ApprovalStoreError> {
        self.inner.store_approval(id, approval)
    }
    fn record_outcome(&self, id: &str, outcome: &Value) -> Result<(), ApprovalStoreError> {
        self.inner.record_outcome(id, outcome)
    }
    fn add_grant(&self, rule: &Rule) -> Result<(), ApprovalStoreError> {
        self.inner.add_grant(rule)
    }
    fn grants(&self) -> Result<Vec<Rule>, ApprovalStoreError> {
        self.inner.grants()
    }
}

/// A site of the workspace `workspace` (its inode) and the state directory `state`.
fn site(workspace: u64, state: Option<u64>) -> holon_policy::CallSite {
    let dir = |path: &str, inode| holon_policy::DirIdentity {
        path: path.to_string(),
        device: 7,
        inode,
    };
    holon_policy::CallSite {
        workspace: dir(&format!("/srv/workspace-{workspace}"), workspace),
        state_dir: state.map(|inode| dir("/srv/state", inode)),
    }
}

/// `context` naming `site` as where its calls run.
fn at(context: ToolContext, site: holon_policy::CallSite) -> ToolContext {
    context.with_state(holon_policy::CallSiteSource::new(move || Ok(site.clone())))
}

#[test]
fn an_approval_runs_its_call_at_the_site_it_was_asked_at_only() {
    rt().block_on(async {
        let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
        let asked_at = site(1, Some(9));
        let result = host
            .call(
                &at(host.context(), asked_at.clone()),
                "Bump",
                json!({ "label": "a" }),
            )
            .await;
        let id = approval_id(&result);
        let stored = host.approvals.store().get(&id).unwrap().unwrap();
        assert_eq!(stored.site.as_ref(), Some(&asked_at));
        let decision = host
            .approvals
            .sign(&id, true, Standing::Once, None, "operator")
            .unwrap();
        assert_eq!(decision.site.as_ref(), Some(&asked_at));

        let decide_at = |here: Option<holon_policy::CallSite>| {
            let context = match here {
                Some(here) => at(host.context(), here),
                None => host.context(),
            };
            let decision = decision.clone();
            let approvals = Arc::clone(&host.approvals);
            async move {
                approvals
                    .decide(Registry::global(), &context, &decision)
                    .await
                    .map(|_| ())
                    .map_err(|error| error.kind.as_str().to_string())
            }
        };
        for (here, kind) in [
            (Some(site(2, Some(9))), "approval_workspace_mismatch"),
            (Some(site(1, Some(8))), "approval_state_dir_mismatch"),
            (Some(site(1, None)), "approval_state_dir_mismatch"),
            (None, "approval_workspace_mismatch"),
        ] {
            assert_eq!(
                decide_at(here.clone()).await,
                Err(kind.to_string()),
                "{here:?}"
            );
            assert_eq!(host.runs(), 0, "{here:?}");
        }
        // A decision moved to another site does not verify.
        let mut moved = decision.clone();
        moved.site = Some(site(2, Some(9)));
        assert_eq!(
            host.approvals
                .decide(
                    Registry::global(),
                    &at(host.context(), site(2, Some(9))),
                    &moved
                )
                .await
                .unwrap_err()
                .kind
                .as_str(),
            "approval_signature_invalid"
        );
        // Still pending: at its own site it runs, once.
        assert_eq!(decide_at(Some(asked_at.clone())).await, Ok(()));
        assert_eq!(host.runs(), 1);

        // A call stored without a site (by an older holon) is approved nowhere.
        let bare = host.ask().await;
        let decision = host
            .approvals
            .sign(&bare, true, Standing::Once, None, "operator")
            .unwrap();
        let refused = host
            .approvals
            .decide(Registry::global(), &at(host.context(), asked_at), &decision)
            .await
            .unwrap_err();
        assert_eq!(refused.kind.as_str(), "approval_site_unknown");
        assert_eq!(host.runs(), 1);
    });
}

#[test]
fn an_approval_made_out_of_band_runs_the_call_when_it_is_made_again_once() {
    rt().block_on(async {
        let host = Host::new(ask_bump(), Arc::new(MemoryApprovalStore::new()));
        let context = host.context();
        let deferred = host.call(&context, "Bump", json!({ "label": "a" })).await;
        let id = approval_id(&deferred);
        let Some(Deferral::ApprovalRequired(asked)) = deferred.deferral().cloned() else {
            panic!("a deferral: {deferred:?}");
        };
        let decision = host
            .approvals
            .sign(&id, true, Standing::Once, None, "ada")
            .unwrap();
        let stored = host.approvals.approve_later(&context, &decision).unwrap();
        assert_eq!(stored.state, ApprovalState::Pending);
        assert_eq!(host.runs(), 0, "approving runs nothing");
        let again = host.approvals.approve_later(&context, &decision);
        assert_eq!(again.unwrap_err().kind.as_str(), "approval_already_decided");

        // Another caller's identical call is another call: it is asked, nothing runs.
        let other = host.context().with_caller("agent-2");
        let asked_by_other = host.call(&other, "Bump", json!({ "label": "a" })).await;
        assert_ne!(approval_id(&asked_by_other), id);
        assert_eq!(host.runs(), 0);

        // Two identical calls that both found the approval: the first to claim it runs
        // the call; the other is told that an identical call ran it.
        let racing =
            AskedCalls::approved_run(&*host.approvals, Registry::global(), &context, &asked)
                .expect("the approval waits for the call");
        let ran = host.call(&context, "Bump", json!({ "label": "a" })).await;
        assert_eq!(ran.structured.unwrap()["runs"], 1);
        let lost = racing.await.expect_err("the approval is used once");
        assert_eq!(lost.kind.as_str(), "approval_already_decided", "{lost:?}");
        assert!(lost.message.contains("an identical call"), "{lost:?}");
        assert_eq!(host.runs(), 1);
        // Made again after it ran, the call is asked anew.
        let later = host.call(&context, "Bump", json!({ "label": "a" })).await;
        assert_ne!(approval_id(&later), id);
        assert_eq!(host.runs(), 1);

        let call = host.approvals.store().get(&id).unwrap().unwrap();
        assert_eq!(call.state, ApprovalState::Approved);
        assert_eq!(call.decided_by.as_deref(), Some("ada"));
        assert_eq!(call.outcome.unwrap()["status"], "success");
        // The run is recorded once, approved by ada, and the retry not as asked.
        let deciders: Vec<(String, Option<String>)> = host.deciders();
        let expected = [
            ("asked", None),
            ("asked", None),
            ("approved", Some("ada")),
            ("refused", None),
            ("asked", None),
        ]
        .map(|(decision, by)| (decision.to_string(), by.map(str::to_string)));
        assert_eq!(deciders, expected);
    });
}

/// A ring kept where every replica reads it (a database, in a host), rotated as
/// `holon-tools keys rotate` does: a new current key, the current one kept as the
/// previous, the one before dropped.
struct RotatingKeys(Mutex<(u8, holon_policy::OperatorKeyring)>);

impl RotatingKeys {
    fn ring(generation: u8) -> holon_policy::OperatorKeyring {
        let named = |generation: u8| {
            (
                format!("k{generation}"),
                OperatorKey::from_bytes([generation; 32]),
            )
        };
        holon_policy::OperatorKeyring::named(
            named(generation),
            (generation > 1).then(|| named(generation - 1)),
        )
        .unwrap()
    }

    fn new() -> Self {
        Self(Mutex::new((1, Self::ring(1))))
    }

    fn rotate(&self) {
        let mut held = self.0.lock().unwrap();
        held.0 += 1;
        held.1 = Self::ring(held.0);
    }
}

impl holon_policy::OperatorKeySource for RotatingKeys {
    fn load(&self) -> Result<holon_policy::OperatorKeyring, String> {
        Ok(self.0.lock().unwrap().1.clone())
    }
}

#[test]
fn a_decision_of_the_previous_key_runs_and_one_of_a_key_rotated_out_is_refused() {
    rt().block_on(async {
        let keys = Arc::new(RotatingKeys::new());
        let store: Arc<dyn ApprovalStore> = Arc::new(MemoryApprovalStore::new());
        // Two replicas on one store and one ring: one signs, the other carries out.
        let signer = Host::with(
            Approvals::from_key_source(ask_bump(), Arc::clone(&store), keys.clone()).unwrap(),
        );
        let runner =
            Host::with(Approvals::from_key_source(ask_bump(), store, keys.clone()).unwrap());
        let id = signer.ask().await;
        let before = signer
            .approvals
            .sign(&id, true, Standing::Once, None, "operator")
            .unwrap();
        assert_eq!(before.key_id.as_deref(), Some("k1"));

        // Rotated once: k1 is the previous key, and still verifies.
        keys.rotate();
        let ran = runner.decide(&before).await.unwrap();
        assert!(ran.is_success(), "{ran:?}");
        assert_eq!(runner.runs(), 1);

        // Signed with the current key, k2; two rotations later k2 is out of the ring:
        // refused with its own kind, and nothing runs.
        let second = signer.ask().await;
        let old = signer
            .approvals
            .sign(&second, true, Standing::Once, None, "operator")
            .unwrap();
        assert_eq!(old.key_id.as_deref(), Some("k2"));
        keys.rotate();
        keys.rotate();
        assert_eq!(kind(runner.decide(&old).await), "approval_key_rotated_out");
        assert_eq!(runner.runs(), 1);
        // A decision that names the current key but was signed with another is forged.
        let mut forged = old.clone();
        forged.key_id = Some("k4".into());
        assert_eq!(
            kind(runner.decide(&forged).await),
            "approval_signature_invalid"
        );
        assert_eq!(runner.runs(), 1);
    });
}
