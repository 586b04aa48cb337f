use holon_core::prelude::*;

/// Arguments of Summarize.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct SummarizeArgs {
    /// Path of the document.
    pub path: String,
}

#[derive(Serialize, JsonSchema)]
pub struct Summary {
    pub paragraphs: Vec<String>,
}

// No doc comment: the description comes from the file next to this one.
#[holon_tool(family = LocalEnvironment, description = include_str!("desc.md"))]
fn summarize(args: SummarizeArgs) -> Result<Summary, ToolError> {
    Ok(Summary {
        paragraphs: vec![args.path],
    })
}

/// A doc comment for the Rust reader; the model reads the literal instead.
#[holon_tool(family = LocalEnvironment, description = "Summarizes nothing at all.")]
fn summarize_nothing() -> Result<Summary, ToolError> {
    Ok(Summary {
        paragraphs: Vec::new(),
    })
}

fn main() {
    let registry = holon_core::Registry::global();
    let tool = registry.get("Summarize").expect("Summarize is registered");
    assert_eq!(&*tool.spec.description, include_str!("desc.md").trim_end());
    let tool = registry.get("SummarizeNothing").expect("registered");
    assert_eq!(&*tool.spec.description, "Summarizes nothing at all.");
}
