//! A call the policy asked about, and where it waits for the operator.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use holon_core::ToolCapabilityFamily;

use crate::rules::Rule;

/// Where a stored call is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    /// Waiting for the operator.
    Pending,
    /// Approved: it ran (or is running); its outcome is recorded when it ends.
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

/// A directory as the kernel knows it: the canonical path it was opened at, and the
/// device and inode of what was opened there (a path alone can be made to name
/// another directory).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirIdentity {
    /// The canonical path.
    pub path: String,
    /// The device of the directory.
    pub device: u64,
    /// The inode of the directory.
    pub inode: u64,
}

impl fmt::Display for DirIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (device {}, inode {})",
            self.path, self.device, self.inode
        )
    }
}

/// Where a call runs: the workspace root it acts in and the state directory that
/// keeps it. An asked call records its site, the operator's decision is signed over
/// it, and an approval runs the call at that site only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSite {
    /// The active workspace root.
    pub workspace: DirIdentity,
    /// The state directory; `None` when the state is in memory.
    pub state_dir: Option<DirIdentity>,
}

/// How a host names the [`CallSite`] of the calls through a context: read afresh for
/// each call, since a session may switch its workspace between two calls. A host
/// puts it into the context with [`ToolContext::with_state`](holon_core::ToolContext::with_state);
/// without it, calls are asked and approved with no site.
#[derive(Clone)]
pub struct CallSiteSource(Arc<dyn Fn() -> Result<CallSite, String> + Send + Sync>);

impl CallSiteSource {
    /// The source that asks `site` each time; its error says why the site is unknown.
    pub fn new(site: impl Fn() -> Result<CallSite, String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(site))
    }

    /// The site of a call made now.
    pub fn current(&self) -> Result<CallSite, String> {
        (self.0)()
    }
}

impl fmt::Debug for CallSiteSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CallSiteSource(..)")
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
