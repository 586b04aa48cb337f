//! [`Approvals`]: the policy, the store and the key of a host, as the dispatcher
//! consults them and the operator decides with them.

use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use holon_core::{
    ApprovalRequired, AskedCalls, CallGate, Decision, DecisionFuture, Deferral, DispatchObserver,
    Execution, FamilyPolicy, GateAnswer, GatedTool, Principal, Registry, SessionId, ToolContext,
    ToolError, ToolErrorKind, ToolResult,
};

use crate::keys::{KeyRefusal, OperatorKeySource, OperatorKeyring};
use crate::pending::{ApprovalState, ApprovalStore, PendingCall};
use crate::rules::{ApprovalPolicy, CallFacts, Evaluation, Rule, Verdict};
use crate::signing::{OperatorKey, SignedDecision, Standing, arguments_digest};
use crate::site::{CallSite, CallSiteSource};

/// How long an asked call waits for the operator by default: one hour.
pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(60 * 60);

/// A host's policy with what resolves its `ask`s: the store of pending calls and the
/// operator's key. Put it into a context with [`WithApprovals::with_approvals`].
pub struct Approvals {
    policy: ApprovalPolicy,
    store: Arc<dyn ApprovalStore>,
    keys: Keys,
    ttl: Duration,
}

/// The ring decisions are signed and verified with, and where it is read again.
struct Keys {
    /// The ring as last read.
    ring: RwLock<OperatorKeyring>,
    source: Option<Arc<dyn OperatorKeySource>>,
}

impl Keys {
    fn fixed(ring: OperatorKeyring) -> Self {
        Self {
            ring: RwLock::new(ring),
            source: None,
        }
    }

    fn held(&self) -> OperatorKeyring {
        self.ring
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The ring as its source holds it now: read again at every signature and
    /// verification (decisions are made at a person's pace, and a read is one
    /// statement), so a rotation holds on every replica at once. A source that fails
    /// leaves the ring last read; a store that failed too refuses the decision anyway.
    fn now(&self) -> OperatorKeyring {
        let Some(ring) = self.source.as_ref().and_then(|source| source.load().ok()) else {
            return self.held();
        };
        *self
            .ring
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = ring.clone();
        ring
    }

    /// Whether `decision` holds under the ring as it is now.
    fn verify(&self, decision: &SignedDecision) -> Result<(), KeyRefusal> {
        self.now().verify(decision)
    }
}

/// Why a decision was not carried out, and the call it was on when it is stored.
type Refused = Box<(ToolError, Option<PendingCall>)>;

/// The approvals a context carries: its call gate, and the states the host's own code
/// finds them by (an MCP server putting an asked call to its client's user finds them as
/// [`AskedCalls`]).
pub trait WithApprovals {
    /// Puts every call through this context under the host's approval policy:
    /// after the family gate the dispatcher asks `approvals` whether to run the call,
    /// refuse it, or store it for the operator (see [the crate](crate)).
    fn with_approvals(self, approvals: Arc<Approvals>) -> Self;

    /// The approval policy calls through this context are under, if any.
    fn approvals(&self) -> Option<&Approvals>;
}

impl WithApprovals for ToolContext {
    fn with_approvals(self, approvals: Arc<Approvals>) -> Self {
        self.with_call_gate(Arc::clone(&approvals) as Arc<dyn CallGate>)
            .with_state(Arc::clone(&approvals) as Arc<dyn AskedCalls>)
            .with_shared_state(approvals)
    }

    fn approvals(&self) -> Option<&Approvals> {
        self.call_gate()?;
        self.state::<Approvals>().ok()
    }
}

impl AskedCalls for Approvals {
    /// Signs a single-use decision on `asked` with the operator's key and carries it out,
    /// as [`Approvals::sign`] and [`Approvals::decide`] do for the operator.
    fn decide_once<'a>(
        &'a self,
        registry: &'a Registry,
        context: &'a ToolContext,
        asked: &'a ApprovalRequired,
        approve: bool,
        note: Option<String>,
        decided_by: &'a str,
    ) -> DecisionFuture<'a> {
        Box::pin(async move {
            let decision = self.sign(
                &asked.approval_id,
                approve,
                Standing::Once,
                note,
                decided_by,
            )?;
            self.decide(registry, context, &decision).await
        })
    }

    /// Runs the call `asked` in `context` when the operator approved it out of band
    /// ([`Approvals::approve_later`]): the decision is checked again here (signature,
    /// expiry, arguments, principal, site) and claimed, so of identical calls made at
    /// once exactly one runs it.
    fn approved_run<'a>(
        &'a self,
        registry: &'a Registry,
        context: &'a ToolContext,
        asked: &'a ApprovalRequired,
    ) -> Option<DecisionFuture<'a>> {
        // A store that cannot be read leaves the call deferred: nothing runs.
        let call = self.store.get(&asked.approval_id).ok().flatten()?;
        let approval = call.approved_awaiting_retry()?.clone();
        Some(Box::pin(async move {
            self.decide(registry, context, &approval)
                .await
                .map_err(|error| claimed_by_another(error, &approval.approval_id))
        }))
    }
}

/// `error`, said for the caller who lost the claim of an approval to an identical call
/// made at the same time.
fn claimed_by_another(error: ToolError, id: &str) -> ToolError {
    if error.kind.as_str() != "approval_already_decided" {
        return error;
    }
    refusal(
        "approval_already_decided",
        format!(
            "the operator approved this call once (approval `{id}`), and an identical call made at the same time ran it; nothing ran here"
        ),
        "the identical call's answer has the result; make the call again only to run it again, which asks the operator anew",
    )
}

impl CallGate for Approvals {
    fn consult(&self, tool: &GatedTool<'_>, context: &ToolContext) -> GateAnswer {
        let evaluation = self.evaluate(tool, context);
        match evaluation.verdict {
            Verdict::Allow => GateAnswer::Run {
                granted_by: evaluation.rule.and_then(|rule| rule.granted_by),
            },
            Verdict::Deny => GateAnswer::Refuse {
                why: evaluation.why(),
            },
            Verdict::Ask => GateAnswer::Ask {
                why: evaluation.why(),
            },
        }
    }

    fn defer(
        &self,
        tool: &GatedTool<'_>,
        context: &ToolContext,
        arguments: Value,
        why: String,
    ) -> ToolResult {
        self.defer(tool, context, arguments, why)
    }
}

/// Now, in ms since the Unix epoch.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn refusal(kind: &'static str, message: String, hint: &str) -> ToolError {
    ToolError::new(ToolErrorKind::new(kind), message).with_hint(hint)
}

impl Approvals {
    /// `policy`, with asked calls kept in `store` and decisions signed with `key`.
    pub fn new(policy: ApprovalPolicy, store: Arc<dyn ApprovalStore>, key: OperatorKey) -> Self {
        Self {
            policy,
            store,
            keys: Keys::fixed(OperatorKeyring::single(key)),
            ttl: DEFAULT_APPROVAL_TTL,
        }
    }

    /// Signs and verifies with `ring` rather than the one key given to
    /// [`Approvals::new`].
    pub fn with_keyring(mut self, ring: OperatorKeyring) -> Self {
        self.keys = Keys::fixed(ring);
        self
    }

    /// `policy`, with asked calls kept in `store` and decisions signed and verified
    /// with the ring `source` holds, read now and again at each signature and
    /// verification: replicas on one source follow a rotation at once, without a
    /// restart.
    pub fn from_key_source(
        policy: ApprovalPolicy,
        store: Arc<dyn ApprovalStore>,
        source: Arc<dyn OperatorKeySource>,
    ) -> Result<Self, String> {
        let ring = source.load()?;
        Ok(Self {
            policy,
            store,
            keys: Keys {
                ring: RwLock::new(ring),
                source: Some(source),
            },
            ttl: DEFAULT_APPROVAL_TTL,
        })
    }

    /// The id of the key decisions are signed with now (`None`: a key file's key).
    pub fn current_key_id(&self) -> Option<String> {
        self.keys.now().current_id().map(str::to_string)
    }

    /// Sets how long an asked call waits for the operator.
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The policy.
    pub fn policy(&self) -> &ApprovalPolicy {
        &self.policy
    }

    /// The store of asked calls and standing grants.
    pub fn store(&self) -> &dyn ApprovalStore {
        &*self.store
    }

    /// The policy's answer to a call of `tool` in `context`, the operator's standing
    /// grants counted where the policy alone would ask.
    fn evaluate(&self, tool: &GatedTool<'_>, context: &ToolContext) -> Evaluation {
        let principal = context.principal_id();
        let scopes: Vec<&str> = context
            .state::<Principal>()
            .map(|principal| principal.scopes().collect())
            .unwrap_or_default();
        let facts = CallFacts {
            tool: tool.name,
            family: tool.family,
            annotations: tool.annotations,
            principal,
            scopes: &scopes,
            session: context.state::<SessionId>().ok().map(SessionId::as_str),
        };
        let evaluation = self.policy.evaluate(&facts);
        if evaluation.verdict != Verdict::Ask {
            return evaluation;
        }
        match self.store.grants() {
            Ok(grants) if !grants.is_empty() => self.policy.evaluate_with(&facts, &grants),
            // Without the grants the call is asked, which is the safe side.
            _ => evaluation,
        }
    }

    /// Stores the call of `tool` with `arguments` (checked already) as pending, and
    /// returns its `deferred` envelope. A call asked again while the same call (see
    /// [`PendingCall::binds_like`]) is still pending gets that one's envelope, its
    /// approval id included, and nothing more is stored.
    fn defer(
        &self,
        tool: &GatedTool<'_>,
        context: &ToolContext,
        arguments: Value,
        reason: String,
    ) -> ToolResult {
        let site = match site_of(context) {
            Ok(site) => site,
            Err(error) => return ToolResult::from_error(tool.name, error),
        };
        let created_at_ms = now_ms();
        let ttl = i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX);
        let mut call = PendingCall {
            id: String::new(),
            tool: tool.name.to_string(),
            arguments_sha256: arguments_digest(&arguments),
            arguments,
            principal: context.principal_id().to_string(),
            caller: context.caller().map(str::to_string),
            session: context
                .state::<SessionId>()
                .ok()
                .map(|session| session.as_str().to_string()),
            families: context.policy().families().collect(),
            site,
            reason,
            created_at_ms,
            expires_at_ms: created_at_ms.saturating_add(ttl),
            state: ApprovalState::Pending,
            message: None,
            decided_by: None,
            outcome: None,
            approval: None,
        };
        let mut id = [0u8; 16];
        if let Err(error) = getrandom::fill(&mut id) {
            return ToolResult::from_error(
                tool.name,
                ToolError::internal(error).with_hint("retry the call"),
            );
        }
        call.id = hex::encode(id);
        // The same call still pending is reused, in the same step that stores a new one.
        match self.store.insert_unless_pending(&call, created_at_ms) {
            Ok(stored) => deferred_result(tool.name, stored),
            Err(error) => ToolResult::from_error(
                tool.name,
                ToolError::new(ToolErrorKind::INTERNAL_ERROR, error.to_string())
                    .with_hint("the call needs the operator's approval, and could not be stored for it; nothing ran"),
            ),
        }
    }

    /// The operator's side: a decision on the pending call `id`, bound to its
    /// arguments, principal and site as stored now, and signed, with who decided
    /// (`decided_by`, which the signature covers and the audit record names).
    /// `standing` other than [`Standing::Once`] also grants later calls of the tool
    /// (approvals only).
    pub fn sign(
        &self,
        id: &str,
        approve: bool,
        standing: Standing,
        message: Option<String>,
        decided_by: &str,
    ) -> Result<SignedDecision, ToolError> {
        let decided_by = decided_by.trim();
        if decided_by.is_empty() {
            return Err(refusal(
                "approval_decider_missing",
                format!("the decision on `{id}` names nobody who decided it"),
                "name the operator who decides (`holon-tools approvals approve ID --as NAME`)",
            ));
        }
        let call = self.pending(id)?;
        if standing == Standing::Session && call.session.is_none() {
            return Err(refusal(
                "approval_standing_unavailable",
                format!(
                    "the call {id} came in no session, so nothing can be granted for its session"
                ),
                "approve it once, or for its principal",
            ));
        }
        let ring = self.keys.now();
        let (key, key_id) = ring.signing_key();
        Ok(SignedDecision::sign_with_id(
            key,
            key_id,
            &call.id,
            &arguments_digest(&call.arguments),
            &call.principal,
            call.expires_at_ms,
            approve,
            standing,
            message,
            decided_by,
            call.site,
        ))
    }

    /// The call `id`, if it is stored.
    fn pending(&self, id: &str) -> Result<PendingCall, ToolError> {
        self.store
            .get(id)
            .map_err(|error| ToolError::new(ToolErrorKind::INTERNAL_ERROR, error.to_string()))?
            .ok_or_else(|| {
                refusal(
                    "approval_not_found",
                    format!("there is no asked call with the approval id `{id}`"),
                    "list the asked calls with `holon-tools approvals list`",
                )
            })
    }

    /// Carries out the operator's `decision`: checks that it is signed with the key,
    /// unexpired, for the stored call's exact arguments, principal and site, that an
    /// approval is carried out at that site (the workspace and state directory of
    /// `context`), and that the call is still pending; then, at most once whatever
    /// runs concurrently, runs the call (approve) and returns its result, or returns the `approval_denied` refusal
    /// with the operator's message (deny). A decision that does not hold is an error
    /// whose kind says why, and nothing runs.
    pub async fn decide(
        &self,
        registry: &Registry,
        context: &ToolContext,
        decision: &SignedDecision,
    ) -> Result<ToolResult, ToolError> {
        match self.checked(decision, context) {
            Ok(call) => Ok(self.carry_out(registry, context, decision, call).await),
            Err(refused) => {
                let (error, call) = *refused;
                if let (Some(call), Some(observer)) = (call, context.observer()) {
                    let result = ToolResult::from_error(call.tool.clone(), error.clone());
                    observe(observer, context, &call, &result, Decision::Refused);
                }
                Err(error)
            }
        }
    }

    /// The operator's side, out of band: checks the approval `decision` as
    /// [`Approvals::decide`] does (the call is still pending, and this is where it was
    /// asked), and stores it on the call, running nothing. The runtime that asked runs
    /// the call when its caller makes the same call again (the gate defers it to the
    /// same pending approval, finds this decision and claims it): there, as the
    /// principal who asked, with the caller's families, exactly once. A call approved
    /// already is refused as `approval_already_decided`; a denial
    /// (`holon-tools approvals deny`) still refuses it until it runs. Returns the call
    /// as stored now.
    pub fn approve_later(
        &self,
        context: &ToolContext,
        decision: &SignedDecision,
    ) -> Result<PendingCall, ToolError> {
        let id = &decision.approval_id;
        if !decision.approve {
            return Err(refusal(
                "approval_not_an_approval",
                format!(
                    "the decision on `{id}` denies the call; only an approval waits for the call to be made again"
                ),
                "carry a denial out with `Approvals::decide` (`holon-tools approvals deny`)",
            ));
        }
        let mut call = self
            .verified(decision, context)
            .map_err(|refused| refused.0)?;
        match self.store.store_approval(id, decision) {
            Ok(true) => {
                call.approval = Some(decision.clone());
                Ok(call)
            }
            Ok(false) => Err(refusal(
                "approval_already_decided",
                format!(
                    "the call `{id}` was decided already (approved calls run when the model makes them again); a decision is used once"
                ),
                "`holon-tools approvals show ID` shows its state and outcome",
            )),
            Err(error) => Err(ToolError::new(
                ToolErrorKind::INTERNAL_ERROR,
                error.to_string(),
            )),
        }
    }

    /// The stored call `decision` is for, once every check holds and it is claimed.
    fn checked(
        &self,
        decision: &SignedDecision,
        context: &ToolContext,
    ) -> Result<PendingCall, Refused> {
        let call = self.verified(decision, context)?;
        let id = &decision.approval_id;
        let to = if decision.approve {
            ApprovalState::Approved
        } else {
            ApprovalState::Denied
        };
        match self
            .store
            .claim(id, to, decision.message.as_deref(), &decision.decided_by)
        {
            Ok(true) => Ok(call),
            Ok(false) => Err(Box::new((
                refusal(
                    "approval_already_decided",
                    format!("the call `{id}` was decided already; a decision is used once"),
                    "`holon-tools approvals show ID` shows its outcome",
                ),
                Some(call),
            ))),
            Err(error) => Err(Box::new((
                ToolError::new(ToolErrorKind::INTERNAL_ERROR, error.to_string()),
                Some(call),
            ))),
        }
    }

    /// The stored call `decision` is for, once every check holds: signed with the key,
    /// the call pending, unexpired, for its exact arguments, principal and site, and
    /// an approval made where the call was asked.
    fn verified(
        &self,
        decision: &SignedDecision,
        context: &ToolContext,
    ) -> Result<PendingCall, Refused> {
        let id = &decision.approval_id;
        match self.keys.verify(decision) {
            Ok(()) => {}
            Err(KeyRefusal::Invalid) => {
                return Err(Box::new((
                    refusal(
                        "approval_signature_invalid",
                        format!("the decision on `{id}` is not signed with the operator's key"),
                        "decide with `holon-tools approvals approve|deny`, which signs with the key in the state directory",
                    ),
                    None,
                )));
            }
            Err(KeyRefusal::RotatedOut(key_id)) => {
                return Err(Box::new((
                    refusal(
                        "approval_key_rotated_out",
                        format!(
                            "the decision on `{id}` was signed with the operator key `{key_id}`, which was rotated out (the ring keeps the current and the previous key only)"
                        ),
                        "decide again: a new decision is signed with the current key",
                    ),
                    None,
                )));
            }
        }
        let call = self.pending(id).map_err(|error| Box::new((error, None)))?;
        let now = now_ms();
        let refuse = |kind, message: String, hint: &str| {
            Err(Box::new((refusal(kind, message, hint), Some(call.clone()))))
        };
        if call.state != ApprovalState::Pending {
            return refuse(
                "approval_already_decided",
                format!(
                    "the call `{id}` was {} already; a decision is used once",
                    call.state.as_str()
                ),
                "`holon-tools approvals show ID` shows its outcome",
            );
        }
        if now >= decision.expires_at_ms || now >= call.expires_at_ms {
            return refuse(
                "approval_expired",
                format!("the approval of `{id}` has expired"),
                "the model has to make the call again",
            );
        }
        if decision.arguments_sha256 != arguments_digest(&call.arguments)
            || decision.arguments_sha256 != call.arguments_sha256
        {
            return refuse(
                "approval_arguments_altered",
                format!("the arguments of `{id}` are not the ones the decision was made on"),
                "decide again on the call as it is stored, after checking who changed it",
            );
        }
        if decision.principal != call.principal {
            return refuse(
                "approval_principal_mismatch",
                format!(
                    "the decision on `{id}` is for the principal `{}`, and the call is for `{}`",
                    decision.principal, call.principal
                ),
                "decide on the call for the principal it is for",
            );
        }
        if decision.site != call.site {
            return refuse(
                "approval_site_altered",
                format!("the site of `{id}` is not the one the decision was made on"),
                "decide again on the call as it is stored, after checking who changed it",
            );
        }
        // A denial runs nothing, so it holds wherever it is made.
        if decision.approve {
            let here = site_of(context).map_err(|error| Box::new((error, Some(call.clone()))))?;
            if let Some((kind, message, hint)) =
                site_mismatch(id, call.site.as_ref(), here.as_ref())
            {
                return refuse(kind, message, &hint);
            }
        }
        if decision.standing == Standing::Session && call.session.is_none() {
            return refuse(
                "approval_standing_unavailable",
                format!("the call `{id}` came in no session"),
                "approve it once, or for its principal",
            );
        }
        Ok(call)
    }

    /// Runs (or refuses) the claimed `call` and records the outcome.
    async fn carry_out(
        &self,
        registry: &Registry,
        context: &ToolContext,
        decision: &SignedDecision,
        call: PendingCall,
    ) -> ToolResult {
        // The audit record of the decided call names who decided it.
        let context = &context
            .clone()
            .with_state(DecidedBy(decision.decided_by.clone()));
        let result = if decision.approve {
            if let Some(grant) = grant_of(&call, decision)
                && let Err(error) = self.store.add_grant(&grant)
            {
                eprintln!("holon: the standing grant could not be stored: {error}");
            }
            let allowed: FamilyPolicy = call.families.iter().copied().collect();
            let families: FamilyPolicy = context
                .policy()
                .families()
                .filter(|family| allowed.allows(*family))
                .collect();
            let mut approved = context.clone().with_policy(families);
            if let Some(caller) = &call.caller {
                approved = approved.with_caller(caller.as_str());
            }
            registry
                .dispatch_approved(&approved, &call.tool, call.arguments.clone())
                .await
        } else {
            let message = decision.message.as_deref().unwrap_or("no reason given");
            let result = ToolResult::from_error(
                call.tool.clone(),
                ToolError::new(
                    ToolErrorKind::new("approval_denied"),
                    format!("the operator denied this call: {message}"),
                )
                .with_details(json!({
                    "approval_id": call.id,
                    "operator_message": decision.message,
                }))
                .with_hint(
                    "do not repeat the call as it was; take the operator's message into account",
                ),
            );
            if let Some(observer) = context.observer() {
                observe(observer, context, &call, &result, Decision::Denied);
            }
            result
        };
        let envelope = serde_json::to_value(&result).unwrap_or(Value::Null);
        if let Err(error) = self.store.record_outcome(&call.id, &envelope) {
            eprintln!(
                "holon: the outcome of approval {} could not be stored: {error}",
                call.id
            );
        }
        result
    }
}

/// The site of a call made now in `context`, when its host names one.
fn site_of(context: &ToolContext) -> Result<Option<CallSite>, ToolError> {
    let Ok(source) = context.state::<CallSiteSource>() else {
        return Ok(None);
    };
    source.current().map(Some).map_err(|why| {
        refusal(
            "call_site_unknown",
            format!("the workspace and state directory of this call cannot be identified: {why}"),
            "check that the workspace root and the state directory exist and can be opened, then retry",
        )
    })
}

/// Why the call `id`, asked at `asked`, may not run `here`: the error kind, the
/// message and the hint; `None` when the sites are one.
fn site_mismatch(
    id: &str,
    asked: Option<&CallSite>,
    here: Option<&CallSite>,
) -> Option<(&'static str, String, String)> {
    let deny = format!("deny it (`holon-tools approvals deny {id}`)");
    match (asked, here) {
        (None, None) => None,
        (Some(asked), Some(here)) if asked.workspace != here.workspace => Some((
            "approval_workspace_mismatch",
            format!(
                "the call `{id}` was asked in the workspace {} and would run in {}",
                asked.workspace, here.workspace
            ),
            format!(
                "approve it where it was asked: `holon-tools --workspace {} approvals approve {id}`, or {deny}",
                asked.workspace.path
            ),
        )),
        (Some(asked), Some(here)) if asked.state_dir != here.state_dir => Some((
            "approval_state_dir_mismatch",
            format!(
                "the call `{id}` was asked with the state directory {} and would run with {}",
                describe_state(asked),
                describe_state(here)
            ),
            format!(
                "approve it with the state directory it was asked with{}, or {deny}",
                asked
                    .state_dir
                    .as_ref()
                    .map(|dir| format!(" (`--state-dir {}`)", dir.path))
                    .unwrap_or_default()
            ),
        )),
        (Some(_), Some(_)) => None,
        (Some(asked), None) => Some((
            "approval_workspace_mismatch",
            format!(
                "the call `{id}` was asked in the workspace {}, and this host names no workspace to check it against",
                asked.workspace
            ),
            format!("approve it from `holon-tools` on the workspace it was asked in, or {deny}"),
        )),
        (None, Some(_)) => Some((
            "approval_site_unknown",
            format!(
                "the call `{id}` was stored without the workspace it was asked in, so where it may run is unknown"
            ),
            format!("{deny}; the model can make the call again, and that one can be approved"),
        )),
    }
}

/// The state directory of `site`, for a message.
fn describe_state(site: &CallSite) -> String {
    site.state_dir
        .as_ref()
        .map_or_else(|| "none (in memory)".to_string(), ToString::to_string)
}

/// Who decided the call a context carries out: the [`SignedDecision::decided_by`]
/// of the operator's decision, put into the context of the approved (or denied) call
/// so that its audit record names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecidedBy(pub String);

/// The standing grant `decision` adds, naming who granted it.
fn grant_of(call: &PendingCall, decision: &SignedDecision) -> Option<Rule> {
    let rule = Rule::new(Verdict::Allow)
        .for_tool(call.tool.clone())
        .because(format!(
            "granted by {} with approval {}",
            decision.decided_by, call.id
        ))
        .granted_by(decision.decided_by.clone());
    match decision.standing {
        Standing::Once => None,
        Standing::Session => call
            .session
            .clone()
            .map(|session| rule.for_session(session)),
        Standing::Principal => Some(rule.for_principal(call.principal.clone())),
    }
}

/// Tells `observer` of a decision on `call` that ran nothing.
fn observe(
    observer: &dyn DispatchObserver,
    context: &ToolContext,
    call: &PendingCall,
    result: &ToolResult,
    decision: Decision,
) {
    // A `Value` always serializes: its keys are strings.
    let input = serde_json::to_string(&call.arguments).unwrap_or_default();
    observer.record(&Execution {
        requested_name: &call.tool,
        input_json: &input,
        result,
        started_at: SystemTime::now(),
        elapsed: Duration::ZERO,
        context,
        decision,
        granted_by: None,
    });
}

/// The `deferred` envelope of the asked `call`.
fn deferred_result(tool: &'static str, call: PendingCall) -> ToolResult {
    let id = call.id.clone();
    let required = ApprovalRequired {
        approval_id: call.id,
        tool: call.tool,
        arguments: call.arguments,
        arguments_sha256: call.arguments_sha256,
        principal: call.principal,
        caller: call.caller,
        reason: call.reason,
        expires_at_ms: call.expires_at_ms,
    };
    let mut result = ToolResult::deferred(tool);
    let extras = result.extras_mut();
    extras.summary = Some(format!("{tool} deferred: approval_required ({id})"));
    extras.directive = Some(format!(
        "the operator's decision on approval {id}; nothing has run yet. Once the operator approves it, make the same call again: that runs it"
    ));
    extras.deferral = Some(Deferral::ApprovalRequired(required));
    result
}
