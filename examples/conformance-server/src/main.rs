//! The tools the MCP conformance suite (`@modelcontextprotocol/conformance`) calls in
//! its server scenarios, declared with `#[holon_tool]` like any other tool, and
//! served by holon-mcp, the same server as `holon-tools serve`'s, on a registry of
//! this crate's tools only, under this crate's name.
//!
//! `conformance-server --http 127.0.0.1:0 --no-auth` serves them; `.ci/mcp-conformance`
//! runs the suite against it. `--stdio` serves them on stdin and stdout (the tests in
//! `tests/` talk to it there).

use std::io::Cursor;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::Parser;
use holon_core::prelude::*;
use holon_core::{
    ClientLog, Elicitation, ElicitationRequest, ElicitationResponse, Registry, Roots, Sampling,
    SamplingRequest,
};
use holon_mcp::{
    HttpOptions, HttpServer, McpServer, ServeError, StdioServer, StoreUrl, Stores, shutdown_signal,
};
use serde_json::{Map, Value, json};

mod extras;
mod tasks;

/// The text `test_simple_text` answers with.
const SIMPLE_TEXT: &str = "This is a simple text response for testing.";

/// Returns a simple text.
#[holon_tool(family = CoreAgent, name = "test_simple_text")]
fn test_simple_text() -> ToolOutput<String> {
    ToolOutput::new(SIMPLE_TEXT.to_string()).with_receipt(SIMPLE_TEXT)
}

/// Returns an image: one red pixel, as PNG.
#[holon_tool(family = CoreAgent, name = "test_image_content")]
fn test_image_content() -> Result<ToolOutput<String>, ToolError> {
    Ok(ToolOutput::new("one red pixel".to_string()).with_content(red_pixel()?))
}

/// Returns audio: a tenth of a second of a 440 Hz tone, as WAV.
#[holon_tool(family = CoreAgent, name = "test_audio_content")]
fn test_audio_content() -> ToolOutput<String> {
    ToolOutput::new("a 440 Hz tone".to_string()).with_content(ContentBlock::Audio {
        mime_type: "audio/wav".to_string(),
        data: BASE64.encode(tone_wav(440.0, 800)),
    })
}

/// Returns an embedded text resource.
#[holon_tool(family = CoreAgent, name = "test_embedded_resource")]
fn test_embedded_resource() -> ToolOutput<String> {
    ToolOutput::new("test://embedded-resource".to_string()).with_content(
        ContentBlock::ResourceText {
            uri: "test://embedded-resource".to_string(),
            mime_type: Some("text/plain".to_string()),
            text: "This is an embedded resource content.".to_string(),
        },
    )
}

/// Returns text, an image and an embedded JSON resource.
#[holon_tool(family = CoreAgent, name = "test_multiple_content_types")]
fn test_multiple_content_types() -> Result<ToolOutput<String>, ToolError> {
    let resource = ContentBlock::ResourceText {
        uri: "test://mixed-content-resource".to_string(),
        mime_type: Some("application/json".to_string()),
        text: json!({ "test": "data", "value": 123 }).to_string(),
    };
    Ok(ToolOutput::new("three kinds of content".to_string())
        .with_receipt("Multiple content types test:")
        .with_content(red_pixel()?)
        .with_content(resource))
}

/// Always fails.
#[holon_tool(family = CoreAgent, name = "test_error_handling")]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        ToolErrorKind::new("intentional_error"),
        "This tool intentionally returns an error for testing",
    ))
}

/// Logs three messages to the client at `info`, 50 ms apart.
#[holon_tool(family = CoreAgent, name = "test_tool_with_logging")]
async fn test_tool_with_logging(log: ClientLog) -> String {
    let log = log.with_logger("test_tool_with_logging");
    log.info("Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    log.info("Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    log.info("Tool execution completed").await;
    "logged three messages".to_string()
}

/// Reports progress 0, 50 and 100 out of 100, 50 ms apart.
#[holon_tool(family = CoreAgent, name = "test_tool_with_progress")]
async fn test_tool_with_progress(progress: Progress) -> String {
    progress.report(0.0, Some(100.0), Some("started"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    progress.report(50.0, Some(100.0), Some("half way"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    progress.report(100.0, Some(100.0), Some("done"));
    "reported progress 0, 50 and 100 of 100".to_string()
}

/// Arguments of `test_sampling`.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct SamplingArgs {
    /// The prompt to send to the client's model.
    pub prompt: String,
}

/// Asks the client's model to reply to a prompt, and returns the reply.
#[holon_tool(family = CoreAgent, name = "test_sampling")]
async fn test_sampling(sampling: Sampling, args: SamplingArgs) -> Result<String, ToolError> {
    let reply = sampling
        .create_message(SamplingRequest::user_text(args.prompt, 100))
        .await?;
    let text = reply.text().unwrap_or("(a reply that is not text)");
    Ok(format!("LLM response: {text}"))
}

/// Arguments of `test_elicitation`.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ElicitationArgs {
    /// The message to show the user.
    pub message: String,
}

/// Asks the user for a name and an email address.
#[holon_tool(family = CoreAgent, name = "test_elicitation")]
async fn test_elicitation(
    elicitation: Elicitation,
    args: ElicitationArgs,
) -> Result<String, ToolError> {
    let schema = object_schema(json!({
        "type": "object",
        "properties": {
            "username": { "type": "string", "description": "User's response" },
            "email": { "type": "string", "description": "User's email address" }
        },
        "required": ["username", "email"]
    }));
    let response = elicitation.ask(args.message, schema).await?;
    Ok(format!("User response: {}", describe(&response)))
}

/// Asks the user, with a default for every primitive type (SEP-1034).
#[holon_tool(family = CoreAgent, name = "test_elicitation_sep1034_defaults")]
async fn test_elicitation_sep1034_defaults(elicitation: Elicitation) -> Result<String, ToolError> {
    let schema = object_schema(json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": { "type": "boolean", "description": "Verification status", "default": true }
        }
    }));
    let response = elicitation
        .ask(
            "Please review and update the form fields with defaults",
            schema,
        )
        .await?;
    Ok(format!("Elicitation completed: {}", describe(&response)))
}

/// Asks the user to choose, in each of the five enum forms (SEP-1330).
#[holon_tool(family = CoreAgent, name = "test_elicitation_sep1330_enums")]
async fn test_elicitation_sep1330_enums(elicitation: Elicitation) -> Result<String, ToolError> {
    let schema = object_schema(json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Choose an option",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Choose a titled option",
                "oneOf": [
                    { "const": "value1", "title": "First Option" },
                    { "const": "value2", "title": "Second Option" },
                    { "const": "value3", "title": "Third Option" }
                ]
            },
            "legacyEnum": {
                "type": "string",
                "description": "Choose a legacy option",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Choose options",
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] }
            },
            "titledMulti": {
                "type": "array",
                "description": "Choose titled options",
                "items": {
                    "anyOf": [
                        { "const": "value1", "title": "First Choice" },
                        { "const": "value2", "title": "Second Choice" },
                        { "const": "value3", "title": "Third Choice" }
                    ]
                }
            }
        }
    }));
    let response = elicitation.ask("Please choose", schema).await?;
    Ok(format!("Elicitation completed: {}", describe(&response)))
}

/// Arguments of `json_schema_2020_12_tool`, whose schema is written out by hand in
/// JSON Schema 2020-12 (with `$schema`, `$defs`, an `$anchor`, a `$ref`, `allOf`/`anyOf`
/// and `if`/`then`/`else`), as an author may: the framework and the MCP export pass it
/// on as written.
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct JsonSchemaArgs {
    /// A name.
    #[serde(default)]
    pub name: Option<String>,
    /// An address.
    #[serde(default)]
    pub address: Option<Address>,
    /// How to reach the person: `phone` or `email`.
    #[serde(default, rename = "contactMethod")]
    pub contact_method: Option<String>,
    /// A phone number.
    #[serde(default)]
    pub phone: Option<String>,
    /// An email address.
    #[serde(default)]
    pub email: Option<String>,
}

/// An address of `json_schema_2020_12_tool`.
#[derive(Debug, Deserialize, ClosedInput)]
#[serde(deny_unknown_fields)]
pub struct Address {
    /// The street.
    #[serde(default)]
    pub street: Option<String>,
    /// The city.
    #[serde(default)]
    pub city: Option<String>,
}

impl JsonSchema for JsonSchemaArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "JsonSchemaArgs".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {
                        "street": { "type": "string" },
                        "city": { "type": "string" }
                    },
                    "additionalProperties": false
                }
            },
            "properties": {
                "name": { "type": "string" },
                "address": { "$ref": "#/$defs/address" },
                "contactMethod": { "type": "string", "enum": ["phone", "email"] },
                "phone": { "type": "string" },
                "email": { "type": "string" }
            },
            "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
            "if": {
                "properties": { "contactMethod": { "const": "phone" } },
                "required": ["contactMethod"]
            },
            "then": { "required": ["phone"] },
            "else": { "required": ["email"] },
            "additionalProperties": false
        })
    }
}

/// A tool with JSON Schema 2020-12 features in its input schema.
#[holon_tool(family = CoreAgent, name = "json_schema_2020_12_tool")]
fn json_schema_2020_12_tool(args: JsonSchemaArgs) -> String {
    let city = args.address.and_then(|address| address.city);
    let contact = match args.contact_method.as_deref() {
        Some("phone") => args.phone,
        _ => args.email.or(args.phone),
    };
    format!(
        "name {}, city {}, contact {}",
        args.name.as_deref().unwrap_or("(none)"),
        city.as_deref().unwrap_or("(none)"),
        contact.as_deref().unwrap_or("(none)")
    )
}

/// Answers after a short wait. The suite's SSE polling scenario calls it; this server
/// sends the result on the request's own stream rather than closing it early.
#[holon_tool(family = CoreAgent, name = "test_reconnection")]
async fn test_reconnection() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully".to_string()
}

/// Arguments of `test_custom_header`.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CustomHeaderArgs {
    /// The region to run in. Over streamable HTTP (2026-07-28) the client sends it in
    /// the `Mcp-Param-Region` header too, for a gateway to route on.
    #[schemars(extend("x-mcp-header" = "Region"))]
    pub region: String,
}

/// Says which region the call ran in. The suite's SEP-2243 scenario calls it with
/// `Mcp-Param-Region` headers that match the body, and some that do not.
#[holon_tool(family = CoreAgent, name = "test_custom_header")]
fn test_custom_header(args: CustomHeaderArgs) -> String {
    format!("ran in region {}", args.region)
}

/// An elicitation schema of one property `name` of `kind` (`string`, `boolean`),
/// required.
fn one_field_schema(name: &str, kind: &str) -> Map<String, Value> {
    object_schema(json!({
        "type": "object",
        "properties": { name: { "type": kind } },
        "required": [name]
    }))
}

/// The accepted answer's `field` as text, or what the user did instead.
fn answer_field(response: &ElicitationResponse, field: &str) -> String {
    match response {
        ElicitationResponse::Accept(content) => match content.get(field) {
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => "(no answer)".to_string(),
        },
        other => format!("(the user chose {})", other.action()),
    }
}

/// Asks the user's name (as the request `user_name`) and greets them.
#[holon_tool(family = CoreAgent, name = "test_input_required_result_elicitation")]
async fn test_input_required_result_elicitation(
    elicitation: Elicitation,
) -> Result<String, ToolError> {
    let request = ElicitationRequest::new("What is your name?", one_field_schema("name", "string"))
        .with_key("user_name");
    let response = elicitation.request(request).await?;
    Ok(format!("Hello, {}!", answer_field(&response, "name")))
}

/// Asks the client's model the capital of France.
#[holon_tool(family = CoreAgent, name = "test_input_required_result_sampling")]
async fn test_input_required_result_sampling(sampling: Sampling) -> Result<String, ToolError> {
    let request = SamplingRequest::user_text("What is the capital of France?", 100)
        .with_key("capital_question");
    let reply = sampling.create_message(request).await?;
    Ok(format!(
        "The model says: {}",
        reply.text().unwrap_or("(a reply that is not text)")
    ))
}

/// Asks the client for its roots and names them.
#[holon_tool(family = CoreAgent, name = "test_input_required_result_list_roots")]
async fn test_input_required_result_list_roots(roots: Roots) -> Result<String, ToolError> {
    let roots = roots.list_as("client_roots").await?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("The client's roots: {}", uris.join(", ")))
}

/// Asks the user to confirm; its answer comes back with the sealed request state.
#[holon_tool(family = CoreAgent, name = "test_input_required_result_request_state")]
async fn test_input_required_result_request_state(
    elicitation: Elicitation,
) -> Result<String, ToolError> {
    let request = ElicitationRequest::new("Please confirm", one_field_schema("ok", "boolean"))
        .with_key("confirm");
    let response = elicitation.request(request).await?;
    Ok(format!(
        "state-ok: confirmed {}",
        answer_field(&response, "ok")
    ))
}

/// Asks the user, the client's model and the client's roots at once.
#[holon_tool(family = CoreAgent, name = "test_input_required_result_multiple_inputs")]
async fn test_input_required_result_multiple_inputs(
    elicitation: Elicitation,
    sampling: Sampling,
    roots: Roots,
) -> Result<String, ToolError> {
    let name = elicitation.request(
        ElicitationRequest::new("What is your name?", one_field_schema("name", "string"))
            .with_key("user_name"),
    );
    let greeting = sampling
        .create_message(SamplingRequest::user_text("Generate a greeting", 50).with_key("greeting"));
    let roots = roots.list_as("client_roots");
    let (name, greeting, roots) = tokio::join!(name, greeting, roots);
    let (name, greeting, roots) = (name?, greeting?, roots?);
    Ok(format!(
        "{} {} ({} roots)",
        greeting.text().unwrap_or("Hello"),
        answer_field(&name, "name"),
        roots.len()
    ))
}

/// Asks the user two questions, one after the other.
#[holon_tool(family = CoreAgent, name = "test_input_required_result_multi_round")]
async fn test_input_required_result_multi_round(
    elicitation: Elicitation,
) -> Result<String, ToolError> {
    let name = elicitation
        .request(
            ElicitationRequest::new(
                "Step 1: What is your name?",
                one_field_schema("name", "string"),
            )
            .with_key("step1"),
        )
        .await?;
    let color = elicitation
        .request(
            ElicitationRequest::new(
                "Step 2: What is your favorite color?",
                one_field_schema("color", "string"),
            )
            .with_key("step2"),
        )
        .await?;
    Ok(format!(
        "{} likes {}",
        answer_field(&name, "name"),
        answer_field(&color, "color")
    ))
}

/// Asks the user to confirm; a request state that does not come back as sealed is
/// refused before the tool runs again.
#[holon_tool(family = CoreAgent, name = "test_input_required_result_tampered_state")]
async fn test_input_required_result_tampered_state(
    elicitation: Elicitation,
) -> Result<String, ToolError> {
    let request = ElicitationRequest::new("Please confirm", one_field_schema("ok", "boolean"));
    let response = elicitation.request(request).await?;
    Ok(format!("confirmed {}", answer_field(&response, "ok")))
}

/// Asks what the client can answer: its model if it samples, its user if it elicits.
#[holon_tool(family = CoreAgent, name = "test_input_required_result_capabilities")]
async fn test_input_required_result_capabilities(
    sampling: Option<Sampling>,
    elicitation: Option<Elicitation>,
) -> Result<String, ToolError> {
    let mut answers = Vec::new();
    if let Some(sampling) = sampling {
        let reply = sampling
            .create_message(SamplingRequest::user_text("Say hello", 20))
            .await?;
        answers.push(format!("model: {}", reply.text().unwrap_or("(not text)")));
    }
    if let Some(elicitation) = elicitation {
        let response = elicitation
            .ask("What is your name?", one_field_schema("name", "string"))
            .await?;
        answers.push(format!("user: {}", answer_field(&response, "name")));
    }
    Ok(if answers.is_empty() {
        "the client can answer nothing".to_string()
    } else {
        answers.join("; ")
    })
}

/// Needs the client's model: a client that does not declare sampling cannot call it.
#[holon_tool(family = CoreAgent, name = "test_missing_capability")]
async fn test_missing_capability(sampling: Sampling) -> Result<String, ToolError> {
    let reply = sampling
        .create_message(SamplingRequest::user_text("Say hello", 20))
        .await?;
    Ok(reply.text().unwrap_or("(not text)").to_string())
}

/// Asks the user while the call runs (under 2026-07-28: in a round of its own, never
/// as a request on the call's stream).
#[holon_tool(family = CoreAgent, name = "test_streaming_elicitation")]
async fn test_streaming_elicitation(elicitation: Elicitation) -> Result<String, ToolError> {
    let response = elicitation
        .ask("What is your name?", one_field_schema("name", "string"))
        .await?;
    Ok(format!("Hello, {}!", answer_field(&response, "name")))
}

/// Logs one message at `info` (sent only when the client asked for logs).
#[holon_tool(family = CoreAgent, name = "test_logging_tool")]
async fn test_logging_tool(log: ClientLog) -> String {
    log.with_logger("test_logging_tool")
        .info("a log message")
        .await;
    "logged one message".to_string()
}

/// A JSON object literal of this file as a schema map.
fn object_schema(schema: Value) -> Map<String, Value> {
    match schema {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// An elicitation's outcome as `action=..., content={...}`.
fn describe(response: &ElicitationResponse) -> String {
    match response {
        ElicitationResponse::Accept(content) => {
            format!("action=accept, content={}", Value::Object(content.clone()))
        }
        other => format!("action={}", other.action()),
    }
}

/// One red pixel as a PNG image block, encoded by the `image` crate.
fn red_pixel() -> Result<ContentBlock, ToolError> {
    let pixel = image::RgbImage::from_pixel(1, 1, image::Rgb([255, 0, 0]));
    let mut png = Cursor::new(Vec::new());
    pixel
        .write_to(&mut png, image::ImageFormat::Png)
        .map_err(ToolError::internal)?;
    Ok(ContentBlock::Image {
        mime_type: "image/png".to_string(),
        data: BASE64.encode(png.into_inner()),
    })
}

/// `samples` samples of a sine of `frequency` Hz as a WAV file: 8 kHz, mono, 16 bit.
fn tone_wav(frequency: f64, samples: u32) -> Vec<u8> {
    const RATE: u32 = 8_000;
    let data_len = samples * 2;
    let mut wav = Vec::with_capacity(44 + data_len as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&RATE.to_le_bytes());
    wav.extend_from_slice(&(RATE * 2).to_le_bytes()); // bytes per second
    wav.extend_from_slice(&2u16.to_le_bytes()); // bytes per frame
    wav.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    for n in 0..samples {
        let t = f64::from(n) / f64::from(RATE);
        let sample =
            (f64::from(i16::MAX) * 0.5 * (2.0 * std::f64::consts::PI * frequency * t).sin()) as i16;
        wav.extend_from_slice(&sample.to_le_bytes());
    }
    wav
}

/// Serves the conformance tools over MCP's streamable HTTP (or stdio).
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Serve on stdin and stdout instead of HTTP.
    #[arg(long, conflicts_with_all = ["http", "no_auth", "token_file"])]
    stdio: bool,
    /// The address to serve on (port 0: any free port; the URL is printed on stderr).
    #[arg(long, default_value = "127.0.0.1:0")]
    http: SocketAddr,
    /// Serve without a bearer token (loopback only), as the suite sends none.
    #[arg(long)]
    no_auth: bool,
    /// Read the bearer token from this file (else HOLON_MCP_TOKEN, else a generated one).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Keep the tasks of the task tools in this SQLite file (`--store sqlite:FILE`).
    #[arg(long, value_name = "FILE", conflicts_with = "store")]
    task_db: Option<PathBuf>,
    /// Where the tasks of the task tools are kept: `memory` (the default),
    /// `sqlite:PATH` or `postgres://USER@HOST/DATABASE`.
    // Parsed after clap, so that a refused URL is never echoed with its password.
    #[arg(long, value_name = "URL", env = holon_mcp::STORE_URL_ENV, default_value = "memory")]
    store: String,
    /// Also serve browser pages of this origin (`scheme://host[:port]`); repeatable.
    /// Behind a balancer: the balancer's origin, which differs from the replica's own.
    #[arg(long = "allow-origin", value_name = "ORIGIN", conflicts_with = "stdio", value_parser = holon_mcp::http_guard::parse_origin)]
    allow_origins: Vec<String>,
    /// Also answer requests whose Host header is NAME (host, or host:port); repeatable.
    /// A loopback bind answers to the loopback names already.
    #[arg(long = "allowed-host", value_name = "NAME", conflicts_with = "stdio", value_parser = holon_mcp::http_guard::parse_allowed_host)]
    allowed_hosts: Vec<String>,
    /// Seal the requestState of 2026-07-28 input rounds with the keys of this file (one
    /// `ID BASE64_SECRET` a line, the current key first), over the store's: replicas
    /// given the same file open one another's rounds, as `holon-tools serve --key-file`.
    /// Else the store's keyring (shared on one database), or a key drawn at start.
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    // This crate's tools only: whatever else is linked is not what the suite tests.
    let registry = match Registry::of_module(module_path!()) {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("conformance-server: {error}");
            return ExitCode::FAILURE;
        }
    };
    let red_pixel_png = match red_pixel() {
        Ok(ContentBlock::Image { data, .. }) => data,
        _ => String::new(),
    };
    let server = McpServer::new(registry, holon_mcp::server_info!())
        .with_handler(extras::TestExtras { red_pixel_png });
    let store = match &cli.task_db {
        Some(path) => StoreUrl::Sqlite(path.clone()),
        None => match cli.store.parse::<StoreUrl>() {
            Ok(store) => store,
            Err(error) => {
                eprintln!("conformance-server: --store: {error}");
                return ExitCode::from(2);
            }
        },
    };
    let server = match cli.key_file.as_ref().map(holon_mcp::Keyring::from_file) {
        None => server,
        Some(Ok(keyring)) => server.with_keyring(&keyring),
        Some(Err(error)) => {
            eprintln!("conformance-server: --key-file: {error}");
            return ExitCode::from(2);
        }
    };
    let server = match Stores::open(&store) {
        Ok(stores) => server.with_stores(&stores),
        Err(error) => {
            eprintln!("conformance-server: --store {store}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let served = if cli.stdio {
        StdioServer::process(server)
            .with_graceful_shutdown(shutdown_signal())
            .await
    } else {
        // Through `new`: the fields behind holon-mcp's features are its defaults.
        let mut options = HttpOptions::new();
        options.no_auth = cli.no_auth;
        options.token_file = cli.token_file;
        options.allowed_hosts = cli.allowed_hosts;
        options.allow_origins = cli.allow_origins;
        serve_http(cli.http, server, options).await
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-server: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Serves on `addr` until Ctrl-C or SIGTERM, once stderr names the URL (the suite's
/// script reads it from there) and the token.
async fn serve_http(
    addr: SocketAddr,
    server: McpServer,
    options: HttpOptions,
) -> Result<(), ServeError> {
    let http = HttpServer::bind(addr, server, options).await?;
    eprintln!("{}", http.announcement());
    http.with_graceful_shutdown(shutdown_signal()).await
}
