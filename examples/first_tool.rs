//! The README's quickstart: a tool declared with `#[holon_tool]`, found in the registry
//! because this program links it, and dispatched.
//!
//! ```sh
//! cargo run --example first_tool
//! ```

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall};

/// Arguments of CountWords. Field docs become schema descriptions.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CountWordsArgs {
    /// The text to count the words of.
    #[schemars(length(min = 1))]
    pub text: String,
}

/// What CountWords returns.
#[derive(Serialize, JsonSchema)]
pub struct WordCount {
    /// How many words the text has.
    pub words: usize,
}

/// Count the words of a text. Use it instead of counting by eye.
#[holon_tool(family = CoreAgent, annotations(read_only))]
fn count_words(args: CountWordsArgs) -> Result<WordCount, ToolError> {
    Ok(WordCount {
        words: args.text.split_whitespace().count(),
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    // The registry refuses to start on a tool it cannot serve; say why instead of panicking.
    let registry = match Registry::try_global() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("{error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let Some(definition) = registry.get("CountWords") else {
        eprintln!("CountWords is not registered: is the crate that declares it linked?");
        return std::process::ExitCode::FAILURE;
    };
    println!("tool: {}", definition.spec.name);
    println!("description: {}", definition.spec.description);
    println!("input schema: {}", definition.spec.input_schema);

    let context = ToolContext::new(FamilyPolicy::all());
    let call = ToolCall::new("CountWords", serde_json::json!({ "text": "one two three" }));
    let result = registry.dispatch(&context, call).await;
    println!("receipt:\n{}", result.receipt());
    match &result.structured {
        Some(structured) if structured["words"] == 3 => {
            println!("words: {}", structured["words"]);
            std::process::ExitCode::SUCCESS
        }
        _ => {
            eprintln!("unexpected result: {}", result.receipt());
            std::process::ExitCode::FAILURE
        }
    }
}
