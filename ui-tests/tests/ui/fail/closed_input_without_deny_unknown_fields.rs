use holon_core::prelude::*;

#[derive(Deserialize, JsonSchema, ClosedInput)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

#[derive(Deserialize, JsonSchema, ClosedInput)]
#[serde(tag = "kind")]
pub enum Shape {
    Circle { radius: u32 },
    Square { side: u32 },
}

fn main() {}
