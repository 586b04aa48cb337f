//! The MCP client as holon-core's [`ClientPeer`]: what a handler's `ClientLog`,
//! `Sampling` and `Elicitation` handles reach, over rmcp's peer of the session.
//!
//! Requests and replies go through MCP's wire form (serde) rather than rmcp's
//! constructors: the wire form is what the specification fixes, and rmcp's types
//! check it on the way (an elicitation schema MCP does not allow is refused here,
//! before it reaches the client).

// rmcp marks logging and sampling deprecated for the protocol after 2025-11-25
// (SEP-2577); the protocols this server speaks have them.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use holon_core::{
    ClientCapability, ClientFuture, ClientPeer, ContentBlock, ElicitationRequest,
    ElicitationResponse, LogLevel, LogMessage, Role, SamplingRequest, SamplingResponse, ToolError,
    ToolErrorKind,
};
use holon_export::mcp;
use rmcp::model::{
    CreateMessageRequestParams, ElicitRequestParams, ElicitationAction, LoggingLevel,
    LoggingMessageNotificationParam,
};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use serde_json::{Map, Value, json};

/// The least level a session's client wants log messages of (`logging/setLevel`);
/// every level until it asks.
#[derive(Debug, Default)]
pub(crate) struct SessionLogLevel(AtomicU8);

impl SessionLogLevel {
    /// Sets the least level from the client's `logging/setLevel`.
    pub(crate) fn set(&self, level: LoggingLevel) {
        self.0.store(rank(level_of(level)), Ordering::Relaxed);
    }

    fn admits(&self, level: LogLevel) -> bool {
        rank(level) >= self.0.load(Ordering::Relaxed)
    }
}

fn rank(level: LogLevel) -> u8 {
    level as u8
}

fn level_of(level: LoggingLevel) -> LogLevel {
    // Both name the eight syslog levels in lowercase on the wire.
    serde_json::to_value(level)
        .and_then(serde_json::from_value)
        .unwrap_or(LogLevel::Debug)
}

/// The client of one MCP session, as handlers reach it.
pub(crate) struct McpClient {
    peer: Peer<RoleServer>,
    log_level: Arc<SessionLogLevel>,
}

impl McpClient {
    /// The client behind `peer`, whose session's log level is `log_level`.
    pub(crate) fn new(peer: Peer<RoleServer>, log_level: Arc<SessionLogLevel>) -> Self {
        Self { peer, log_level }
    }
}

fn request_failed(what: &str, error: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        ToolErrorKind::CLIENT_REQUEST_FAILED,
        format!("the client did not answer the {what} request: {error}"),
    )
}

fn unsendable(what: &str, error: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        ToolErrorKind::INTERNAL_ERROR,
        format!("the tool's {what} request is not one MCP can carry: {error}"),
    )
}

impl ClientPeer for McpClient {
    fn supports(&self, capability: ClientCapability) -> bool {
        match capability {
            ClientCapability::Sampling => self
                .peer
                .peer_info()
                .is_some_and(|info| info.capabilities.sampling.is_some()),
            ClientCapability::Elicitation => self
                .peer
                .supported_elicitation_modes()
                .contains(&ElicitationMode::Form),
        }
    }

    fn log(&self, message: LogMessage) -> ClientFuture<'_, ()> {
        Box::pin(async move {
            if !self.log_level.admits(message.level) {
                return Ok(());
            }
            let params: LoggingMessageNotificationParam = serde_json::from_value(json!({
                "level": message.level,
                "logger": message.logger,
                "data": message.data,
            }))
            .map_err(|error| unsendable("log", error))?;
            self.peer
                .notify_logging_message(params)
                .await
                .map_err(|error| request_failed("log", error))
        })
    }

    fn create_message(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
        Box::pin(async move {
            let params: CreateMessageRequestParams =
                serde_json::from_value(sampling_params(&request)?)
                    .map_err(|error| unsendable("sampling", error))?;
            let result = self
                .peer
                .create_message(params)
                .await
                .map_err(|error| request_failed("sampling", error))?;
            let wire =
                serde_json::to_value(&result).map_err(|error| request_failed("sampling", error))?;
            sampling_response(&wire)
        })
    }

    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let params: ElicitRequestParams = serde_json::from_value(json!({
                "mode": "form",
                "message": request.message,
                "requestedSchema": request.requested_schema,
            }))
            .map_err(|error| unsendable("elicitation", error))?;
            let result = self
                .peer
                .create_elicitation(params)
                .await
                .map_err(|error| request_failed("elicitation", error))?;
            Ok(match result.action {
                ElicitationAction::Accept => match result.content {
                    Some(Value::Object(content)) => ElicitationResponse::Accept(content),
                    None => ElicitationResponse::Accept(Map::new()),
                    Some(other) => {
                        return Err(request_failed(
                            "elicitation",
                            format!("its content is {other}, not an object"),
                        ));
                    }
                },
                ElicitationAction::Decline => ElicitationResponse::Decline,
                // Cancel, or an action of a later protocol: nothing was accepted.
                _ => ElicitationResponse::Cancel,
            })
        })
    }
}

/// `sampling/createMessage` params in MCP's wire form.
pub(crate) fn sampling_params(request: &SamplingRequest) -> Result<Value, ToolError> {
    let messages = request
        .messages
        .iter()
        .map(|message| {
            if !matches!(
                message.content,
                ContentBlock::Text { .. } | ContentBlock::Image { .. } | ContentBlock::Audio { .. }
            ) {
                return Err(unsendable(
                    "sampling",
                    "a sampling message holds text, an image or audio",
                ));
            }
            let content = mcp::content_block(&message.content);
            Ok(json!({ "role": message.role, "content": content }))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut params = json!({ "messages": messages, "maxTokens": request.max_tokens });
    if let Some(system_prompt) = &request.system_prompt {
        params["systemPrompt"] = json!(system_prompt);
    }
    if let Some(temperature) = request.temperature {
        params["temperature"] = json!(temperature);
    }
    if !request.stop_sequences.is_empty() {
        params["stopSequences"] = json!(request.stop_sequences);
    }
    Ok(params)
}

/// A `sampling/createMessage` result in MCP's wire form, as holon's response.
pub(crate) fn sampling_response(wire: &Value) -> Result<SamplingResponse, ToolError> {
    let text = |key: &str| wire.get(key).and_then(Value::as_str);
    let role = match text("role") {
        Some("user") => Role::User,
        _ => Role::Assistant,
    };
    // A reply may carry one block or (SEP-1577) a list; the first is the reply.
    let block = match wire.get("content") {
        Some(Value::Array(blocks)) => blocks.first(),
        other => other,
    };
    let field = |key: &str| {
        block
            .and_then(|block| block.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let content = match block
        .and_then(|block| block.get("type"))
        .and_then(Value::as_str)
    {
        Some("text") => ContentBlock::Text {
            text: field("text").unwrap_or_default(),
        },
        Some("image") => ContentBlock::Image {
            mime_type: field("mimeType").unwrap_or_default(),
            data: field("data").unwrap_or_default(),
        },
        Some("audio") => ContentBlock::Audio {
            mime_type: field("mimeType").unwrap_or_default(),
            data: field("data").unwrap_or_default(),
        },
        other => {
            return Err(request_failed(
                "sampling",
                format!(
                    "its reply holds {} content, not text, image or audio",
                    other.unwrap_or("no")
                ),
            ));
        }
    };
    Ok(SamplingResponse {
        role,
        content,
        model: text("model").unwrap_or_default().to_string(),
        stop_reason: text("stopReason").map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_passes_until_the_client_sets_one_then_only_that_and_above() {
        let level = SessionLogLevel::default();
        assert!(level.admits(LogLevel::Debug));
        level.set(LoggingLevel::Warning);
        assert!(!level.admits(LogLevel::Debug));
        assert!(!level.admits(LogLevel::Notice));
        assert!(level.admits(LogLevel::Warning));
        assert!(level.admits(LogLevel::Emergency));
        level.set(LoggingLevel::Debug);
        assert!(level.admits(LogLevel::Debug));
    }

    #[test]
    fn a_sampling_reply_of_one_block_or_a_list_is_read_and_other_content_refused() {
        let reply = sampling_response(&json!({
            "role": "assistant", "model": "m", "stopReason": "endTurn",
            "content": { "type": "text", "text": "hi" }
        }))
        .expect("a reply");
        assert_eq!((reply.text(), reply.model.as_str()), (Some("hi"), "m"));
        let reply = sampling_response(&json!({
            "role": "assistant", "model": "m",
            "content": [{ "type": "image", "data": "AA==", "mimeType": "image/png" }]
        }))
        .expect("a reply");
        assert_eq!(
            reply.content,
            ContentBlock::Image {
                mime_type: "image/png".into(),
                data: "AA==".into()
            }
        );
        let error = sampling_response(&json!({ "role": "assistant", "model": "m",
            "content": { "type": "tool_use", "id": "1", "name": "x", "input": {} } }))
        .expect_err("not a reply a tool can read");
        assert_eq!(error.kind, ToolErrorKind::CLIENT_REQUEST_FAILED);
    }

    #[test]
    fn sampling_params_are_what_rmcp_accepts() {
        let mut request = SamplingRequest::user_text("hello", 100);
        request.system_prompt = Some("be brief".into());
        request.stop_sequences = vec!["\n".into()];
        let params: CreateMessageRequestParams =
            serde_json::from_value(sampling_params(&request).expect("params"))
                .expect("rmcp parses");
        assert_eq!(params.max_tokens, 100);
        assert_eq!(params.system_prompt.as_deref(), Some("be brief"));
        let mut request = SamplingRequest::user_text("x", 1);
        request.messages[0].content = ContentBlock::ResourceLink {
            uri: "file:///a".into(),
            name: "a".into(),
            description: None,
            mime_type: None,
        };
        assert!(sampling_params(&request).is_err());
    }
}
