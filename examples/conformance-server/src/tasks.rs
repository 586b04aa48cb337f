//! The tools the suite's `tasks-*` scenarios (the tasks extension, SEP-2663) call:
//! `greet` never runs as a task; the others run as tasks when the client declares
//! the extension (`failing_job` only then).

use std::time::Duration;

use holon_core::prelude::*;
use holon_core::{Elicitation, ElicitationRequest, ElicitationResponse, TaskEscalation};
use serde_json::{Map, Value, json};

/// Arguments of `greet`.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct GreetArgs {
    /// Whom to greet.
    pub name: String,
}

/// Greets someone, at once.
#[holon_tool(family = CoreAgent, name = "greet")]
fn greet(args: GreetArgs) -> ToolOutput<String> {
    let text = format!("Hello, {}!", args.name);
    ToolOutput::new(text.clone()).with_receipt(text)
}

/// Arguments of `slow_compute`.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct SlowComputeArgs {
    /// How long to work, in seconds.
    pub seconds: f64,
    /// A label the result repeats.
    #[serde(default)]
    pub label: Option<String>,
}

/// Works for some seconds, then says so; a task when the client supports tasks.
#[holon_tool(family = CoreAgent, name = "slow_compute", task = optional)]
async fn slow_compute(args: SlowComputeArgs) -> Result<ToolOutput<String>, ToolError> {
    let seconds = Duration::try_from_secs_f64(args.seconds).map_err(|_| {
        ToolError::invalid_input("`seconds` is a duration: a number of seconds, 0 or more")
    })?;
    tokio::time::sleep(seconds).await;
    let text = format!(
        "computed for {}s ({})",
        args.seconds,
        args.label.as_deref().unwrap_or("no label")
    );
    Ok(ToolOutput::new(text.clone()).with_receipt(text))
}

/// Fails after a second, as a tool does; only ever a task.
#[holon_tool(family = CoreAgent, name = "failing_job", task = required)]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new(
        ToolErrorKind::new("job_failed"),
        "the job failed, as it always does",
    ))
}

/// Panics: a failure below the tool, which fails its task.
#[holon_tool(family = CoreAgent, name = "protocol_error_job", task = optional)]
async fn protocol_error_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("protocol_error_job fails below the tool, on purpose")
}

/// Arguments of `confirm_delete`.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ConfirmDeleteArgs {
    /// The file to delete (nothing is deleted: the tool only asks).
    pub filename: String,
}

/// The schema of a yes-or-no question.
fn confirm_schema() -> Map<String, Value> {
    let schema = json!({
        "type": "object",
        "properties": { "confirm": { "type": "boolean", "description": "Go ahead?" } },
        "required": ["confirm"]
    });
    match schema {
        Value::Object(schema) => schema,
        _ => Map::new(),
    }
}

fn accepted(response: &ElicitationResponse) -> bool {
    matches!(response, ElicitationResponse::Accept(content) if content.get("confirm") == Some(&json!(true)))
}

/// Asks the user to confirm deleting a file, then reports the answer.
#[holon_tool(family = CoreAgent, name = "confirm_delete", task = optional)]
async fn confirm_delete(
    elicitation: Elicitation,
    args: ConfirmDeleteArgs,
) -> Result<String, ToolError> {
    let answer = elicitation
        .ask(format!("Delete {}?", args.filename), confirm_schema())
        .await?;
    Ok(if accepted(&answer) {
        format!("deleted {} (not really)", args.filename)
    } else {
        format!("kept {}", args.filename)
    })
}

/// Asks the user two questions at once, then reports both answers.
#[holon_tool(family = CoreAgent, name = "multi_input", task = optional)]
async fn multi_input(elicitation: Elicitation) -> Result<String, ToolError> {
    let (first, second) = tokio::join!(
        elicitation.ask("First question: go ahead?", confirm_schema()),
        elicitation.ask("Second question: go ahead?", confirm_schema()),
    );
    Ok(format!(
        "first: {}, second: {}",
        accepted(&first?),
        accepted(&second?)
    ))
}

/// The schema of a question for the user's name.
fn name_schema() -> Map<String, Value> {
    let schema = json!({
        "type": "object",
        "properties": { "name": { "type": "string", "description": "Your name" } },
        "required": ["name"]
    });
    match schema {
        Value::Object(schema) => schema,
        _ => Map::new(),
    }
}

/// Asks the user's name within the request, then goes on as a task and greets them
/// (the composition of input rounds with tasks).
#[holon_tool(family = CoreAgent, name = "test_tool_with_task", task = required)]
async fn test_tool_with_task(
    elicitation: Elicitation,
    task: TaskEscalation,
) -> Result<String, ToolError> {
    let request =
        ElicitationRequest::new("What is your name?", name_schema()).with_key("user_name");
    let name = match elicitation.request(request).await? {
        ElicitationResponse::Accept(content) => content
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("stranger")
            .to_string(),
        _ => "stranger".to_string(),
    };
    task.escalate().await?;
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(format!("Hello, {name}, from a task"))
}
