use holon_core::prelude::*;

/// A window size, without `#[derive(ClosedInput)]`: `{"width": 1, "heigth": 2}` would
/// pass with the misspelt field ignored.
#[derive(Deserialize, JsonSchema)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

#[derive(Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ResizeArgs {
    pub size: Size,
    pub others: Option<Vec<Size>>,
}

fn main() {}
