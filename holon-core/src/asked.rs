//! [`AskedCalls`]: how a host other than the operator's own tooling (an MCP server whose
//! client can ask its user) decides a call its [`CallGate`](crate::CallGate) asked about,
//! and how the dispatcher runs a call the operator approved out of band when it is made
//! again, without depending on the crate that implements the gate.

use std::future::Future;
use std::pin::Pin;

use crate::host::context::ToolContext;
use crate::registry::Registry;
use crate::result::error::ToolError;
use crate::result::{ApprovalRequired, ToolResult};

/// The future of [`AskedCalls::decide_once`].
pub type DecisionFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ToolResult, ToolError>> + Send + 'a>>;

/// Decides a call a gate asked about, once: the operator's decision, made by someone the
/// host trusts to make it (the user of an MCP client, asked by elicitation). A gate that
/// asks puts itself into the context as a state `Arc<dyn AskedCalls>` (holon-policy's
/// `with_approvals` does), where the host finds it.
pub trait AskedCalls: Send + Sync {
    /// Decides `asked`, deferred by the gate: approved, it runs once and its result is
    /// returned; denied, the result is the `approval_denied` refusal carrying `note`.
    /// `decided_by` names who decided, for the audit record. A decision that does not
    /// hold (the call was decided already, or expired) is an error whose kind says why,
    /// and nothing runs.
    fn decide_once<'a>(
        &'a self,
        registry: &'a Registry,
        context: &'a ToolContext,
        asked: &'a ApprovalRequired,
        approve: bool,
        note: Option<String>,
        decided_by: &'a str,
    ) -> DecisionFuture<'a>;

    /// The run of `asked`, which the gate deferred just now, when the operator approved
    /// this very call already out of band (`holon-tools approvals approve` stores the
    /// signed decision and runs nothing): the call runs here, in the context of the
    /// caller who asked again, once whatever runs concurrently. `None` when no approval
    /// waits for it, and the deferral is the answer. The dispatcher awaits the future
    /// in place of the deferral; the run (or its refusal) is observed by the gate's own
    /// dispatch, so the dispatcher does not record the call again.
    fn approved_run<'a>(
        &'a self,
        registry: &'a Registry,
        context: &'a ToolContext,
        asked: &'a ApprovalRequired,
    ) -> Option<DecisionFuture<'a>> {
        let _ = (registry, context, asked);
        None
    }
}
