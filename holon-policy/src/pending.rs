//! A call the policy asked about, and where it waits for the operator.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use holon_core::ToolCapabilityFamily;

use crate::rules::Rule;
use crate::signing::SignedDecision;
use crate::site::CallSite;

/// Where a stored call is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    /// Waiting for the operator, or approved out of band and waiting for the caller to
    /// make the call again, which runs it (see [`PendingCall::approval`]).
    Pending,
    /// Approved and claimed: it ran (or is running); its outcome is recorded when it ends.
    Approved,
    /// Denied: it never runs.
    Denied,
}

impl ApprovalState {
    /// The snake_case wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Approved => "approved",
            Self::Denied => "denied",
        }
    }

    /// The state named `name`, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        [Self::Pending, Self::Approved, Self::Denied]
            .into_iter()
            .find(|state| state.as_str() == name)
    }
}

/// A call the policy asked about: exactly what will run, for whom, and why it asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingCall {
    /// The approval id (128 random bits, hex).
    pub id: String,
    /// The tool's canonical name.
    pub tool: String,
    /// The arguments, as they will be given to the tool.
    pub arguments: Value,
    /// SHA-256 (hex) of the arguments' canonical form, fixed when the call was asked.
    pub arguments_sha256: String,
    /// Who the call is for (see [`CallFacts::principal`](super::CallFacts::principal)).
    pub principal: String,
    /// The caller's id (an agent), when the context named one.
    pub caller: Option<String>,
    /// The session the call came in, when the transport has sessions.
    pub session: Option<String>,
    /// The families the caller was allowed; the approved call runs under them.
    pub families: Vec<ToolCapabilityFamily>,
    /// Where it was asked, and so where an approval may run it; `None` for a host
    /// that names no site (and for a call stored before sites were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<CallSite>,
    /// Why the policy asked.
    pub reason: String,
    /// When the call was asked, ms since the Unix epoch.
    pub created_at_ms: i64,
    /// After this (ms since the Unix epoch) the call can no longer be approved.
    pub expires_at_ms: i64,
    /// Where it is in its life.
    pub state: ApprovalState,
    /// The operator's message with the decision.
    pub message: Option<String>,
    /// Who decided it (the signed decision's `decided_by`), once it is decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The result envelope of the approved run, or the denial, once there is one.
    pub outcome: Option<Value>,
    /// The operator's signed approval, stored out of band (`holon-tools approvals
    /// approve`) while the call is still pending: the runtime that asked runs the call
    /// when its caller makes it again, after checking this decision and claiming it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<SignedDecision>,
}

impl PendingCall {
    /// Whether `other` is the same call as this one, asked again: the same tool,
    /// arguments (digest), principal, caller, session, families and site. A pending call
    /// bound like a new one is reused for it (see [`ApprovalStore::find_pending`]).
    pub fn binds_like(&self, other: &PendingCall) -> bool {
        self.tool == other.tool
            && self.arguments_sha256 == other.arguments_sha256
            && self.principal == other.principal
            && self.caller == other.caller
            && self.session == other.session
            && self.families == other.families
            && self.site == other.site
    }

    /// The operator's approval of this call when it waits for its caller to make the
    /// call again: pending, with an approval stored out of band.
    pub fn approved_awaiting_retry(&self) -> Option<&SignedDecision> {
        self.approval
            .as_ref()
            .filter(|decision| decision.approve && self.state == ApprovalState::Pending)
    }

    /// Whether the operator can still decide it at `now_ms`: pending and unexpired.
    pub fn is_open_at(&self, now_ms: i64) -> bool {
        self.state == ApprovalState::Pending && now_ms < self.expires_at_ms
    }
}

/// Why an [`ApprovalStore`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the approval store failed: {0}")]
pub struct ApprovalStoreError(pub String);

/// Where pending calls and the operator's standing grants are kept. The runtime
/// keeps them in its SQLite store, so they survive a restart and are shared by every
/// process on the state directory; [`MemoryApprovalStore`] keeps them in memory.
///
/// [`ApprovalStore::claim`] is what makes a decision single-use: of any number of
/// concurrent claims of one call (threads, processes), exactly one succeeds.
pub trait ApprovalStore: Send + Sync {
    /// Stores a new pending call.
    fn insert(&self, call: &PendingCall) -> Result<(), ApprovalStoreError>;

    /// The call `id`, if there is one.
    fn get(&self, id: &str) -> Result<Option<PendingCall>, ApprovalStoreError>;

    /// Every stored call, newest first.
    fn list(&self) -> Result<Vec<PendingCall>, ApprovalStoreError>;

    /// The newest call that [binds like](PendingCall::binds_like) `like` and is still
    /// open (pending, unexpired) at `now_ms`, if one is stored. (The dispatcher
    /// looks and stores in one step, [`ApprovalStore::insert_unless_pending`].) The
    /// default reads [`ApprovalStore::list`]; a store with an index does better.
    fn find_pending(
        &self,
        like: &PendingCall,
        now_ms: i64,
    ) -> Result<Option<PendingCall>, ApprovalStoreError> {
        Ok(self
            .list()?
            .into_iter()
            .find(|call| call.is_open_at(now_ms) && call.binds_like(like)))
    }

    /// Stores `call` as pending unless a call that [binds like](PendingCall::binds_like)
    /// it is still open at `now_ms`, as one atomic step: of any number of identical
    /// calls asked at once (threads, processes), one is stored and every other gets
    /// it. Returns the stored call: the open one found, else `call`.
    fn insert_unless_pending(
        &self,
        call: &PendingCall,
        now_ms: i64,
    ) -> Result<PendingCall, ApprovalStoreError>;

    /// Moves the call `id` from `pending` to `to` with the operator's `message` and
    /// who decided (`decided_by`), if and only if it is pending now, atomically:
    /// whether this claim did it.
    fn claim(
        &self,
        id: &str,
        to: ApprovalState,
        message: Option<&str>,
        decided_by: &str,
    ) -> Result<bool, ApprovalStoreError>;

    /// Stores the operator's signed `approval` on the call `id` if and only if it is
    /// pending with no approval stored yet, atomically: whether this did it. Nothing
    /// runs: the call stays pending until its caller makes it again and a claim
    /// ([`ApprovalStore::claim`]) takes it.
    fn store_approval(
        &self,
        id: &str,
        approval: &SignedDecision,
    ) -> Result<bool, ApprovalStoreError>;

    /// Records the outcome (a result envelope) of the claimed call `id`.
    fn record_outcome(&self, id: &str, outcome: &Value) -> Result<(), ApprovalStoreError>;

    /// Adds a standing grant of the operator (an `allow` rule).
    fn add_grant(&self, rule: &Rule) -> Result<(), ApprovalStoreError>;

    /// The standing grants, oldest first.
    fn grants(&self) -> Result<Vec<Rule>, ApprovalStoreError>;
}

/// An [`ApprovalStore`] in memory: for tests and hosts without durable state.
#[derive(Debug, Default)]
pub struct MemoryApprovalStore {
    inner: Mutex<Memory>,
}

#[derive(Debug, Default)]
struct Memory {
    calls: HashMap<String, PendingCall>,
    grants: Vec<Rule>,
}

impl MemoryApprovalStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ApprovalStore for MemoryApprovalStore {
    fn insert(&self, call: &PendingCall) -> Result<(), ApprovalStoreError> {
        let mut memory = self.memory();
        if memory.calls.contains_key(&call.id) {
            return Err(ApprovalStoreError(format!(
                "an approval with the id {} exists already",
                call.id
            )));
        }
        memory.calls.insert(call.id.clone(), call.clone());
        Ok(())
    }

    fn get(&self, id: &str) -> Result<Option<PendingCall>, ApprovalStoreError> {
        Ok(self.memory().calls.get(id).cloned())
    }

    fn insert_unless_pending(
        &self,
        call: &PendingCall,
        now_ms: i64,
    ) -> Result<PendingCall, ApprovalStoreError> {
        // One lock over the lookup and the insert.
        let mut memory = self.memory();
        let open = memory
            .calls
            .values()
            .filter(|stored| stored.is_open_at(now_ms) && stored.binds_like(call))
            .max_by(|a, b| a.created_at_ms.cmp(&b.created_at_ms).then(a.id.cmp(&b.id)));
        if let Some(open) = open {
            return Ok(open.clone());
        }
        if memory.calls.contains_key(&call.id) {
            return Err(ApprovalStoreError(format!(
                "an approval with the id {} exists already",
                call.id
            )));
        }
        memory.calls.insert(call.id.clone(), call.clone());
        Ok(call.clone())
    }

    fn list(&self) -> Result<Vec<PendingCall>, ApprovalStoreError> {
        let mut calls: Vec<_> = self.memory().calls.values().cloned().collect();
        calls.sort_by(|a, b| b.created_at_ms.cmp(&a.created_at_ms).then(b.id.cmp(&a.id)));
        Ok(calls)
    }

    fn claim(
        &self,
        id: &str,
        to: ApprovalState,
        message: Option<&str>,
        decided_by: &str,
    ) -> Result<bool, ApprovalStoreError> {
        let mut memory = self.memory();
        match memory.calls.get_mut(id) {
            Some(call) if call.state == ApprovalState::Pending => {
                call.state = to;
                call.message = message.map(str::to_string);
                call.decided_by = Some(decided_by.to_string());
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn store_approval(
        &self,
        id: &str,
        approval: &SignedDecision,
    ) -> Result<bool, ApprovalStoreError> {
        let mut memory = self.memory();
        match memory.calls.get_mut(id) {
            Some(call) if call.state == ApprovalState::Pending && call.approval.is_none() => {
                call.approval = Some(approval.clone());
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn record_outcome(&self, id: &str, outcome: &Value) -> Result<(), ApprovalStoreError> {
        if let Some(call) = self.memory().calls.get_mut(id) {
            call.outcome = Some(outcome.clone());
        }
        Ok(())
    }

    fn add_grant(&self, rule: &Rule) -> Result<(), ApprovalStoreError> {
        self.memory().grants.push(rule.clone());
        Ok(())
    }

    fn grants(&self) -> Result<Vec<Rule>, ApprovalStoreError> {
        Ok(self.memory().grants.clone())
    }
}
