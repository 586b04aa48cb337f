use holon_core::prelude::*;

/// Only `Serialize`.
#[derive(Serialize)]
pub struct Pong {
    pub pong: bool,
}

/// Only `JsonSchema`.
#[derive(JsonSchema)]
pub struct Pang {
    pub pang: bool,
}

/// Answers a ping.
#[holon_tool(family = CoreAgent)]
fn ping() -> Pong {
    Pong { pong: true }
}

/// Answers a pang.
#[holon_tool(family = CoreAgent)]
fn pang() -> Result<Pang, ToolError> {
    Ok(Pang { pang: true })
}

fn main() {}
