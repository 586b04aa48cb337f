//! The client handles a handler takes as parameters (`ClientLog`, `Sampling`,
//! `Elicitation`, `Roots`): what reaches the host's `ClientPeer`, and the typed errors
//! of a host without a client or a client without the capability.

use std::sync::{Arc, Mutex};

use holon_core::prelude::*;
use holon_core::{
    ClientCapability, ClientFuture, ClientLog, ClientPeer, Elicitation, ElicitationRequest,
    ElicitationResponse, FamilyPolicy, LogLevel, LogMessage, Registry, Role, Roots, Sampling,
    SamplingRequest, SamplingResponse, ToolCall, ToolResult,
};
use serde_json::{Map, Value, json};

/// Logs twice.
#[holon_tool(family = CoreAgent)]
async fn log_twice(log: ClientLog) -> String {
    log.info("started").await;
    log.with_logger("worker")
        .warning(json!({ "left": 3 }))
        .await;
    "logged".to_string()
}

/// Asks the client's model for a word.
#[holon_tool(family = CoreAgent)]
async fn sample_a_word(sampling: Sampling) -> Result<String, ToolError> {
    let reply = sampling
        .create_message(SamplingRequest::user_text("a word, please", 5))
        .await?;
    Ok(format!(
        "{} said {}",
        reply.model,
        reply.text().unwrap_or("?")
    ))
}

/// Asks the user for a colour.
#[holon_tool(family = CoreAgent)]
async fn ask_colour(elicitation: Elicitation) -> Result<String, ToolError> {
    let schema = json!({ "type": "object", "properties": { "colour": { "type": "string" } } });
    let Value::Object(schema) = schema else {
        unreachable!()
    };
    let response = elicitation.ask("Your colour?", schema).await?;
    Ok(match response {
        ElicitationResponse::Accept(content) => format!("accepted {}", Value::Object(content)),
        other => other.action().to_string(),
    })
}

/// Names the client's roots.
#[holon_tool(family = CoreAgent)]
async fn name_roots(roots: Roots) -> Result<String, ToolError> {
    let roots = roots.list_as("client_roots").await?;
    Ok(roots
        .iter()
        .map(|root| root.uri.as_str())
        .collect::<Vec<_>>()
        .join(" "))
}

/// Says which of the client's handles it got.
#[holon_tool(family = CoreAgent)]
fn which_handles(
    sampling: Option<Sampling>,
    elicitation: Option<Elicitation>,
    roots: Option<Roots>,
) -> String {
    format!(
        "sampling {}, elicitation {}, roots {}",
        sampling.is_some(),
        elicitation.is_some(),
        roots.is_some()
    )
}

/// A client that records what it is sent and answers from a script.
#[derive(Default)]
struct RecordingClient {
    capabilities: Vec<ClientCapability>,
    logs: Mutex<Vec<LogMessage>>,
    samplings: Mutex<Vec<SamplingRequest>>,
    elicitations: Mutex<Vec<ElicitationRequest>>,
    elicitation_reply: Option<ElicitationResponse>,
}

impl ClientPeer for RecordingClient {
    fn supports(&self, capability: ClientCapability) -> bool {
        self.capabilities.contains(&capability)
    }

    fn log(&self, message: LogMessage) -> ClientFuture<'_, ()> {
        self.logs.lock().unwrap().push(message);
        Box::pin(async { Ok(()) })
    }

    fn create_message(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
        self.samplings.lock().unwrap().push(request);
        Box::pin(async {
            Ok(SamplingResponse {
                role: Role::Assistant,
                content: ContentBlock::Text {
                    text: "hello".to_string(),
                },
                model: "test-model".to_string(),
                stop_reason: Some("endTurn".to_string()),
            })
        })
    }

    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, ElicitationResponse> {
        self.elicitations.lock().unwrap().push(request);
        let reply = self.elicitation_reply.clone();
        Box::pin(async move {
            reply.ok_or_else(|| {
                ToolError::new(ToolErrorKind::CLIENT_REQUEST_FAILED, "the user went away")
            })
        })
    }
}

async fn call(name: &str, client: Option<Arc<RecordingClient>>) -> ToolResult {
    let mut context = ToolContext::new(FamilyPolicy::all());
    if let Some(client) = client {
        context = context.with_client(client);
    }
    Registry::global()
        .dispatch(&context, ToolCall::new(name, json!({})))
        .await
}

fn capable(capabilities: Vec<ClientCapability>) -> Arc<RecordingClient> {
    Arc::new(RecordingClient {
        capabilities,
        elicitation_reply: Some(ElicitationResponse::Accept(Map::from_iter([(
            "colour".to_string(),
            json!("teal"),
        )]))),
        ..RecordingClient::default()
    })
}

#[tokio::test]
async fn a_host_without_a_client_refuses_every_handle_before_the_handler_runs() {
    for (tool, handle) in [
        ("LogTwice", "ClientLog"),
        ("SampleAWord", "Sampling"),
        ("AskColour", "Elicitation"),
    ] {
        let result = call(tool, None).await;
        let error = result.error.as_ref().expect("an error");
        assert_eq!(error.kind, ToolErrorKind::CLIENT_UNAVAILABLE, "{tool}");
        assert!(error.message.contains(handle), "{tool}: {}", error.message);
        assert!(error.recovery_hint.is_some(), "{tool}");
    }
}

#[tokio::test]
async fn a_client_without_the_capability_is_refused_and_is_asked_nothing() {
    let client = capable(vec![]);
    for (tool, capability) in [("SampleAWord", "sampling"), ("AskColour", "elicitation")] {
        let result = call(tool, Some(client.clone())).await;
        let error = result.error.as_ref().expect("an error");
        assert_eq!(
            error.kind,
            ToolErrorKind::CLIENT_CAPABILITY_MISSING,
            "{tool}"
        );
        assert!(
            error.message.contains(capability),
            "{tool}: {}",
            error.message
        );
    }
    assert!(client.samplings.lock().unwrap().is_empty());
    assert!(client.elicitations.lock().unwrap().is_empty());
    // Logging needs no capability of the client.
    let result = call("LogTwice", Some(client.clone())).await;
    assert!(result.is_success(), "{result:?}");
}

#[tokio::test]
async fn log_messages_reach_the_client_with_level_and_logger() {
    let client = capable(vec![]);
    let result = call("LogTwice", Some(client.clone())).await;
    assert!(result.is_success(), "{result:?}");
    let logs = client.logs.lock().unwrap();
    assert_eq!(
        *logs,
        [
            LogMessage {
                level: LogLevel::Info,
                logger: None,
                data: json!("started"),
            },
            LogMessage {
                level: LogLevel::Warning,
                logger: Some("worker".to_string()),
                data: json!({ "left": 3 }),
            },
        ]
    );
}

#[tokio::test]
async fn sampling_and_elicitation_go_to_a_capable_client_and_their_replies_come_back() {
    let client = capable(vec![
        ClientCapability::Sampling,
        ClientCapability::Elicitation,
    ]);
    let result = call("SampleAWord", Some(client.clone())).await;
    assert_eq!(
        result.structured.as_deref(),
        Some(&json!("test-model said hello"))
    );
    let sampled = client.samplings.lock().unwrap().remove(0);
    assert_eq!(sampled.max_tokens, 5);
    assert_eq!(
        sampled.messages[0].content,
        ContentBlock::Text {
            text: "a word, please".to_string()
        }
    );

    let result = call("AskColour", Some(client.clone())).await;
    assert_eq!(
        result.structured.as_deref(),
        Some(&json!(r#"accepted {"colour":"teal"}"#))
    );
    assert_eq!(
        client.elicitations.lock().unwrap()[0].message,
        "Your colour?"
    );
}

#[tokio::test]
async fn a_failed_client_request_is_the_tools_typed_error() {
    let client = Arc::new(RecordingClient {
        capabilities: vec![ClientCapability::Elicitation],
        ..RecordingClient::default()
    });
    let result = call("AskColour", Some(client)).await;
    assert_eq!(result.error_kind(), Some("client_request_failed"));
}

#[tokio::test]
async fn optional_handles_are_none_where_a_client_or_its_capability_is_missing() {
    let result = call("WhichHandles", None).await;
    assert_eq!(
        result.structured.as_deref(),
        Some(&json!("sampling false, elicitation false, roots false"))
    );
    let client = capable(vec![ClientCapability::Elicitation, ClientCapability::Roots]);
    let result = call("WhichHandles", Some(client)).await;
    assert_eq!(
        result.structured.as_deref(),
        Some(&json!("sampling false, elicitation true, roots true"))
    );
}

#[tokio::test]
async fn roots_need_the_capability_and_a_host_that_can_ask_for_them() {
    let result = call("NameRoots", Some(capable(vec![]))).await;
    assert_eq!(result.error_kind(), Some("client_capability_missing"));
    let details = result
        .error
        .as_ref()
        .and_then(|error| error.details.as_deref());
    assert_eq!(details, Some(&json!({ "capability": "roots" })));
    // A host whose peer does not implement `list_roots` refuses, typed.
    let result = call("NameRoots", Some(capable(vec![ClientCapability::Roots]))).await;
    assert_eq!(result.error_kind(), Some("client_capability_missing"));
}
