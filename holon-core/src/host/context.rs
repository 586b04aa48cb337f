//! The context a call runs in, and the call itself.

use std::any::{TypeId, type_name};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::family::{FamilyPolicy, ToolCapabilityFamily};
use crate::host::cancel::Cancellation;
use crate::host::progress::{Progress, ProgressSink};
use crate::host::states::States;
use crate::meta::ToolAnnotations;
use crate::result::ToolResult;
use crate::result::error::{ToolError, ToolErrorKind};

/// Sees every dispatch that goes through a context, after it finished, whatever the
/// outcome: a host uses it to record tool executions.
pub trait DispatchObserver: Send + Sync {
    /// Called once per call with what was asked and what came of it.
    fn record(&self, execution: &Execution<'_>);
}

/// One finished call, as a [`DispatchObserver`] sees it.
#[derive(Debug)]
pub struct Execution<'a> {
    /// The name the caller used (may be an alias or unknown).
    pub requested_name: &'a str,
    /// The input as the caller sent it, serialized before it was parsed.
    pub input_json: &'a str,
    /// The result returned to the caller.
    pub result: &'a ToolResult,
    /// When the call started.
    pub started_at: std::time::SystemTime,
    /// How long the call took.
    pub elapsed: std::time::Duration,
    /// The context the call ran in: its caller, and the request's [`Principal`] and
    /// [`SessionId`](crate::SessionId) as states where the transport set them.
    ///
    /// [`Principal`]: crate::Principal
    pub context: &'a ToolContext,
    /// What the context's [`CallGate`] (and the operator) made of the call.
    pub decision: Decision,
    /// Who allowed an [allowed](Decision::Allowed) call: the author of the standing
    /// grant that let it run ([`GateAnswer::Run`]), if one did.
    pub granted_by: Option<&'a str>,
}

/// What the policy and the operator made of one call, as an audit record keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The call went on to its tool without asking: no policy, an `allow` rule, or a
    /// standing grant ("always") of the operator.
    Allowed,
    /// The policy asked: the call is stored, pending, and nothing ran.
    Asked,
    /// The operator approved the stored call, and it ran.
    Approved,
    /// The operator denied the stored call; nothing ran.
    Denied,
    /// The call was refused before anything ran: a `deny` rule, the family gate, a
    /// name that is no tool, or an approval that does not hold (forged, replayed,
    /// expired, for other arguments or another principal).
    Refused,
}

impl Decision {
    /// The snake_case wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allowed => "allowed",
            Self::Asked => "asked",
            Self::Approved => "approved",
            Self::Denied => "denied",
            Self::Refused => "refused",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A host's gate on the calls a caller makes (an approval policy): the dispatcher
/// consults it on every call through a context that has one
/// ([`ToolContext::with_call_gate`]), after the lookup and the family gate and before
/// anything of the tool runs. A call the operator approved is dispatched with
/// [`Registry::dispatch_approved`](crate::Registry::dispatch_approved), which does not
/// consult it again. The `holon-policy` crate's `Approvals` is one.
pub trait CallGate: Send + Sync {
    /// Whether `tool`, called in `context`, runs, is refused or is asked about.
    fn consult(&self, tool: &GatedTool<'_>, context: &ToolContext) -> GateAnswer;

    /// Keeps a call the gate asked about (its `arguments` passed every input check)
    /// for the operator, and returns its `deferred` envelope; `why` is the reason
    /// [`GateAnswer::Ask`] gave.
    fn defer(
        &self,
        tool: &GatedTool<'_>,
        context: &ToolContext,
        arguments: Value,
        why: String,
    ) -> ToolResult;
}

/// The tool a call resolved to, as a [`CallGate`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct GatedTool<'a> {
    /// The canonical name (an alias the caller used is resolved).
    pub name: &'static str,
    /// Its capability family.
    pub family: ToolCapabilityFamily,
    /// Its behaviour hints.
    pub annotations: &'a ToolAnnotations,
}

/// A [`CallGate`]'s answer to one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateAnswer {
    /// The call runs; `granted_by` names the author of the standing grant that let it,
    /// if one did (the audit record names them).
    Run {
        /// The grant's author.
        granted_by: Option<String>,
    },
    /// The call is refused with `policy_denied`, and nothing runs.
    Refuse {
        /// Why, for the caller.
        why: String,
    },
    /// Nothing runs: once its input passes every check, the call goes to
    /// [`CallGate::defer`] and the caller gets the `deferred` envelope.
    Ask {
        /// Why the operator is asked.
        why: String,
    },
}

/// The context of a call: who calls, which families they may use, and the state the
/// host shares with handlers. Handlers take `&ToolContext` or `&T` for any state `T`
/// put in with [`ToolContext::with_state`]. Cloning is cheap (states are shared).
///
/// The run-time handles of one call are set per call on a clone: its
/// [`Cancellation`] ([`ToolContext::with_cancellation`]), its [`Progress`] sink
/// ([`ToolContext::with_progress`]) and a time limit ([`ToolContext::with_timeout`]).
#[derive(Clone)]
pub struct ToolContext {
    policy: FamilyPolicy,
    caller: Option<Arc<str>>,
    runtime_access: bool,
    states: States,
    observer: Option<Arc<dyn DispatchObserver>>,
    call_gate: Option<Arc<dyn CallGate>>,
    cancellation: Cancellation,
    progress: Progress,
    timeout: Option<Duration>,
}

impl ToolContext {
    /// A context with `policy` and no state.
    pub fn new(policy: FamilyPolicy) -> Self {
        Self {
            policy,
            caller: None,
            runtime_access: false,
            states: States::default(),
            observer: None,
            call_gate: None,
            cancellation: Cancellation::default(),
            progress: Progress::default(),
            timeout: None,
        }
    }

    /// Adds a state value that handlers take as `&T`.
    pub fn with_state<T: Send + Sync + 'static>(self, value: T) -> Self {
        self.with_shared_state(Arc::new(value))
    }

    /// Adds a state value shared with the host.
    pub fn with_shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.states.insert(TypeId::of::<T>(), value);
        self
    }

    /// Names the caller (an agent id), for handlers and receipts.
    pub fn with_caller(mut self, caller: impl Into<Arc<str>>) -> Self {
        self.caller = Some(caller.into());
        self
    }

    /// Replaces the family policy.
    pub fn with_policy(mut self, policy: FamilyPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Marks the caller as the runtime itself, which may dispatch runtime-only tools
    /// (`visibility = runtime`). Contexts for model calls must not set this.
    pub fn with_runtime_access(mut self) -> Self {
        self.runtime_access = true;
        self
    }

    /// Attaches an observer that sees every dispatch.
    pub fn with_observer(mut self, observer: Arc<dyn DispatchObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Puts every call through this context under `gate` (see [`CallGate`]).
    pub fn with_call_gate(mut self, gate: Arc<dyn CallGate>) -> Self {
        self.call_gate = Some(gate);
        self
    }

    /// The gate calls through this context are under, if any.
    pub fn call_gate(&self) -> Option<&dyn CallGate> {
        self.call_gate.as_deref()
    }

    /// Makes calls through this context end with a `cancelled` error as soon as
    /// `token` is cancelled: the dispatcher drops the handler's future, and the
    /// handler's [`Cancellation`] fires. One token per call.
    pub fn with_cancellation(mut self, token: impl Into<Cancellation>) -> Self {
        self.cancellation = token.into();
        self
    }

    /// Sends the progress handlers report to `sink`. One sink per call.
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.progress = Progress::new(sink);
        self
    }

    /// Limits calls through this context to `limit`, in place of the tool's own
    /// `timeout_ms`: past it a call ends with `tool_timed_out` and is cancelled.
    /// Timing needs a Tokio runtime with its timer enabled.
    pub fn with_timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// The call's cancellation handle.
    pub fn cancellation(&self) -> &Cancellation {
        &self.cancellation
    }

    /// The call's progress handle (a no-op unless the host installed a sink).
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// The host's time limit for calls through this context, if it set one.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The caller's family policy.
    pub fn policy(&self) -> FamilyPolicy {
        self.policy
    }

    /// The caller's id, if set.
    pub fn caller(&self) -> Option<&str> {
        self.caller.as_deref()
    }

    /// Whether the runtime itself is calling.
    pub fn has_runtime_access(&self) -> bool {
        self.runtime_access
    }

    /// The observer that sees every dispatch through this context, if any.
    pub fn observer(&self) -> Option<&dyn DispatchObserver> {
        self.observer.as_deref()
    }

    /// The state of type `T`, or a `missing_context` error naming the type. A state
    /// put in as an `Arc<T>` (`with_state(Arc::new(store))`) is found as `T` too.
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        self.states
            .get(TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
            .or_else(|| {
                self.states
                    .get(TypeId::of::<Arc<T>>())
                    .and_then(|value| value.downcast_ref::<Arc<T>>())
                    .map(|shared| &**shared)
            })
            .ok_or_else(|| {
                ToolError::new(
                    ToolErrorKind::MISSING_CONTEXT,
                    format!(
                        "this tool needs a `{}` in its context, and the host did not provide one",
                        type_name::<T>()
                    ),
                )
                .with_hint(format!(
                    "the host must build its context with `.with_state(...)` of a `{}`",
                    type_name::<T>()
                ))
            })
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("policy", &self.policy)
            .field("caller", &self.caller)
            .field("runtime_access", &self.runtime_access)
            .field("states", &self.states.len())
            .field("cancelled", &self.cancellation.is_cancelled())
            .field("progress", &self.progress.is_enabled())
            .field("timeout", &self.timeout)
            .field("call_gate", &self.call_gate.is_some())
            .finish_non_exhaustive()
    }
}

/// One call: the tool's name (or alias) and its input. The input is a JSON object, or
/// a JSON string holding raw text for a tool with a freeform grammar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Tool name or alias.
    pub name: String,
    /// The arguments.
    #[serde(default = "empty_object")]
    pub input: Value,
    /// The caller's id for this call, echoed in the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

impl ToolCall {
    /// A call of `name` with `input`.
    pub fn new(name: impl Into<String>, input: Value) -> Self {
        Self {
            name: name.into(),
            input,
            call_id: None,
        }
    }

    /// A freeform call: `text` is the raw input for the tool's grammar.
    pub fn freeform(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(name, Value::String(text.into()))
    }

    /// Sets the call id echoed in the result.
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }
}
