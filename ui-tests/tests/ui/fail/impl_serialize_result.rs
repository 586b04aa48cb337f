use holon_core::prelude::*;

/// Says hello.
#[holon_tool(family = CoreAgent)]
fn hello() -> impl Serialize {
    "hello"
}

/// Says hello later.
#[holon_tool(family = CoreAgent)]
async fn hello_later() -> Result<impl Serialize, ToolError> {
    Ok("hello")
}

fn main() {}
