use holon_core::prelude::*;

#[derive(Serialize, JsonSchema)]
pub struct Pong {
    pub pong: bool,
}

/// Answers a ping.
#[holon_tool(family = "CoreAgent")]
fn ping() -> Pong {
    Pong { pong: true }
}

/// Answers a ping, in a family that does not exist.
#[holon_tool(family = "Telepathy")]
fn ping_again() -> Pong {
    Pong { pong: true }
}

fn main() {}
