use holon_core::prelude::*;

#[derive(Serialize, JsonSchema)]
pub struct Shot {
    pub width: u32,
    pub height: u32,
}

/// Takes a screenshot; the envelope carries a summary and an artifact besides the value.
#[holon_tool(family = LocalEnvironment)]
fn take_screenshot() -> Result<ToolOutput<Shot>, ToolError> {
    Ok(ToolOutput::new(Shot {
        width: 640,
        height: 480,
    })
    .with_summary("640x480")
    .with_artifact("shot.png", "screenshot"))
}

/// The same without `Result`.
#[holon_tool(family = LocalEnvironment)]
fn take_thumbnail() -> ToolOutput<Shot> {
    ToolOutput::new(Shot {
        width: 64,
        height: 48,
    })
}

fn main() {
    let registry = holon_core::Registry::global();
    let tool = registry.get("TakeScreenshot").expect("registered");
    // The result schema is the value's, not the envelope's.
    assert!(tool.result_schema["properties"].get("width").is_some());
    assert!(registry.get("TakeThumbnail").is_some());
}
