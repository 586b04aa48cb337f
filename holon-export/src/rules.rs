//! The documented rules of each provider, as data and as a check of an export.
//!
//! [`check_export`] checks every exported tool against its provider's rules: the name
//! pattern and length, the required root object, the wire shape, and for OpenAI strict
//! tools the strict subset and its limits. The checks are written from the providers'
//! documentation, independently of the exporters, so that a test can hold every tool
//! of a registry to them; a downstream crate can do the same for its own tools.

use serde_json::Value;

use super::strict::{SUPPORTED_KEYWORDS, SUPPORTED_STRING_FORMATS};
pub use super::subset::check_strict_limits;
use super::{Export, ExportWarning, ExportedTool, Provider};

/// The documented rule for a provider's tool names.
#[derive(Debug, Clone, Copy)]
pub struct NameRule {
    /// The rule as the documentation states it.
    pub pattern: &'static str,
    /// The longest name allowed, in characters.
    pub max_len: usize,
    /// Characters allowed first.
    pub first: fn(char) -> bool,
    /// Characters allowed anywhere.
    pub any: fn(char) -> bool,
    /// Where the rule is documented.
    pub source: &'static str,
}

impl NameRule {
    /// Whether `name` follows the rule.
    pub fn allows(&self, name: &str) -> bool {
        let mut chars = name.chars();
        match chars.next() {
            Some(first) => {
                (self.first)(first)
                    && (self.any)(first)
                    && chars.all(self.any)
                    && name.chars().count() <= self.max_len
            }
            None => false,
        }
    }
}

fn word_or_dash(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn letter_or_underscore(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn anything(_: char) -> bool {
    true
}

/// OpenAI function and custom tool names: "a-z, A-Z, 0-9, or contain underscores and
/// dashes, with a maximum length of 64".
pub const OPENAI_NAME: NameRule = NameRule {
    pattern: "^[a-zA-Z0-9_-]{1,64}$",
    max_len: 64,
    first: anything,
    any: word_or_dash,
    source: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",
};

/// Anthropic tool names: `^[a-zA-Z0-9_-]{1,64}$`.
pub const ANTHROPIC_NAME: NameRule = NameRule {
    pattern: "^[a-zA-Z0-9_-]{1,64}$",
    max_len: 64,
    first: anything,
    any: word_or_dash,
    source: "https://docs.anthropic.com/en/api/messages (tools[].name)",
};

/// Gemini function names: "must start with a letter or an underscore; a-z, A-Z, 0-9,
/// or underscores, dots, colons and dashes, with a maximum length of 64".
pub const GEMINI_NAME: NameRule = NameRule {
    pattern: "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$",
    max_len: 64,
    first: letter_or_underscore,
    any: |c| word_or_dash(c) || c == '.' || c == ':',
    source: "https://ai.google.dev/api/caching#FunctionDeclaration",
};

/// MCP tool names (specification 2025-11-25, "Tool names"): 1 to 128 characters,
/// ASCII letters, digits, underscore, hyphen and dot.
pub const MCP_NAME: NameRule = NameRule {
    pattern: "^[A-Za-z0-9_.-]{1,128}$",
    max_len: 128,
    first: anything,
    any: |c| word_or_dash(c) || c == '.',
    source: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names",
};

/// The name rule of `provider`.
pub fn name_rule(provider: Provider) -> &'static NameRule {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses => &OPENAI_NAME,
        Provider::Anthropic => &ANTHROPIC_NAME,
        Provider::Gemini => &GEMINI_NAME,
        Provider::Mcp => &MCP_NAME,
    }
}

/// Chat Completions documents "a max of 128 functions" in its `tools` parameter.
pub const OPENAI_CHAT_MAX_TOOLS: usize = 128;

/// The MCP tool annotations (specification 2025-11-25, `ToolAnnotations`).
pub const MCP_ANNOTATIONS: &[&str] = &[
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// A warning when an export has more tools than the provider documents.
pub fn count_warning(provider: Provider, count: usize) -> Option<ExportWarning> {
    (provider == Provider::OpenAiChat && count > OPENAI_CHAT_MAX_TOOLS).then(|| ExportWarning {
        tool: None,
        keyword: None,
        message: format!(
            "{count} tools exceed the {OPENAI_CHAT_MAX_TOOLS} functions Chat Completions documents; narrow the families"
        ),
    })
}

/// Every way the tools of `export` break their provider's documented rules.
pub fn check_export(export: &Export) -> Vec<String> {
    let mut problems = Vec::new();
    for tool in &export.tools {
        for problem in check_tool(export.provider, tool) {
            problems.push(format!("{} `{}`: {problem}", export.provider, tool.name));
        }
    }
    problems
}

/// Every way one exported tool breaks `provider`'s documented rules.
pub fn check_tool(provider: Provider, tool: &ExportedTool) -> Vec<String> {
    let mut problems = Vec::new();
    let wire = &tool.wire;
    let (body, schema_key) = match provider {
        Provider::OpenAiChat => match wire.get("type").and_then(Value::as_str) {
            Some("function") => (wire.get("function"), Some("parameters")),
            Some("custom") => (wire.get("custom"), None),
            other => {
                problems.push(format!(
                    "`type` is {other:?}, not \"function\" or \"custom\""
                ));
                return problems;
            }
        },
        Provider::OpenAiResponses => match wire.get("type").and_then(Value::as_str) {
            Some("function") => (Some(wire), Some("parameters")),
            Some("custom") => (Some(wire), None),
            other => {
                problems.push(format!(
                    "`type` is {other:?}, not \"function\" or \"custom\""
                ));
                return problems;
            }
        },
        Provider::Anthropic => (Some(wire), Some("input_schema")),
        Provider::Gemini => (Some(wire), Some("parametersJsonSchema")),
        Provider::Mcp => (Some(wire), Some("inputSchema")),
    };
    let Some(body) = body.and_then(Value::as_object) else {
        problems.push("the tool is not an object".to_string());
        return problems;
    };
    let rule = name_rule(provider);
    match body.get("name").and_then(Value::as_str) {
        Some(name) if rule.allows(name) => {}
        Some(name) => problems.push(format!(
            "the name `{name}` does not match {} ({})",
            rule.pattern, rule.source
        )),
        None => problems.push("the tool has no `name`".to_string()),
    }
    if body
        .get("description")
        .and_then(Value::as_str)
        .is_none_or(|text| text.trim().is_empty())
    {
        problems.push("the tool has no description".to_string());
    }
    match schema_key {
        Some(key) => match body.get(key) {
            Some(schema) if is_object_root(schema) => {}
            _ => problems.push(format!("`{key}` is not a schema whose root is an object")),
        },
        None => check_custom(body, &mut problems),
    }
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses if schema_key.is_some() => {
            match body.get("strict") {
                Some(Value::Bool(true)) => {
                    if let Some(schema) = body.get("parameters") {
                        problems.extend(check_strict_schema(schema));
                    }
                }
                Some(Value::Bool(false)) => {}
                _ => problems.push("`strict` must be written out as a boolean".to_string()),
            }
        }
        Provider::Anthropic => {
            for key in body.keys() {
                if !matches!(
                    key.as_str(),
                    "name" | "description" | "input_schema" | "input_examples" | "defer_loading"
                ) {
                    problems.push(format!("a client tool has no field `{key}`"));
                }
            }
            if let Some(examples) = body.get("input_examples") {
                let objects = examples
                    .as_array()
                    .is_some_and(|examples| examples.iter().all(Value::is_object));
                if !objects {
                    problems.push("`input_examples` must be an array of input objects".to_string());
                }
            }
        }
        Provider::Gemini if body.contains_key("parameters") => {
            problems.push("`parameters` and `parametersJsonSchema` exclude each other".to_string());
        }
        Provider::Mcp => check_mcp(body, &mut problems),
        _ => {}
    }
    problems
}

/// Anthropic's tool search tools: each `type` with the `name` it must have.
pub const ANTHROPIC_TOOL_SEARCH: &[(&str, &str)] = &[
    ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
    ("tool_search_tool_bm25", "tool_search_tool_bm25"),
    ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
    ("tool_search_tool_regex", "tool_search_tool_regex"),
];

/// Every way the `tools` entries of a deferred export (see
/// holon-discovery's `export_deferred`) break `provider`'s documented rules:
/// each tool's own rules, `defer_loading` only where the provider has it and only a
/// boolean, a search tool whenever a tool is deferred and never deferred itself,
/// OpenAI namespaces well formed (`defer_loading` on the
/// functions inside, not on the namespace), and no name twice.
pub fn check_deferred(provider: Provider, entries: &[Value]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut deferred = 0usize;
    let mut searches = 0usize;
    let mut check_one = |wire: &Value, problems: &mut Vec<String>, names: &mut Vec<String>| {
        let name = wire
            .get("name")
            .or_else(|| wire.get("function").and_then(|f| f.get("name")))
            .or_else(|| wire.get("custom").and_then(|f| f.get("name")))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        match wire.get("defer_loading") {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => deferred += 1,
            Some(other) => problems.push(format!(
                "`{name}`: `defer_loading` is {other}, not a boolean"
            )),
        }
        if wire.get("defer_loading").is_some()
            && !matches!(provider, Provider::Anthropic | Provider::OpenAiResponses)
        {
            problems.push(format!("`{name}`: {provider} has no `defer_loading`"));
        }
        let mut plain = wire.clone();
        if let Some(map) = plain.as_object_mut() {
            map.remove("defer_loading");
        }
        let tool = ExportedTool {
            name: name.as_str().into(),
            surface: crate::InputSurface::Json,
            strict: None,
            wire: plain,
        };
        problems.extend(
            check_tool(provider, &tool)
                .into_iter()
                .map(|p| format!("`{name}`: {p}")),
        );
        names.push(name);
    };
    for entry in entries {
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
        match provider {
            Provider::Anthropic if kind.starts_with("tool_search_tool_") => {
                searches += 1;
                let name = entry.get("name").and_then(Value::as_str).unwrap_or("");
                if !ANTHROPIC_TOOL_SEARCH.contains(&(kind, name)) {
                    problems.push(format!(
                        "the tool search tool `{kind}` must be named as documented, not `{name}`"
                    ));
                }
                if entry.get("defer_loading") == Some(&Value::Bool(true)) {
                    problems.push("the tool search tool itself must not be deferred".to_string());
                }
                names.push(name.to_string());
            }
            Provider::OpenAiResponses if kind == "tool_search" => {
                searches += 1;
                if let Some(map) = entry.as_object() {
                    for key in map.keys() {
                        if !matches!(
                            key.as_str(),
                            "type" | "description" | "execution" | "parameters"
                        ) {
                            problems.push(format!("the tool search tool has no field `{key}`"));
                        }
                    }
                }
            }
            Provider::OpenAiResponses if kind == "namespace" => {
                let name = entry.get("name").and_then(Value::as_str).unwrap_or("");
                if !OPENAI_NAME.allows(name) {
                    problems.push(format!(
                        "the namespace name `{name}` does not match {}",
                        OPENAI_NAME.pattern
                    ));
                }
                if entry
                    .get("description")
                    .and_then(Value::as_str)
                    .is_none_or(|text| text.trim().is_empty())
                {
                    problems.push(format!("the namespace `{name}` has no description"));
                }
                if entry.get("defer_loading").is_some() {
                    problems.push(format!(
                        "the namespace `{name}` has `defer_loading`: it goes on the functions inside"
                    ));
                }
                match entry.get("tools").and_then(Value::as_array) {
                    Some(tools) if !tools.is_empty() => {
                        for tool in tools {
                            check_one(tool, &mut problems, &mut names);
                        }
                    }
                    _ => problems.push(format!("the namespace `{name}` has no tools")),
                }
                names.push(name.to_string());
            }
            _ => check_one(entry, &mut problems, &mut names),
        }
    }
    if deferred > 0 && searches != 1 {
        problems.push(format!(
            "{deferred} tools are deferred and the export has {searches} tool search tools, not one"
        ));
    }
    names.sort();
    for pair in names.windows(2) {
        if pair[0] == pair[1] {
            problems.push(format!("the name `{}` is used twice", pair[0]));
        }
    }
    problems
}

fn is_object_root(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

fn check_custom(body: &serde_json::Map<String, Value>, problems: &mut Vec<String>) {
    let format = body.get("format");
    if format.and_then(|f| f.get("type")).and_then(Value::as_str) != Some("grammar") {
        problems.push("a custom tool's `format.type` must be \"grammar\"".to_string());
        return;
    }
    // Chat Completions nests the grammar one level deeper than Responses.
    let grammar = format
        .and_then(|f| f.get("grammar"))
        .or(format)
        .unwrap_or(&Value::Null);
    match grammar.get("syntax").and_then(Value::as_str) {
        Some("lark" | "regex") => {}
        other => problems.push(format!(
            "the grammar syntax is {other:?}, not lark or regex"
        )),
    }
    if grammar
        .get("definition")
        .and_then(Value::as_str)
        .is_none_or(|text| text.trim().is_empty())
    {
        problems.push("the grammar definition is empty".to_string());
    }
}

fn check_mcp(body: &serde_json::Map<String, Value>, problems: &mut Vec<String>) {
    if body
        .get("outputSchema")
        .is_some_and(|output| !is_object_root(output))
    {
        problems.push("`outputSchema` must have an object root".to_string());
    }
    if body.get("title").is_some_and(|title| !title.is_string()) {
        problems.push("`title` must be a string".to_string());
    }
    if let Some(execution) = body.get("execution") {
        let support = execution.get("taskSupport").and_then(Value::as_str);
        if !matches!(support, Some("forbidden" | "optional" | "required")) {
            problems.push(
                "`execution.taskSupport` must be forbidden, optional or required".to_string(),
            );
        }
    }
    if body.get("_meta").is_some_and(|meta| !meta.is_object()) {
        problems.push("`_meta` must be an object".to_string());
    }
    if let Some(annotations) = body.get("annotations") {
        let Some(annotations) = annotations.as_object() else {
            problems.push("`annotations` must be an object".to_string());
            return;
        };
        for (key, value) in annotations {
            let typed = if key == "title" {
                value.is_string()
            } else {
                value.is_boolean()
            };
            if !MCP_ANNOTATIONS.contains(&key.as_str()) || !typed {
                problems.push(format!("`annotations.{key}` is not a tool annotation"));
            }
        }
    }
}

/// Every way `schema` breaks OpenAI's strict subset: root an object, every object
/// closed with every property required, only supported keywords and formats, and the
/// documented limits.
pub fn check_strict_schema(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if !is_object_root(schema) || schema.get("anyOf").is_some() {
        problems.push("the root must be an object, not a union".to_string());
    }
    check_strict_node(schema, "", &mut problems);
    if let Err(error) = check_strict_limits(schema) {
        problems.push(error.to_string());
    }
    problems
}

fn check_strict_node(schema: &Value, path: &str, problems: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        problems.push(format!("`{path}` is not a schema object"));
        return;
    };
    for (key, value) in map {
        if !SUPPORTED_KEYWORDS.contains(&key.as_str()) {
            problems.push(format!(
                "`{path}` uses `{key}`, which strict mode does not support"
            ));
        }
        if key == "format"
            && !value
                .as_str()
                .is_some_and(|f| SUPPORTED_STRING_FORMATS.contains(&f))
        {
            problems.push(format!("`{path}` has the unsupported format {value}"));
        }
    }
    let object = match map.get("type") {
        Some(Value::String(name)) => name == "object",
        Some(Value::Array(names)) => names.iter().any(|name| name == "object"),
        _ => map.contains_key("properties"),
    };
    if object {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            problems.push(format!(
                "`{path}` is an object without `additionalProperties: false`"
            ));
        }
        let properties = map.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in properties.into_iter().flat_map(|p| p.keys()) {
            if !required.contains(&name.as_str()) {
                problems.push(format!("`{path}`: the property `{name}` is not required"));
            }
        }
    }
    for key in ["properties", "$defs", "definitions"] {
        if let Some(entries) = map.get(key).and_then(Value::as_object) {
            for (name, sub) in entries {
                check_strict_node(
                    sub,
                    &format!("{path}/{key}/{}", crate::lower_error::escape(name)),
                    problems,
                );
            }
        }
    }
    if let Some(items) = map.get("items") {
        check_strict_node(items, &format!("{path}/items"), problems);
    }
    if let Some(branches) = map.get("anyOf").and_then(Value::as_array) {
        for (i, branch) in branches.iter().enumerate() {
            check_strict_node(branch, &format!("{path}/anyOf/{i}"), problems);
        }
    }
}
