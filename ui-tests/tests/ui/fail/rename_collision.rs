use holon_core::prelude::*;

/// Arguments of MoveNote.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct MoveNoteArgs {
    /// The note.
    pub id: String,
    /// The folder to move it to.
    #[serde(rename = "id")]
    pub folder_id: String,
}

/// Arguments of CopyNote: the rename first.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CopyNoteArgs {
    /// The folder to copy it to.
    #[serde(rename = "id")]
    pub folder_id: String,
    /// The note.
    pub id: String,
}

/// Moves a note into a folder.
#[holon_tool(family = LocalEnvironment)]
fn move_note(args: MoveNoteArgs) -> String {
    format!("{} -> {}", args.id, args.folder_id)
}

/// Copies a note into a folder.
#[holon_tool(family = LocalEnvironment)]
fn copy_note(args: CopyNoteArgs) -> String {
    format!("{} -> {}", args.id, args.folder_id)
}

fn main() {}
