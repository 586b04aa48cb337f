use holon_core::prelude::*;

/// Arguments of ApplyScript: JSON, or raw text constrained by the grammar.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ScriptArgs {
    /// The script to apply.
    pub script: String,
}

impl FromFreeform for ScriptArgs {
    fn from_freeform(text: String) -> Result<Self, ToolError> {
        Ok(Self { script: text })
    }
}

#[derive(Serialize, JsonSchema)]
pub struct Applied {
    pub lines: usize,
}

/// Applies a script, one command a line.
#[holon_tool(
    family = LocalEnvironment,
    freeform(syntax = "lark", definition = include_str!("freeform.lark")),
)]
fn apply_script(args: ScriptArgs) -> Result<Applied, ToolError> {
    Ok(Applied {
        lines: args.script.lines().count(),
    })
}

fn main() {
    let registry = holon_core::Registry::global();
    let tool = registry
        .get("ApplyScript")
        .expect("ApplyScript is registered");
    let grammar = tool.spec.freeform_grammar.as_ref().expect("a grammar");
    assert_eq!(grammar.syntax, holon_core::GrammarSyntax::Lark);
    assert!(grammar.definition.starts_with("start:"));
}
