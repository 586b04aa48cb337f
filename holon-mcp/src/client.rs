//! The MCP client as holon-core's [`ClientPeer`]: what a handler's `ClientLog`,
//! `Sampling`, `Elicitation` and `Roots` handles reach, over rmcp's peer of the session
//! (MCP 2025-11-25; under 2026-07-28 the requests go through [`crate::rounds`]).
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
    ElicitationResponse, LogLevel, LogMessage, Role, Root, RootsRequest, SamplingRequest,
    SamplingResponse, ToolError, ToolErrorKind,
};
use holon_export::mcp;
use rmcp::model::{
    ClientCapabilities, ClientResult, CreateMessageRequestParams, ElicitRequest,
    ElicitRequestParams, LoggingLevel, LoggingMessageNotificationParam, ServerRequest,
};
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

pub(crate) fn level_of(level: LoggingLevel) -> LogLevel {
    // Both name the eight syslog levels in lowercase on the wire.
    serde_json::to_value(level)
        .and_then(serde_json::from_value)
        .unwrap_or(LogLevel::Debug)
}

/// Which log messages a call sends its client.
pub(crate) enum LogGate {
    /// The session's level (`logging/setLevel`, MCP 2025-11-25).
    Session(Arc<SessionLogLevel>),
    /// The request's `_meta` level (MCP 2026-07-28): none there, no messages.
    Request(Option<LogLevel>),
}

impl LogGate {
    fn admits(&self, level: LogLevel) -> bool {
        match self {
            Self::Session(session) => session.admits(level),
            Self::Request(least) => least.is_some_and(|least| rank(level) >= rank(least)),
        }
    }
}

/// The client of one MCP request, as handlers reach it.
pub(crate) struct McpClient {
    peer: Peer<RoleServer>,
    log: LogGate,
    /// What the client declared: per request under 2026-07-28, at `initialize` before.
    capabilities: Option<ClientCapabilities>,
}

impl McpClient {
    /// The client behind `peer`, which declared `capabilities`, sent the messages
    /// `log` admits.
    pub(crate) fn new(
        peer: Peer<RoleServer>,
        log: LogGate,
        capabilities: Option<ClientCapabilities>,
    ) -> Self {
        Self {
            peer,
            log,
            capabilities,
        }
    }
}

/// Whether `capabilities` declare `capability` (elicitation: its form mode, which an
/// empty `elicitation` object means).
pub(crate) fn declares(
    capabilities: Option<&ClientCapabilities>,
    capability: ClientCapability,
) -> bool {
    let Some(capabilities) = capabilities else {
        return false;
    };
    match capability {
        ClientCapability::Sampling => capabilities.sampling.is_some(),
        ClientCapability::Roots => capabilities.roots.is_some(),
        ClientCapability::Elicitation => capabilities
            .elicitation
            .as_ref()
            .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none()),
    }
}

pub(crate) fn request_failed(what: &str, error: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        ToolErrorKind::CLIENT_REQUEST_FAILED,
        format!("the client did not answer the {what} request: {error}"),
    )
}

pub(crate) fn unsendable(what: &str, error: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        ToolErrorKind::INTERNAL_ERROR,
        format!("the tool's {what} request is not one MCP can carry: {error}"),
    )
}

impl ClientPeer for McpClient {
    fn supports(&self, capability: ClientCapability) -> bool {
        declares(self.capabilities.as_ref(), capability)
    }

    fn log(&self, message: LogMessage) -> ClientFuture<'_, ()> {
        Box::pin(async move {
            if !self.log.admits(message.level) {
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
            let params: ElicitRequestParams = serde_json::from_value(elicitation_params(&request))
                .map_err(|error| unsendable("elicitation", error))?;
            // The request rmcp's `create_elicitation` sends, sent without its
            // `elicitation` feature (which builds `url` and its IDNA tables for the
            // URL mode's helpers this server does not use).
            let answer = self
                .peer
                .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)))
                .await
                .map_err(|error| request_failed("elicitation", error))?;
            let ClientResult::ElicitResult(result) = answer else {
                return Err(request_failed(
                    "elicitation",
                    "the client answered with another kind of result",
                ));
            };
            let wire = serde_json::to_value(&result)
                .map_err(|error| request_failed("elicitation", error))?;
            elicitation_response(&wire)
        })
    }

    fn list_roots(&self, _request: RootsRequest) -> ClientFuture<'_, Vec<Root>> {
        Box::pin(async move {
            let result = self
                .peer
                .list_roots()
                .await
                .map_err(|error| request_failed("roots", error))?;
            let wire =
                serde_json::to_value(&result).map_err(|error| request_failed("roots", error))?;
            roots_response(&wire)
        })
    }
}

/// `elicitation/create` params in MCP's wire form (form mode).
pub(crate) fn elicitation_params(request: &ElicitationRequest) -> Value {
    json!({
        "mode": "form",
        "message": request.message,
        "requestedSchema": request.requested_schema,
    })
}

/// An `elicitation/create` result in MCP's wire form, as holon's response.
pub(crate) fn elicitation_response(wire: &Value) -> Result<ElicitationResponse, ToolError> {
    let action = wire.get("action").and_then(Value::as_str);
    Ok(match action {
        Some("accept") => match wire.get("content") {
            Some(Value::Object(content)) => ElicitationResponse::Accept(content.clone()),
            None | Some(Value::Null) => ElicitationResponse::Accept(Map::new()),
            Some(other) => {
                return Err(request_failed(
                    "elicitation",
                    format!("its content is {other}, not an object"),
                ));
            }
        },
        Some("decline") => ElicitationResponse::Decline,
        // Cancel, or an action of a later protocol: nothing was accepted.
        Some(_) => ElicitationResponse::Cancel,
        None => {
            return Err(request_failed(
                "elicitation",
                "its answer has no action (accept, decline or cancel)",
            ));
        }
    })
}

/// A `roots/list` result in MCP's wire form, as holon's roots.
pub(crate) fn roots_response(wire: &Value) -> Result<Vec<Root>, ToolError> {
    let roots = wire
        .get("roots")
        .ok_or_else(|| request_failed("roots", "its answer has no `roots`"))?;
    serde_json::from_value(roots.clone()).map_err(|error| request_failed("roots", error))
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
    fn an_empty_elicitation_capability_is_form_mode_and_a_url_only_one_is_not() {
        let declared = |capabilities: Value| {
            let capabilities: ClientCapabilities =
                serde_json::from_value(capabilities).expect("capabilities");
            declares(Some(&capabilities), ClientCapability::Elicitation)
        };
        assert!(declared(json!({ "elicitation": {} })));
        assert!(declared(
            json!({ "elicitation": { "form": {}, "url": {} } })
        ));
        assert!(!declared(json!({ "elicitation": { "url": {} } })));
        assert!(!declared(json!({ "sampling": {} })));
        assert!(!declares(None, ClientCapability::Sampling));
    }

    #[test]
    fn an_answer_without_an_action_is_no_elicitation_answer() {
        assert!(elicitation_response(&json!(12345)).is_err());
        assert!(elicitation_response(&json!({ "content": {} })).is_err());
        assert_eq!(
            elicitation_response(&json!({ "action": "decline" })).expect("an answer"),
            ElicitationResponse::Decline
        );
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
