//! Typed errors shared by the workspace tools.

use std::path::Path;

use holon_core::closest;
use holon_core::prelude::*;

use holon_runtime::StoreError;
use holon_runtime::bindings::BindingState;

/// An error of kind `kind`.
pub(crate) fn error(kind: &'static str, message: impl Into<String>) -> ToolError {
    ToolError::new(ToolErrorKind::new(kind), message)
}

/// The store failed: retryable, nothing the model did wrong.
pub(crate) fn store_error(error: StoreError) -> ToolError {
    self::error("workspace_state_error", format!("{error}"))
        .with_hint("retry; if it keeps failing, the operator should check the state directory")
        .retryable()
}

/// A directory could not be prepared or read.
pub(crate) fn io_error(doing: &str, path: &Path, error: &std::io::Error) -> ToolError {
    self::error(
        "workspace_io_error",
        format!("{doing} {} failed: {error}", path.display()),
    )
    .retryable()
}

/// No workspace `workspace_id`, with the closest id as a hint.
pub(crate) fn unknown_workspace(
    state: &BindingState,
    workspace_id: &str,
    field: &str,
) -> ToolError {
    let ids: Vec<&str> = state
        .workspaces
        .iter()
        .map(|w| w.workspace_id.as_str())
        .collect();
    let hint = match closest(workspace_id, ids.iter().copied()) {
        Some(best) => format!("did you mean `{best}`? GetWorkspaceState lists the workspaces"),
        None => format!(
            "bound workspaces: {}; GetWorkspaceState lists them",
            ids.join(", ")
        ),
    };
    self::error(
        "unknown_workspace",
        format!("no workspace is bound with the id `{workspace_id}`"),
    )
    .with_field(field)
    .with_details(serde_json::json!({ "workspace_ids": ids }))
    .with_hint(hint)
}

/// No execution root `execution_root_id`, with the closest id as a hint.
pub(crate) fn unknown_execution_root(
    state: &BindingState,
    execution_root_id: &str,
    field: &str,
) -> ToolError {
    let ids: Vec<&str> = state.ids().collect();
    let hint = match closest(execution_root_id, ids.iter().copied()) {
        Some(best) => format!("did you mean `{best}`? GetWorkspaceState lists the execution roots"),
        None => format!(
            "execution roots: {} (a workspace id names its own directory)",
            ids.join(", ")
        ),
    };
    self::error(
        "unknown_execution_root",
        format!("no execution root has the id `{execution_root_id}`"),
    )
    .with_field(field)
    .with_details(serde_json::json!({ "execution_root_ids": ids }))
    .with_hint(hint)
}

/// How many of `workdirs` lie in `root` and in no deeper root of `all_roots`.
pub(crate) fn tasks_in(root: &Path, all_roots: &[&Path], workdirs: &[std::path::PathBuf]) -> usize {
    workdirs
        .iter()
        .filter(|dir| {
            dir.starts_with(root)
                && !all_roots.iter().any(|other| {
                    other != &root && other.starts_with(root) && dir.starts_with(other)
                })
        })
        .count()
}
