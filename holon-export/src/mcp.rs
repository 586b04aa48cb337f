//! MCP: the `tools/list` entry of a tool and the `tools/call` result of a call.
//!
//! A tool is `{"name", "title", "description", "inputSchema", "outputSchema",
//! "annotations"}`, plus `execution.taskSupport` when the tool may run as a task and
//! `_meta["holon/inputExamples"]` when it has input examples. MCP has no freeform input, so a freeform tool is exported with its
//! JSON surface. `outputSchema` is the tool's result schema; MCP requires an object
//! there (and in `structuredContent`), so a tool whose result is not an object gets it
//! wrapped as `{"result": ...}` in both ([`wraps_result`]).
//!
//! A call's result ([`call_result`]) is `content` (the receipt as text, then the
//! tool's blocks: image, audio, embedded resources with text or blob contents, and
//! resource links) plus `structuredContent`; a tool error is a result with
//! `isError: true`, the receipt (which names the error kind, field and hint) as its
//! content and the typed error under `_meta["holon/error"]`. Errors carry no
//! `structuredContent`, which clients would check against `outputSchema`.
//!
//! Source: MCP specification 2025-11-25, "Tools"
//! (<https://modelcontextprotocol.io/specification/2025-11-25/server/tools>).

use serde_json::{Map, Value, json};

use holon_core::ToolDefinition;
use holon_core::{ContentBlock, Structured, ToolResult, ToolStatus};

/// The `_meta` key of the typed error of a failed call.
pub const ERROR_META_KEY: &str = "holon/error";

/// The `_meta` key of a tool's input examples in `tools/list`: an array of argument
/// objects, each a valid call. MCP has no field of its own for examples.
pub const INPUT_EXAMPLES_META_KEY: &str = "holon/inputExamples";

/// The property that holds a result that is not an object (see [`wraps_result`]).
pub const WRAPPED_RESULT_KEY: &str = "result";

/// The tool's `tools/list` entry. Its `inputSchema` and `outputSchema` are the
/// portable forms ([`crate::portable`]): an optional field is advertised as its type.
pub fn tool(definition: &ToolDefinition) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(&*definition.spec.name));
    tool.insert("title".into(), json!(title(&definition.spec.name)));
    tool.insert("description".into(), json!(&*definition.spec.description));
    // Optional fields without their `null` alternative: strict clients refuse
    // `"type": [T, "null"]`, and the dispatcher still accepts `null` (see `portable`).
    tool.insert(
        "inputSchema".into(),
        crate::portable::without_null(&definition.spec.input_schema),
    );
    tool.insert("outputSchema".into(), output_schema(definition));
    let annotations = annotations(definition);
    if !annotations.is_empty() {
        tool.insert("annotations".into(), Value::Object(annotations));
    }
    if !definition.task.is_forbidden() {
        // The tasks extension's per-tool declaration (2025-11-25 `Tool.execution`).
        tool.insert(
            "execution".into(),
            json!({ "taskSupport": definition.task.as_str() }),
        );
    }
    if !definition.input_examples.is_empty() {
        tool.insert(
            "_meta".into(),
            json!({ INPUT_EXAMPLES_META_KEY: &*definition.input_examples }),
        );
    }
    Value::Object(tool)
}

/// A human-readable title from a tool name: `ListProviderModels` becomes
/// `List Provider Models`.
pub fn title(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in chars.iter().copied().enumerate() {
        if c == '_' || c == '-' {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            continue;
        }
        let previous = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_ascii_uppercase()
            && match previous {
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
        if boundary && !out.ends_with(' ') {
            out.push(' ');
        }
        out.push(c);
    }
    out.trim().to_string()
}

/// Whether the tool's result is wrapped as `{"result": ...}`: MCP requires an object
/// `outputSchema` and `structuredContent`, and this result's schema is not an object.
pub fn wraps_result(definition: &ToolDefinition) -> bool {
    definition.result_schema.get("type").and_then(Value::as_str) != Some("object")
}

/// The `outputSchema`: the result schema, wrapped when it is not an object, in its
/// portable form ([`crate::portable::output_without_null`]): a property that may be
/// `null` is listed as its type and not required, and [`call_result`] leaves its
/// `null` out of `structuredContent`.
pub fn output_schema(definition: &ToolDefinition) -> Value {
    crate::portable::output_without_null(&wrapped_schema(definition))
}

/// The result schema, wrapped when it is not an object.
fn wrapped_schema(definition: &ToolDefinition) -> Value {
    let schema = &*definition.result_schema;
    if !wraps_result(definition) {
        return schema.clone();
    }
    let mut inner = schema.clone();
    // Definitions stay at the root, where the references point.
    let definitions = inner
        .as_object_mut()
        .and_then(|map| holon_core::schema::remove_key(map, "$defs"));
    let mut wrapper = json!({
        "type": "object",
        "properties": { WRAPPED_RESULT_KEY: inner },
        "required": [WRAPPED_RESULT_KEY],
        "additionalProperties": false,
    });
    if let (Some(definitions), Some(map)) = (definitions, wrapper.as_object_mut()) {
        map.insert("$defs".into(), definitions);
    }
    wrapper
}

fn annotations(definition: &ToolDefinition) -> Map<String, Value> {
    let hints = definition.annotations;
    [
        ("readOnlyHint", hints.read_only),
        ("destructiveHint", hints.destructive),
        ("idempotentHint", hints.idempotent),
        ("openWorldHint", hints.open_world),
    ]
    .into_iter()
    .filter_map(|(key, value)| value.map(|value| (key.to_string(), Value::Bool(value))))
    .collect()
}

/// The `tools/call` result of `result`. `definition` is the called tool's (`None`
/// when the call named no tool), and decides whether the structured result is wrapped.
pub fn call_result(definition: Option<&ToolDefinition>, result: &ToolResult) -> Value {
    let content: Vec<Value> = result.model_content().iter().map(content_block).collect();
    let mut out = Map::new();
    out.insert("content".into(), Value::Array(content));
    if result.status == ToolStatus::Error {
        out.insert("isError".into(), Value::Bool(true));
        if let Some(error) = &result.error {
            out.insert("_meta".into(), json!({ ERROR_META_KEY: error }));
        }
        return Value::Object(out);
    }
    if let Some(structured) = &result.structured {
        out.insert(
            "structuredContent".into(),
            structured_content(definition, structured),
        );
    }
    out.insert("isError".into(), Value::Bool(false));
    Value::Object(out)
}

/// A result as `structuredContent`: wrapped when its schema is not an object's, and
/// without the `null` members [`output_schema`] does not list.
pub fn structured_content(definition: Option<&ToolDefinition>, structured: &Structured) -> Value {
    let mut value = structured.to_value();
    let Some(definition) = definition else {
        return value;
    };
    let schema = &*definition.result_schema;
    crate::portable::without_null_members(&mut value, schema);
    if !wraps_result(definition) {
        return value;
    }
    // The wrapper's one property, like any other, is left out when it is `null`.
    if value.is_null() && crate::portable::output::is_nullable(schema) {
        return json!({});
    }
    json!({ WRAPPED_RESULT_KEY: value })
}

/// One content block in MCP's form (a tool-use block, which MCP results lack, as text).
pub fn content_block(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::Text { text } => json!({ "type": "text", "text": text }),
        ContentBlock::Image { mime_type, data } => {
            json!({ "type": "image", "data": data, "mimeType": mime_type })
        }
        ContentBlock::Audio { mime_type, data } => {
            json!({ "type": "audio", "data": data, "mimeType": mime_type })
        }
        ContentBlock::ResourceText {
            uri,
            mime_type,
            text,
        } => embedded_resource(uri, mime_type.as_deref(), "text", text),
        ContentBlock::ResourceBlob {
            uri,
            mime_type,
            blob,
        } => embedded_resource(uri, mime_type.as_deref(), "blob", blob),
        ContentBlock::ResourceLink {
            uri,
            name,
            description,
            mime_type,
        } => {
            let mut link = json!({ "type": "resource_link", "uri": uri, "name": name });
            if let Some(description) = description {
                link["description"] = Value::String(description.clone());
            }
            if let Some(mime_type) = mime_type {
                link["mimeType"] = Value::String(mime_type.clone());
            }
            link
        }
        // MCP results have no tool-use block: the request is passed on as text.
        ContentBlock::ToolUse { id, name, input } => json!({
            "type": "text",
            "text": format!("tool_use {name} (id {id}): {input}"),
        }),
    }
}

/// An embedded resource: `{"type": "resource", "resource": {uri, mimeType?, text | blob}}`.
fn embedded_resource(uri: &str, mime_type: Option<&str>, key: &str, contents: &str) -> Value {
    let mut resource = json!({ "uri": uri });
    if let Some(mime_type) = mime_type {
        resource["mimeType"] = Value::String(mime_type.to_string());
    }
    resource[key] = Value::String(contents.to_string());
    json!({ "type": "resource", "resource": resource })
}
