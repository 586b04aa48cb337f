use holon_core::prelude::*;

/// Where to read from.
#[derive(Debug, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Source {
    /// A file.
    #[serde(alias = "path")]
    File { name: String },
}

/// Arguments of ReadFile.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// The file to read.
    #[serde(alias = "file_path")]
    pub path: String,
    /// Where from.
    pub source: Source,
}

/// Reads a file.
#[holon_tool(family = LocalEnvironment)]
fn read_file(args: ReadFileArgs) -> String {
    args.path
}

fn main() {}
