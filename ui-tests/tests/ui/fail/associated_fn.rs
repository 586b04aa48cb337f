use holon_core::prelude::*;

#[derive(Serialize, JsonSchema)]
pub struct Pong {
    pub pong: bool,
}

pub struct Service;

impl Service {
    /// Answers a ping.
    #[holon_tool(family = CoreAgent)]
    fn ping() -> Pong {
        Pong { pong: true }
    }
}

fn main() {}
