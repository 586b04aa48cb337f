//! A minimal agent: sends a prompt to an OpenAI-compatible (Chat Completions or
//! Responses) or Anthropic endpoint with this program's two tools, runs the model's
//! tool calls with holon-provider's loop until it answers, and prints the answer.
//!
//! ```sh
//! export OPENAI_API_KEY=...   # or ANTHROPIC_API_KEY with --provider anthropic
//! cargo run -p holon-agent-example -- --model gpt-5-mini "What is 17.5 * 4 - 3?"
//! ```

mod endpoint;
mod tools;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use holon_core::{FamilyPolicy, Registry, ToolContext};
use holon_provider::{Provider, StopReason, Transcript, run_loop};
use serde_json::Value;

use crate::endpoint::{Endpoint, defaults};

/// A minimal agent over a model API, with a calculator and a word counter as tools.
///
/// The key is read from the environment only (OPENAI_API_KEY, or ANTHROPIC_API_KEY
/// with --provider anthropic, or the variable --api-key-env names), never from the
/// command line, and never printed.
#[derive(Parser)]
#[command(name = "agent")]
struct Args {
    /// The API: openai-chat (any Chat Completions endpoint), openai-responses or anthropic.
    #[arg(long, default_value = "openai-chat", value_parser = parse_provider)]
    provider: Provider,
    /// The API's base URL, e.g. http://localhost:11434/v1 [default: OPENAI_BASE_URL or
    /// ANTHROPIC_BASE_URL, else the provider's own]
    #[arg(long)]
    base_url: Option<String>,
    /// The environment variable holding the API key [default: OPENAI_API_KEY, or
    /// ANTHROPIC_API_KEY with --provider anthropic]
    #[arg(long)]
    api_key_env: Option<String>,
    /// The model.
    #[arg(long)]
    model: String,
    /// The most model responses to handle before giving up.
    #[arg(long, default_value_t = 8)]
    max_turns: usize,
    /// What to ask.
    prompt: String,
}

fn parse_provider(name: &str) -> Result<Provider, String> {
    match name.parse::<Provider>() {
        Ok(provider @ (Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Anthropic)) => {
            Ok(provider)
        }
        _ => Err("one of openai-chat, openai-responses, anthropic".to_string()),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run(Args::parse()).await {
        Ok(answer) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("agent: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<String, String> {
    let (key_default, base_var, base_default) = defaults(args.provider);
    let key_var = args.api_key_env.as_deref().unwrap_or(key_default);
    let key = std::env::var(key_var).map_err(|_| {
        format!("set {key_var} to the API key (or name another variable with --api-key-env)")
    })?;
    let base_url = args
        .base_url
        .or_else(|| std::env::var(base_var).ok())
        .unwrap_or_else(|| base_default.to_string());
    let endpoint = Endpoint::new(args.provider, &base_url, &key, key_var)?;

    let context = ToolContext::new(FamilyPolicy::all()).with_timeout(Duration::from_secs(30));
    let transcript = run_loop(
        Registry::global(),
        &context,
        args.provider,
        endpoint.first_request(&args.model, &args.prompt),
        args.max_turns,
        |request| endpoint.send(request),
    )
    .await
    .map_err(|error| error.to_string())?;
    report_calls(&transcript);
    if transcript.stop == StopReason::TurnLimit {
        return Err(format!(
            "the model was still calling tools after {} turns; raise --max-turns",
            args.max_turns
        ));
    }
    let last = transcript.last_response().unwrap_or(&Value::Null);
    answer(args.provider, last)
        .ok_or_else(|| "the model stopped without calling a tool or answering in text".to_string())
}

/// Each call the model made and its receipt, on stderr (stdout has the answer only).
fn report_calls(transcript: &Transcript) {
    for (_, turn) in &transcript.turns {
        for (call, result) in turn.calls.iter().zip(&turn.results) {
            eprintln!("[{}] {}", call.name, result.receipt());
        }
    }
}

/// The text of a final response: the Chat message's content, the Responses output
/// messages' `output_text` parts, the Anthropic `text` blocks.
fn answer(provider: Provider, response: &Value) -> Option<String> {
    let texts: Vec<&str> = match provider {
        Provider::OpenAiChat => vec![response["choices"][0]["message"]["content"].as_str()?],
        Provider::OpenAiResponses => response["output"]
            .as_array()?
            .iter()
            .filter(|item| item["type"] == "message")
            .filter_map(|item| item["content"].as_array())
            .flatten()
            .filter(|part| part["type"] == "output_text")
            .filter_map(|part| part["text"].as_str())
            .collect(),
        _ => response["content"]
            .as_array()?
            .iter()
            .filter(|block| block["type"] == "text")
            .filter_map(|block| block["text"].as_str())
            .collect(),
    };
    (!texts.is_empty()).then(|| texts.join("\n"))
}
