//! How the server runs a `tools/call` as a task: whether it does, whose task it is,
//! and what the task ends in.

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;

use holon_core::{
    Principal, TaskSupport, ToolCall, ToolContext, ToolDefinition, ToolErrorKind, ToolResult,
};
use http::request::Parts;
use rmcp::model::{CallToolResponse, ClientCapabilities};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::handoff::{Dispatch, HandoffClient, InRequest, run_in_request};
use super::input::TaskClient;
use super::record::{TaskOwner, TaskState};
use super::runner::{Tasks, failed_state};
use crate::content;
use crate::context::SESSION_HEADER;
use crate::rounds::{InputRounds, StateSeal};
use crate::server::{ServedRegistry, missing_capability};

/// Whose task a request creates or reaches: its authenticated principal, else its
/// session, else the anonymous owner.
pub(crate) fn owner_of(request: &RequestContext<RoleServer>) -> TaskOwner {
    let parts = request.extensions.get::<Parts>();
    if let Some(principal) = parts.and_then(|parts| parts.extensions.get::<Principal>()) {
        return TaskOwner::principal(principal.id());
    }
    let session = parts
        .and_then(|parts| parts.headers.get(SESSION_HEADER))
        .and_then(|value| value.to_str().ok());
    match session {
        Some(session) => TaskOwner::session(session),
        None => TaskOwner::anonymous(),
    }
}

/// Whether a call of `definition` runs as a task: when the tool allows it and the
/// request declares the extension. A `task = required` tool called without it is
/// refused with `-32021`, naming the capability it needs.
pub(crate) fn run_as_task(
    definition: &ToolDefinition,
    request: &RequestContext<RoleServer>,
) -> Result<bool, ErrorData> {
    if definition.task == TaskSupport::Forbidden {
        return Ok(false);
    }
    let declared = request
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks());
    match (declared, definition.task) {
        (true, _) => Ok(true),
        (false, TaskSupport::Required) => {
            let mut error = ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            );
            error.message = format!(
                "`{}` runs as a task only: declare the `io.modelcontextprotocol/tasks` extension in the client's capabilities",
                definition.name()
            )
            .into();
            Err(error)
        }
        (false, _) => Ok(false),
    }
}

/// A `tools/call` about to run as a task.
pub(crate) struct TaskCall {
    /// The registry that dispatches it.
    pub(crate) registry: ServedRegistry,
    /// The tool called.
    pub(crate) definition: ToolDefinition,
    /// The call.
    pub(crate) call: ToolCall,
    /// The call's context, as for a call within the request.
    pub(crate) context: ToolContext,
    /// Where relative artifact paths are.
    pub(crate) workspace: Option<PathBuf>,
}

impl TaskCall {
    /// Creates the task and starts the call in it; the answer is its handle.
    pub(crate) fn start(
        self,
        tasks: &Arc<Tasks>,
        request: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (sampling, elicitation) = declared_inputs(request);
        let tool = self.definition.name().to_string();
        let created = tasks.start(owner_of(request), &tool, move |live| {
            let client = TaskClient::new(live.clone(), sampling, elicitation);
            // The task outlives the request: the request's own cancellation (its
            // end) no longer stops it; `tasks/cancel` does.
            let context = self
                .context
                .with_client(Arc::new(client))
                .with_cancellation(live.cancellation().clone());
            async move {
                let result = self.registry.dispatch(&context, self.call).await;
                final_state(&self.definition, result, self.workspace)
            }
        })?;
        Ok(CallToolResponse::Task(created))
    }
}

impl TaskCall {
    /// Under MCP 2026-07-28: runs the call within the request while its handler
    /// gathers input before it escalates (see [`super::handoff`]), and as a task
    /// from there; `rounds` is the request's client, its `requestState` sealed with
    /// `seal` for `binding`.
    pub(crate) async fn start_after_input(
        self,
        tasks: &Arc<Tasks>,
        request: &RequestContext<RoleServer>,
        rounds: InputRounds,
        seal: &StateSeal,
        binding: &[u8],
    ) -> Result<CallToolResponse, ErrorData> {
        let (sampling, elicitation) = declared_inputs(request);
        let client = Arc::new(HandoffClient::new(Arc::new(rounds)));
        // The call's own token, not the request's: the request's end must not stop
        // the call once it is a task (then `tasks/cancel` fires it). While the call
        // runs within the request, the request's cancellation fires it, and so does
        // the request's end (the guard) unless the call went on as a task.
        let cancel = CancellationToken::new();
        let in_request = cancel.clone().drop_guard();
        let context = self
            .context
            .with_client(client.clone())
            .with_cancellation(cancel.clone());
        let registry = self.registry.clone();
        let dispatch: Dispatch =
            Box::pin(async move { registry.dispatch(&context, self.call).await });
        // rmcp cancels the request's token (on `notifications/cancelled`, a stateless
        // HTTP client that hangs up, the session's end) but lets the handler run on.
        let forward = async {
            request.ct.cancelled().await;
            cancel.cancel();
            std::future::pending::<Infallible>().await
        };
        let ended = tokio::select! {
            ended = run_in_request(dispatch, &client, seal, binding) => ended,
            never = forward => match never {},
        };
        let dispatch = match ended {
            InRequest::Done(result) => {
                if let Some(missing) = missing_capability(&result) {
                    return Err(missing);
                }
                let result =
                    content::call_result(&self.definition, result, self.workspace.as_deref())?;
                return Ok(result.into());
            }
            InRequest::InputRequired(asked) => return Ok(CallToolResponse::InputRequired(asked)),
            InRequest::Task(dispatch) => dispatch,
        };
        let tool = self.definition.name().to_string();
        let created = tasks.start(owner_of(request), &tool, move |live| {
            client.attach(TaskClient::new(live.clone(), sampling, elicitation));
            let cancelled = live.cancellation().clone();
            async move {
                let forward = async move {
                    cancelled.cancelled().await;
                    cancel.cancel();
                    std::future::pending::<Infallible>().await
                };
                let result = tokio::select! {
                    result = dispatch => result,
                    never = forward => match never {},
                };
                final_state(&self.definition, result, self.workspace)
            }
        })?;
        in_request.disarm();
        Ok(CallToolResponse::Task(created))
    }
}

/// Whether the request declared sampling and elicitation.
fn declared_inputs(request: &RequestContext<RoleServer>) -> (bool, bool) {
    let capabilities = request.client_capabilities();
    let sampling = capabilities
        .as_ref()
        .is_some_and(|capabilities| capabilities.sampling.is_some());
    let elicitation = capabilities
        .as_ref()
        .is_some_and(|capabilities| capabilities.elicitation.is_some());
    (sampling, elicitation)
}

/// The state a task's call ends in: `completed` with its `tools/call` result (a
/// tool error included), or `failed` when it failed below the tool (a panic, a
/// result that cannot be encoded).
fn final_state(
    definition: &ToolDefinition,
    result: ToolResult,
    workspace: Option<PathBuf>,
) -> TaskState {
    if let Some(error) = result
        .error
        .as_deref()
        .filter(|error| error.kind == ToolErrorKind::TOOL_PANICKED)
    {
        return failed_state(-32603, error.message.to_string());
    }
    match content::call_result(definition, result, workspace.as_deref()) {
        Ok(result) => match serde_json::to_value(result) {
            Ok(Value::Object(result)) => TaskState::Completed(result),
            other => failed_state(
                -32603,
                format!("the result could not be encoded: {other:?}"),
            ),
        },
        Err(error) => {
            let mut failure = failed_state(i64::from(error.code.0), error.message.to_string());
            if let (TaskState::Failed(fields), Some(data)) = (&mut failure, error.data) {
                fields.insert("data".into(), json!(data));
            }
            failure
        }
    }
}
