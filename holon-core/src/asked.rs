//! [`AskedCalls`]: how a host other than the operator's own tooling (an MCP server whose
//! client can ask its user) decides a call its [`CallGate`](crate::CallGate) asked about,
//! without depending on the crate that implements the gate.

use std::future::Future;
use std::pin::Pin;

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::registry::Registry;
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
}
