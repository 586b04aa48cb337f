use holon_core::prelude::*;

/// Arguments of ReadConfig.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ReadConfigArgs {
    /// The file to read.
    pub path: String,
}

/// Reads a configuration file.
#[holon_tool(family = LocalEnvironment)]
fn read_config(args: ReadConfigArgs) -> anyhow::Result<String> {
    Ok(std::fs::read_to_string(args.path)?)
}

fn main() {}
