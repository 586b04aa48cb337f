//! `holon-tools call` and `holon-tools session`.

use super::output::emit_line;
use std::process::ExitCode;
use std::sync::Arc;

use std::io::IsTerminal;

use holon_core::{
    Deferral, FamilyPolicy, Registry, ToolCall, ToolError, ToolErrorKind, ToolResult,
};
use holon_policy::Standing;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::EXIT_TOOL_ERROR;
use holon_runtime::Runtime;

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
    // The arguments are dispatched as text, so a repeated key is refused, not
    // collapsed. Text that is not JSON is a freeform tool's raw input (a patch piped to
    // ApplyPatch), or else the operator's typo, said on stderr.
    let result = match serde_json::from_str::<IgnoredAny>(&text) {
        Ok(_) => runtime.dispatch_text(policy, name, &text, None).await,
        Err(_) if takes_freeform(name) => {
            let call = ToolCall::freeform(name, text.into_owned());
            runtime.dispatch(policy, call).await
        }
        Err(error) => {
            eprintln!("holon-tools: {}", not_json(name, &error));
            return ExitCode::from(EXIT_TOOL_ERROR);
        }
    };
    if json {
        match serde_json::to_string_pretty(&result) {
            Ok(text) => emit_line(&text),
            Err(error) => eprintln!("holon-tools: {error}"),
        }
    } else {
        emit_line(&result.receipt());
    }
    // The runtime, and with it every process it started, ends with this `call`.
    let live = runtime.tasks().live_ids();
    if !live.is_empty() {
        let note = format!(
            "note: {} ends now, with this `call`: the commands a runtime starts end with \
             it; run them from `holon-tools session` or `serve` to keep them going",
            live.join(", ")
        );
        // The receipt is the answer; a JSON envelope stays one document.
        if json {
            eprintln!("holon-tools: {note}");
        } else {
            emit_line(&note);
        }
    }
    if result.error.is_some() {
        ExitCode::from(EXIT_TOOL_ERROR)
    } else {
        ExitCode::SUCCESS
    }
}

/// Whether the tool `name` also takes raw text, by a freeform grammar.
fn takes_freeform(name: &str) -> bool {
    Registry::global()
        .get(name)
        .is_some_and(|definition| definition.spec.freeform_grammar.is_some())
}

/// What to say of an input that is not JSON, for the tool it was meant for: its own
/// fields, and where to read its schema.
fn not_json(name: &str, error: &serde_json::Error) -> String {
    let Some(definition) = Registry::global().get(name) else {
        return format!(
            "the input is not valid JSON ({error}); pass the tool's arguments as a JSON object, or `-` and the JSON on stdin (`holon-tools list` names the tools)"
        );
    };
    let fields = definition
        .spec
        .input_schema
        .get("properties")
        .and_then(serde_json::Value::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    let fields = if fields.is_empty() {
        "it takes no fields: pass '{}'".to_string()
    } else {
        format!("its fields: {}", fields.join(", "))
    };
    format!(
        "the input is not valid JSON ({error}); pass {name}'s arguments as a JSON object ({fields}; `holon-tools schema {name}` prints its schema), or `-` and the JSON on stdin"
    )
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

/// The longest session line read by default: 16 MiB, room for a large patch.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 << 20;

/// One line of stdin as the session reads it.
enum Line {
    /// A line of UTF-8 text, without its line break.
    Text(String),
    /// A line that is not UTF-8: where the first invalid byte is.
    NotUtf8 { valid_up_to: usize },
    /// A line longer than the cap, discarded up to its line break: how long it was.
    TooLong { bytes: u64 },
}

/// Reads the next line of `reader`, holding at most `max` bytes of it; `None` at the
/// end of the input. The rest of a line over `max` is read and dropped.
async fn next_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    buffer: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<Line>> {
    buffer.clear();
    let mut length: u64 = 0;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            if length == 0 {
                return Ok(None);
            }
            break;
        }
        let (take, found) = match available.iter().position(|byte| *byte == b'\n') {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        length += take as u64;
        if length <= max as u64 {
            buffer.extend_from_slice(&available[..take]);
        }
        reader.consume(take + usize::from(found));
        if found {
            break;
        }
    }
    if length > max as u64 {
        return Ok(Some(Line::TooLong { bytes: length }));
    }
    if buffer.last() == Some(&b'\r') {
        buffer.pop();
    }
    Ok(Some(match String::from_utf8(std::mem::take(buffer)) {
        Ok(text) => Line::Text(text),
        Err(error) => Line::NotUtf8 {
            valid_up_to: error.utf8_error().valid_up_to(),
        },
    }))
}

/// The answer to a line that is not a call.
fn refused_line(kind: &'static str, message: String) -> ToolResult {
    ToolResult::from_error(
        "",
        ToolError::new(ToolErrorKind::new(kind), message).with_hint(
            r#"send one JSON object a line: {"name": "Sleep", "input": {"duration_ms": 10}}"#,
        ),
    )
}

/// Reads calls from stdin, one JSON object a line of at most `max_line_bytes`, and
/// writes one envelope a line. A line that is not UTF-8, not a call, or too long is
/// answered with an error envelope, and the session goes on.
pub(crate) async fn session(
    runtime: Arc<Runtime>,
    policy: FamilyPolicy,
    max_line_bytes: usize,
) -> ExitCode {
    let interactive = std::io::stdin().is_terminal();
    let mut reader = BufReader::new(tokio::io::stdin());
    let mut buffer = Vec::new();
    let mut stdout = tokio::io::stdout();
    loop {
        let line = match next_line(&mut reader, &mut buffer, max_line_bytes).await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                eprintln!("holon-tools: cannot read stdin: {error}");
                return ExitCode::FAILURE;
            }
        };
        let result = match line {
            Line::Text(line) if line.trim().is_empty() => continue,
            Line::Text(line) => {
                let result = dispatch_line(&runtime, policy, &line).await;
                match result.deferral() {
                    // At a terminal the operator is there to answer; elsewhere the
                    // deferred envelope goes out and the call waits for
                    // `holon-tools approvals`.
                    Some(Deferral::ApprovalRequired(asked)) if interactive => {
                        let id = asked.approval_id.clone();
                        match ask_operator(&runtime, &mut reader, &mut buffer, &id).await {
                            Some(answer) => answer,
                            None => result,
                        }
                    }
                    _ => result,
                }
            }
            Line::NotUtf8 { valid_up_to } => refused_line(
                "invalid_session_line",
                format!(
                    "the line is not UTF-8: byte {valid_up_to} is not part of a UTF-8 character"
                ),
            ),
            Line::TooLong { bytes } => refused_line(
                "session_line_too_long",
                format!(
                    "the line has {bytes} bytes, more than the session reads ({max_line_bytes}); it was dropped"
                ),
            ),
        };
        if !answer(&mut stdout, &result).await {
            break;
        }
    }
    ExitCode::SUCCESS
}

/// The answer to one line of text: a host command (a line with a `host` field, such
/// as publish_final or begin_turn), else a call.
async fn dispatch_line(runtime: &Arc<Runtime>, policy: FamilyPolicy, line: &str) -> ToolResult {
    if let Some(reply) = runtime.host_line(line) {
        return reply;
    }
    match serde_json::from_str::<SessionCall<'_>>(line) {
        Ok(call) => {
            let input = call.input.map_or("{}", RawValue::get);
            runtime
                .dispatch_text(policy, &call.name, input, call.call_id)
                .await
        }
        Err(error) => refused_line(
            "invalid_session_line",
            format!("the line is not a call: {error}"),
        ),
    }
}

/// Writes `result` as one line; whether the reader is still there.
async fn answer(stdout: &mut tokio::io::Stdout, result: &ToolResult) -> bool {
    let mut text = match serde_json::to_string(result) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("holon-tools: {error}");
            return false;
        }
    };
    text.push('\n');
    stdout.write_all(text.as_bytes()).await.is_ok() && stdout.flush().await.is_ok()
}

/// Asks the operator at the terminal about the asked call `id` and carries out the
/// answer: its result, or the refusal. `None` leaves the call pending (the operator
/// answered `later`, or stdin ended), and the deferred envelope is the answer.
async fn ask_operator<R: tokio::io::AsyncBufRead + Unpin>(
    runtime: &Arc<Runtime>,
    reader: &mut R,
    buffer: &mut Vec<u8>,
    id: &str,
) -> Option<ToolResult> {
    let approvals = match runtime.approvals() {
        Ok(approvals) => approvals,
        Err(error) => {
            eprintln!("holon-tools: {error}");
            return None;
        }
    };
    let call = approvals.store().get(id).ok().flatten()?;
    eprintln!("\n{}", super::approvals::describe(&call));
    loop {
        eprint!(
            "approve? [y]es, [n]o, [a]lways for this principal, [l]ater (n: MESSAGE denies with a message) "
        );
        let answer = match next_line(reader, buffer, DEFAULT_MAX_LINE_BYTES).await {
            Ok(Some(Line::Text(text))) => text,
            Ok(Some(_)) => continue,
            Ok(None) | Err(_) => return None,
        };
        let answer = answer.trim();
        let (word, message) = match answer.split_once(':') {
            Some((word, message)) => (word.trim(), Some(message.trim().to_string())),
            None => (answer, None),
        };
        let (approve, standing) = match word {
            "y" | "yes" => (true, Standing::Once),
            "a" | "always" => (true, Standing::Principal),
            "n" | "no" => (false, Standing::Once),
            "l" | "later" => return None,
            _ => continue,
        };
        // The operator at this terminal: the OS user.
        let operator = super::approvals::operator_name();
        let decided = super::approvals::Decided {
            approve,
            standing,
            message,
            by: &operator,
        };
        let outcome = super::approvals::decide(runtime, &approvals, id, decided).await;
        return Some(
            outcome.unwrap_or_else(|error| ToolResult::from_error(call.tool.clone(), error)),
        );
    }
}
