//! The resources, prompts and completions the suite's scenarios read, served beside
//! the tools by the host's own rmcp handler (`McpServer::with_handler`): they are not
//! the framework's job, and rmcp's types say them well enough.

use holon_mcp::rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerCapabilities, ServerConfig, SubscriptionFilter,
};
#[allow(deprecated)] // resource subscriptions: legacy in 2026-07-28, in 2025-11-25
use holon_mcp::rmcp::model::{SubscribeRequestParams, UnsubscribeRequestParams};
use holon_mcp::rmcp::service::RequestContext;
use holon_mcp::rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The resource clients may subscribe to.
const WATCHED_RESOURCE: &str = "test://watched-resource";

/// The text of `test://static-text`.
const STATIC_TEXT: &str = "This is the content of the static text resource.";

/// The suite's resources, prompts and completions.
#[derive(Debug, Clone, Default)]
pub struct TestExtras {
    /// One red pixel as base64 PNG: the binary resource and the image prompt.
    pub red_pixel_png: String,
}

/// A value of rmcp's model from its MCP wire form (rmcp's structs are non-exhaustive).
fn wire<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))
}

fn text_message(text: impl Into<String>) -> Value {
    json!({ "role": "user", "content": { "type": "text", "text": text.into() } })
}

impl TestExtras {
    fn prompt(&self, request: &GetPromptRequestParams) -> Result<GetPromptResponse, ErrorData> {
        let argument = |name: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|arguments| arguments.get(name))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let messages = match request.name.as_str() {
            "test_simple_prompt" => vec![text_message("This is a simple prompt for testing.")],
            "test_prompt_with_arguments" => {
                let (arg1, arg2) = (argument("arg1"), argument("arg2"));
                let (Some(arg1), Some(arg2)) = (arg1, arg2) else {
                    return Err(ErrorData::invalid_params(
                        "test_prompt_with_arguments takes the arguments arg1 and arg2",
                        None,
                    ));
                };
                vec![text_message(format!(
                    "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
                ))]
            }
            "test_prompt_with_embedded_resource" => {
                let uri = argument("resourceUri").unwrap_or_else(|| "test://example".into());
                vec![
                    json!({ "role": "user", "content": { "type": "resource", "resource": {
                        "uri": uri, "mimeType": "text/plain",
                        "text": "Embedded resource content for testing." } } }),
                    text_message("Please process the embedded resource above."),
                ]
            }
            "test_prompt_with_image" => vec![
                json!({ "role": "user", "content": {
                    "type": "image", "data": self.red_pixel_png, "mimeType": "image/png" } }),
                text_message("Please analyze the image above."),
            ],
            "test_input_required_result_prompt" => {
                // The prompt needs the user's context: asked in a round of its own
                // (MCP 2026-07-28), as the tools' requests are.
                let answer = request
                    .input_responses
                    .as_ref()
                    .and_then(|responses| responses.get("user_context"))
                    .filter(|answer| answer["action"] == "accept")
                    .and_then(|answer| answer["content"]["context"].as_str());
                let Some(context) = answer else {
                    let asked: InputRequiredResult = wire(json!({
                        "resultType": "input_required",
                        "inputRequests": { "user_context": {
                            "method": "elicitation/create",
                            "params": {
                                "message": "What context should the prompt use?",
                                "requestedSchema": {
                                    "type": "object",
                                    "properties": { "context": { "type": "string" } },
                                    "required": ["context"]
                                }
                            }
                        } }
                    }))?;
                    return Ok(GetPromptResponse::InputRequired(asked));
                };
                vec![text_message(format!("A prompt in the context: {context}"))]
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no prompt is named `{other}`"),
                    Some(json!({ "name": other })),
                ));
            }
        };
        let result: GetPromptResult = wire(json!({ "messages": messages }))?;
        Ok(GetPromptResponse::Complete(result))
    }

    fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let contents = if uri == "test://static-text" {
            json!({ "uri": uri, "mimeType": "text/plain", "text": STATIC_TEXT })
        } else if uri == "test://static-binary" {
            json!({ "uri": uri, "mimeType": "image/png", "blob": self.red_pixel_png })
        } else if uri == WATCHED_RESOURCE {
            json!({ "uri": uri, "mimeType": "text/plain", "text": "A resource to watch." })
        } else if let Some(id) = uri
            .strip_prefix("test://template/")
            .and_then(|rest| rest.strip_suffix("/data"))
            .filter(|id| !id.is_empty() && !id.contains('/'))
        {
            let text =
                json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            json!({ "uri": uri, "mimeType": "application/json", "text": text.to_string() })
        } else {
            return Err(ErrorData::invalid_params(
                "Resource not found",
                Some(json!({ "uri": uri })),
            ));
        };
        wire(json!({ "contents": [contents] }))
    }
}

#[allow(deprecated)] // resource subscriptions: see the imports
impl ServerHandler for TestExtras {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_prompts()
            .enable_completions()
            .build();
        ServerConfig::new(capabilities)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        wire(json!({ "resources": [
            { "uri": "test://static-text", "name": "static-text", "mimeType": "text/plain",
              "description": "A static text resource" },
            { "uri": "test://static-binary", "name": "static-binary", "mimeType": "image/png",
              "description": "A static binary resource: one red pixel" },
            { "uri": "test://watched-resource", "name": "watched-resource", "mimeType": "text/plain",
              "description": "A resource clients may subscribe to" }
        ] }))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        wire(json!({ "resourceTemplates": [
            { "uriTemplate": "test://template/{id}/data", "name": "template-data",
              "mimeType": "application/json", "description": "The data of an id" }
        ] }))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.read(&request.uri).map(ReadResourceResponse::Complete)
    }

    /// A 2026-07-28 `subscriptions/listen` may subscribe to the resources listed (rmcp's
    /// default `listen` holds the stream open: nothing here changes).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| uri.as_str() == WATCHED_RESOURCE)
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // Nothing here changes, so there is nothing to notify of.
        Ok(())
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        wire(json!({ "prompts": [
            { "name": "test_simple_prompt", "description": "A prompt without arguments" },
            { "name": "test_prompt_with_arguments", "description": "A prompt of two arguments",
              "arguments": [
                { "name": "arg1", "description": "First test argument", "required": true },
                { "name": "arg2", "description": "Second test argument", "required": true }
              ] },
            { "name": "test_prompt_with_embedded_resource",
              "description": "A prompt that embeds a resource",
              "arguments": [{ "name": "resourceUri", "description": "The resource's URI",
                              "required": true }] },
            { "name": "test_prompt_with_image", "description": "A prompt with an image" },
            { "name": "test_input_required_result_prompt",
              "description": "A prompt that asks the user for its context first" }
        ] }))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.prompt(&request)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let words = ["paris", "park", "party", "hello", "world"];
        let prefix = request.argument.value.to_lowercase();
        let values: Vec<&str> = words
            .iter()
            .copied()
            .filter(|word| word.starts_with(&prefix))
            .collect();
        wire(json!({ "completion": {
            "values": values, "total": values.len(), "hasMore": false } }))
    }
}
