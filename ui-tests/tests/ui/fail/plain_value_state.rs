use holon_core::prelude::*;

/// Greets someone by name: `name` was meant as the model's input, but without an
/// arguments struct it would be looked up as state and never found.
#[holon_tool(family = CoreAgent)]
fn greet(name: &String, times: &u32, loud: &bool, prefix: &str) -> String {
    format!("{prefix}{name} {times} {loud}")
}

fn main() {}
