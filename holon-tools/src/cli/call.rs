//! `holon-tools call` and `holon-tools session`.

use super::output::emit_line;
use std::process::ExitCode;
use std::sync::Arc;

use holon_core::{FamilyPolicy, ToolError, ToolErrorKind, ToolResult};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::EXIT_TOOL_ERROR;
use crate::runtime::Runtime;

/// Dispatches one call and prints its receipt (or envelope).
pub(crate) async fn call(
    runtime: Arc<Runtime>,
    policy: FamilyPolicy,
    name: &str,
    input: Option<&str>,
    json: bool,
) -> ExitCode {
    let text = match input {
        None => "{}".into(),
        // `-`: an input too long for a command line (a big patch) comes on stdin.
        Some("-") => match std::io::read_to_string(std::io::stdin()) {
            Ok(text) => std::borrow::Cow::Owned(text),
            Err(error) => {
                eprintln!("holon-tools: cannot read the input from stdin: {error}");
                return ExitCode::from(EXIT_TOOL_ERROR);
            }
        },
        Some(text) => text.into(),
    };
    // Malformed JSON is the operator's typo, said on stderr; the arguments are then
    // dispatched as text, so a repeated key is refused, not collapsed.
    match serde_json::from_str::<IgnoredAny>(&text) {
        Ok(_) => {}
        Err(error) => {
            eprintln!(
                "holon-tools: the input is not valid JSON ({error}); pass an object such as '{{\"duration_ms\": 10}}', or `-` and the JSON on stdin"
            );
            return ExitCode::from(EXIT_TOOL_ERROR);
        }
    }
    let result = runtime.dispatch_text(policy, name, &text, None).await;
    if json {
        match serde_json::to_string_pretty(&result) {
            Ok(text) => emit_line(&text),
            Err(error) => eprintln!("holon-tools: {error}"),
        }
    } else {
        emit_line(&result.receipt());
    }
    if result.error.is_some() {
        ExitCode::from(EXIT_TOOL_ERROR)
    } else {
        ExitCode::SUCCESS
    }
}

/// One line of a session: a call whose input is kept as the JSON text it was sent as.
#[derive(Deserialize)]
struct SessionCall<'a> {
    name: String,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(default)]
    call_id: Option<String>,
}

/// Reads calls from stdin, one JSON object a line, and writes one envelope a line.
pub(crate) async fn session(runtime: Arc<Runtime>, policy: FamilyPolicy) -> ExitCode {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                eprintln!("holon-tools: cannot read stdin: {error}");
                return ExitCode::FAILURE;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        // A line with a `host` field is a host command (publish_final, begin_turn, ...).
        let result = if let Some(reply) = runtime.host_line(&line) {
            reply
        } else {
            match serde_json::from_str::<SessionCall<'_>>(&line) {
                Ok(call) => {
                    let input = call.input.map_or("{}", RawValue::get);
                    runtime
                        .dispatch_text(policy, &call.name, input, call.call_id)
                        .await
                }
                Err(error) => ToolResult::from_error(
                    Arc::from(""),
                    ToolError::new(
                        ToolErrorKind::new("invalid_session_line"),
                        format!("the line is not a call: {error}"),
                    )
                    .with_hint(r#"send one JSON object a line: {"name": "Sleep", "input": {"duration_ms": 10}}"#),
                ),
            }
        };
        let mut text = match serde_json::to_string(&result) {
            Ok(text) => text,
            Err(error) => {
                eprintln!("holon-tools: {error}");
                return ExitCode::FAILURE;
            }
        };
        text.push('\n');
        if stdout.write_all(text.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
            // The reader went away: nothing more to answer.
            break;
        }
    }
    ExitCode::SUCCESS
}
