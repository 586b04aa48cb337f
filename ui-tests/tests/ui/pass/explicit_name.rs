use holon_core::prelude::*;

#[derive(Serialize, JsonSchema)]
pub struct Pong {
    pub pong: bool,
}

/// Answers a ping.
#[holon_tool(family = Web, name = "Ping")]
fn ping_handler() -> Result<Pong, ToolError> {
    Ok(Pong { pong: true })
}

/// Names may use `_` and `-` and be 64 characters long.
#[holon_tool(
    family = Web,
    name = "_ping-v2_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)]
fn ping_v2() -> Result<Pong, ToolError> {
    Ok(Pong { pong: true })
}

const LONG_NAME: &str = "_ping-v2_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

fn main() {
    let registry = holon_core::Registry::global();
    assert!(registry.get("Ping").is_some());
    assert!(registry.get("PingHandler").is_none());
    assert!(registry.get(LONG_NAME).is_some());
}
