//! The agent's own tools: small, pure and read-only, so that a model's calls of them
//! in one turn run concurrently.

use holon_core::prelude::*;

/// An arithmetic operation.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// a + b
    Add,
    /// a - b
    Subtract,
    /// a * b
    Multiply,
    /// a / b
    Divide,
}

/// Arguments of Calculate.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CalculateArgs {
    /// The left operand.
    pub a: f64,
    /// The operation.
    pub op: Operation,
    /// The right operand.
    pub b: f64,
}

/// The value computed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Calculated {
    /// The result of `a op b`.
    pub result: f64,
}

/// Compute `a op b` exactly as a computer does. Use it for any arithmetic instead of
/// computing in your head.
#[holon_tool(family = CoreAgent, annotations(read_only))]
fn calculate(args: CalculateArgs) -> Result<Calculated, ToolError> {
    let result = match args.op {
        Operation::Add => args.a + args.b,
        Operation::Subtract => args.a - args.b,
        Operation::Multiply => args.a * args.b,
        Operation::Divide if args.b == 0.0 => {
            return Err(ToolError::new(
                ToolErrorKind::new("division_by_zero"),
                "cannot divide by zero",
            )
            .with_field("b")
            .with_hint("give a non-zero divisor"));
        }
        Operation::Divide => args.a / args.b,
    };
    Ok(Calculated { result })
}

/// Arguments of CountWords.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CountWordsArgs {
    /// The text to count the words of.
    pub text: String,
}

/// The words counted.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WordCount {
    /// How many whitespace-separated words the text has.
    pub words: usize,
}

/// Count the whitespace-separated words of a text. Use it instead of counting by eye.
#[holon_tool(family = CoreAgent, annotations(read_only))]
fn count_words(args: CountWordsArgs) -> WordCount {
    WordCount {
        words: args.text.split_whitespace().count(),
    }
}
