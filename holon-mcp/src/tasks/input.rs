//! The client as a task's tool reaches it: a request to the client parks the task
//! as `input_required`, and the client's answer comes back through `tasks/update`.

use std::sync::Arc;

use holon_core::{
    ClientCapability, ClientFuture, ClientPeer, ElicitationRequest, ElicitationResponse,
    LogMessage, SamplingRequest, SamplingResponse, ToolError, ToolErrorKind,
};
use rmcp::model::{ElicitResult, ElicitationAction};
use serde_json::{Map, Value, json};

use super::live::LiveTask;
use crate::client::{sampling_params, sampling_response};

/// What a task's tool sees of the client.
pub(crate) struct TaskClient {
    task: Arc<LiveTask>,
    sampling: bool,
    elicitation: bool,
}

impl TaskClient {
    /// The client of `task`, which declared sampling and elicitation (or not) on
    /// the request that created it.
    pub(crate) fn new(task: Arc<LiveTask>, sampling: bool, elicitation: bool) -> Self {
        Self {
            task,
            sampling,
            elicitation,
        }
    }

    /// Parks the task on `method` with `params` until the client answers.
    async fn ask(&self, method: &str, params: Value) -> Result<Value, ToolError> {
        let request = json!({ "method": method, "params": params });
        match self.task.ask(request).await {
            Ok(Some(answer)) => Ok(answer),
            Ok(None) => Err(ToolError::new(
                ToolErrorKind::CANCELLED,
                format!("the task was cancelled while it waited for the client's {method} answer"),
            )),
            Err(error) => Err(ToolError::new(
                ToolErrorKind::INTERNAL_ERROR,
                error.to_string(),
            )),
        }
    }
}

fn bad_answer(what: &str, error: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        ToolErrorKind::CLIENT_REQUEST_FAILED,
        format!("the client's answer to the {what} request is not one: {error}"),
    )
}

impl ClientPeer for TaskClient {
    fn supports(&self, capability: ClientCapability) -> bool {
        match capability {
            ClientCapability::Sampling => self.sampling,
            ClientCapability::Elicitation => self.elicitation,
            // The extension's `inputRequests` carry elicitation and sampling only.
            ClientCapability::Roots => false,
        }
    }

    /// A task has no stream to the client: its log messages are dropped (the
    /// extension's `notifications/tasks` carry status only).
    fn log(&self, _message: LogMessage) -> ClientFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }

    fn create_message(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
        Box::pin(async move {
            let params = sampling_params(&request)?;
            let answer = self.ask("sampling/createMessage", params).await?;
            sampling_response(&answer)
        })
    }

    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let params = json!({
                "mode": "form",
                "message": request.message,
                "requestedSchema": request.requested_schema,
            });
            let answer = self.ask("elicitation/create", params).await?;
            let result: ElicitResult =
                serde_json::from_value(answer).map_err(|error| bad_answer("elicitation", error))?;
            Ok(match result.action {
                ElicitationAction::Accept => match result.content {
                    Some(Value::Object(content)) => ElicitationResponse::Accept(content),
                    None => ElicitationResponse::Accept(Map::new()),
                    Some(other) => {
                        return Err(bad_answer(
                            "elicitation",
                            format!("its content is {other}, not an object"),
                        ));
                    }
                },
                ElicitationAction::Decline => ElicitationResponse::Decline,
                _ => ElicitationResponse::Cancel,
            })
        })
    }
}
