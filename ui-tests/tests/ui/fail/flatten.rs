use holon_core::prelude::*;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Paging {
    pub offset: u32,
    pub limit: u32,
}

/// Arguments of ListFiles.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ListFilesArgs {
    /// The directory to list.
    pub path: String,
    #[serde(flatten)]
    pub paging: Paging,
}

/// Lists the files of a directory.
#[holon_tool(family = LocalEnvironment)]
fn list_files(args: ListFilesArgs) -> Result<Vec<String>, ToolError> {
    Ok(vec![args.path])
}

fn main() {}
