use std::cell::Cell;
use std::rc::Rc;

use holon_core::prelude::*;

/// Arguments of Echo.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// Neither `Send` nor `Sync`.
pub struct Counter {
    pub calls: Rc<Cell<u32>>,
}

/// Sends the text back and counts the calls.
#[holon_tool(family = CoreAgent)]
fn echo(counter: &Counter, args: EchoArgs) -> Result<String, ToolError> {
    counter.calls.set(counter.calls.get() + 1);
    Ok(args.text)
}

fn main() {}
