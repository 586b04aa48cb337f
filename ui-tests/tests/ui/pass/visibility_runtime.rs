use holon_core::prelude::*;

#[derive(Serialize, JsonSchema)]
pub struct Flushed {
    pub flushed: bool,
}

/// Flushes the operator queue. Dispatchable by the runtime, never advertised to a model.
#[holon_tool(family = CoreAgent, visibility = runtime)]
fn flush_queue() -> Result<Flushed, ToolError> {
    Ok(Flushed { flushed: true })
}

/// The default, spelt out.
#[holon_tool(family = CoreAgent, visibility = model)]
fn flush_visible() -> Result<Flushed, ToolError> {
    Ok(Flushed { flushed: true })
}

fn main() {
    let registry = holon_core::Registry::global();
    assert!(
        !registry
            .get("FlushQueue")
            .expect("registered")
            .is_model_facing()
    );
    assert!(
        registry
            .get("FlushVisible")
            .expect("registered")
            .is_model_facing()
    );
}
