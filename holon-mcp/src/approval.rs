//! A call the host's policy asks about, put to the client's user as an elicitation
//! when the client can ask: accept runs the stored call once, decline or cancel is the
//! typed denial, both through the same signed, single-use decision the operator's CLI
//! makes. A client that cannot ask gets the deferred `approval_required` envelope, and
//! the host decides out of band (`holon-tools approvals approve ID`; the approved call runs
//! when the client makes it again).
//!
//! The decision names who made it ([`decided_by`]): the client's user, as
//! `mcp-elicitation:<principal id>` when the request was authenticated, else
//! `mcp-elicitation:session:<session id>`, else `mcp-elicitation:unauthenticated`.

use holon_core::{
    ApprovalRequired, AskedCalls, ClientCapability, ClientPeer, Deferral, ElicitationRequest,
    ElicitationResponse, Principal, Registry, SessionId, ToolContext, ToolResult,
};
use std::sync::Arc;

use serde_json::{Map, json};

/// The elicitation's key within its call: the approval's id, so that under 2026-07-28
/// the answer of one round is the answer on the retried call (the gate gives a call
/// asked again while pending the same approval), and only there: once that approval
/// is decided, the same call asks anew, and a replayed round answers nothing.
fn approval_key(asked: &ApprovalRequired) -> String {
    format!("approval-{}", asked.approval_id)
}

/// `result`, or, when it defers the call for approval and the client can ask its
/// user, the outcome of the user's decision.
pub(crate) async fn resolve(
    registry: &Registry,
    context: &ToolContext,
    client: &dyn ClientPeer,
    result: ToolResult,
) -> ToolResult {
    let (Some(Deferral::ApprovalRequired(asked)), Ok(approvals)) =
        (result.deferral(), context.state::<Arc<dyn AskedCalls>>())
    else {
        return result;
    };
    if !client.supports(ClientCapability::Elicitation) {
        return result;
    }
    let asked = asked.clone();
    // Nothing to fill in: the answer is the action, accept or decline.
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), json!({}));
    let request = ElicitationRequest::new(message(&asked), schema).with_key(approval_key(&asked));
    let approve = match client.elicit(request).await {
        Ok(ElicitationResponse::Accept(_)) => true,
        Ok(ElicitationResponse::Decline | ElicitationResponse::Cancel) => false,
        // Not asked (say, the client failed to answer): the call stays deferred, and
        // the operator can still decide it.
        Err(_) => return result,
    };
    let note = (!approve).then(|| "declined by the user of the MCP client".to_string());
    let by = decided_by(context);
    let decided = approvals
        .decide_once(registry, context, &asked, approve, note, &by)
        .await;
    decided.unwrap_or_else(|error| ToolResult::from_error(asked.tool.clone(), error))
}

/// Who answered an elicitation in `context`: the client's user, named by the
/// authenticated principal, else by the session, else as unauthenticated.
pub(crate) fn decided_by(context: &ToolContext) -> String {
    if let Ok(principal) = context.state::<Principal>() {
        return format!("mcp-elicitation:{}", principal.id());
    }
    match context.state::<SessionId>() {
        Ok(session) => format!("mcp-elicitation:session:{}", session.as_str()),
        Err(_) => "mcp-elicitation:unauthenticated".to_string(),
    }
}

/// What the user is shown: the call, who it is for, and why the policy asks.
fn message(asked: &ApprovalRequired) -> String {
    let arguments = serde_json::to_string_pretty(&asked.arguments)
        .unwrap_or_else(|_| asked.arguments.to_string());
    let caller = asked
        .caller
        .as_deref()
        .map(|caller| format!(" (caller `{caller}`)"))
        .unwrap_or_default();
    format!(
        "Allow the tool call `{tool}` for `{principal}`{caller}?\n\
         Why this is asked: {reason}\n\
         Arguments:\n{arguments}\n\
         Accept runs it once; decline refuses it.",
        tool = asked.tool,
        principal = asked.principal,
        reason = asked.reason,
    )
}
