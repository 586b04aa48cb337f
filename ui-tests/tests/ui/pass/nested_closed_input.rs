use std::collections::BTreeMap;

use holon_core::prelude::*;

/// A size.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

/// Unit variants only: nothing to close.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum Fit {
    Contain,
    Cover,
}

/// Struct variants: closed by the enum's `deny_unknown_fields`.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum Crop {
    Centre { size: Size },
    Offset { x: u32, y: u32 },
}

/// A newtype deserializes as what it wraps.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
pub struct Label(pub String);

/// Arguments of Resize: std containers of closed types are closed.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ResizeArgs {
    pub size: Size,
    pub fit: Option<Fit>,
    pub crops: Vec<Crop>,
    pub labels: BTreeMap<String, Label>,
    pub extra: Option<Box<Size>>,
    pub any: serde_json::Value,
    /// Another crate's type cannot implement `ClosedInput`: the registry checks it.
    #[tool_args(foreign)]
    pub timeout: Option<std::time::Duration>,
}

#[derive(Serialize, JsonSchema)]
pub struct Resized {
    pub width: u32,
}

/// Resizes.
#[holon_tool(family = CoreAgent)]
fn resize(args: ResizeArgs) -> Resized {
    Resized { width: args.size.width }
}

fn main() {}
