use holon_core::prelude::*;

/// Arguments of ReadFile.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// Path of the file.
    pub path: String,
}

#[derive(Serialize, JsonSchema)]
pub struct FileText {
    pub text: String,
}

/// Reads a file.
#[holon_tool(family = LocalEnvironment, annotations(read_only, idempotent))]
fn read_file(args: ReadFileArgs) -> Result<FileText, ToolError> {
    Ok(FileText { text: args.path })
}

/// Fetches a URL; every hint spelt out.
#[holon_tool(
    family = Web,
    annotations(read_only = true, destructive = false, idempotent, open_world = true)
)]
fn fetch_url(args: ReadFileArgs) -> Result<FileText, ToolError> {
    Ok(FileText { text: args.path })
}

fn main() {
    let registry = holon_core::Registry::global();
    let hints = registry.get("ReadFile").expect("registered").annotations;
    assert_eq!(hints.read_only, Some(true));
    assert_eq!(hints.idempotent, Some(true));
    assert_eq!(hints.destructive, None);
    let hints = registry.get("FetchUrl").expect("registered").annotations;
    assert_eq!(hints.destructive, Some(false));
    assert_eq!(hints.open_world, Some(true));
}
