//! Ordinary tools with 64-bit integer fields (whose schemas carry holon's own ±2^53
//! bound) and fields named like schema keywords (`pattern`, `format`): a lean build,
//! without holon-core's `validate` feature, serves them and keeps the bound.

use holon_core::prelude::*;

/// Arguments of Add.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// Adds two integers.
#[holon_tool(family = CoreAgent)]
fn add(args: AddArgs) -> i64 {
    args.a.saturating_add(args.b)
}

/// The longest text Repeat writes, in bytes.
pub const MAX_BYTES: usize = 1 << 20;

/// Arguments of Repeat.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct RepeatArgs {
    /// The text to repeat.
    pub pattern: String,
    /// How many times (the text written is at most 1 MiB).
    pub times: usize,
}

/// Writes a text several times over.
#[holon_tool(family = CoreAgent)]
fn repeat(args: RepeatArgs) -> Result<String, ToolError> {
    let most = MAX_BYTES / args.pattern.len().max(1);
    if args.times > most {
        return Err(ToolError::invalid_input(format!(
            "`times` is {}: the text would be longer than the {MAX_BYTES} bytes Repeat writes",
            args.times
        ))
        .with_field("times")
        .with_hint(format!(
            "ask for at most {most} repetitions of this pattern"
        )));
    }
    Ok(args.pattern.repeat(args.times))
}

/// Arguments of FormatNumber.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct FormatNumberArgs {
    /// The number to write.
    pub value: u64,
    /// How to write it: `decimal`, `hex` or `binary`.
    pub format: String,
}

/// Writes a number in decimal, hexadecimal or binary.
#[holon_tool(family = CoreAgent)]
fn format_number(args: FormatNumberArgs) -> Result<String, ToolError> {
    match args.format.as_str() {
        "decimal" => Ok(args.value.to_string()),
        "hex" => Ok(format!("{:#x}", args.value)),
        "binary" => Ok(format!("{:#b}", args.value)),
        other => Err(ToolError::invalid_input(format!(
            "`format` is `{other}`, which is not a way FormatNumber writes numbers"
        ))
        .with_field("format")
        .with_hint("use `decimal`, `hex` or `binary`")),
    }
}
