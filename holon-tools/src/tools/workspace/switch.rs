//! `SwitchWorkspace`: pick the active execution root and the working directory.

use holon_core::prelude::schemars::Schema;
use holon_core::prelude::*;
use serde_json::json;

use holon_runtime::Runtime;
use holon_runtime::workspace::SwitchTarget;

/// Arguments of SwitchWorkspace. Exactly one of `workspace_id`, `execution_root_id`
/// and `path` is given; the schema says so (see [`exactly_one_target`]).
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
#[schemars(transform = exactly_one_target)]
pub struct SwitchWorkspaceArgs {
    /// Switch to this workspace's own directory. Give exactly one of `workspace_id`,
    /// `execution_root_id` and `path`.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub workspace_id: Option<String>,
    /// Switch to this execution root: a worktree's id, or a workspace id. Give exactly
    /// one of `workspace_id`, `execution_root_id` and `path`.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub execution_root_id: Option<String>,
    /// Switch to the execution root holding this directory (absolute, or relative to
    /// the current working directory) and make the directory the working directory.
    /// Give exactly one of `workspace_id`, `execution_root_id` and `path`.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub path: Option<String>,
    /// A directory inside the target to use as the working directory, relative to it
    /// (to the workspace or execution root, or to `path`). Relative paths of other
    /// tools (ApplyPatch paths, ExecCommand's `workdir`) resolve against it. Default:
    /// the target itself.
    #[serde(default)]
    pub cwd: Option<String>,
}

/// The targets, in the order the schema's conditional checks them.
const TARGETS: [&str; 3] = ["path", "execution_root_id", "workspace_id"];

/// Adds the exactly-one-of rule to the schema as a root `if`/`then`/`else` chain
/// (Anthropic and OpenAI refuse `oneOf`, `anyOf`, `allOf` and `not` at the root of a
/// tool's schema): when `path` is a string the other two must be absent or null, else
/// when `execution_root_id` is a string `workspace_id` must be, else `workspace_id`
/// is required. A `null` counts as absent, as strict-mode models send it.
pub fn exactly_one_target(schema: &mut Schema) {
    let given =
        |field: &str| json!({ "required": [field], "properties": { field: { "type": "string" } } });
    let absent = |fields: &[&str]| {
        let properties: serde_json::Map<String, serde_json::Value> = fields
            .iter()
            .map(|f| ((*f).to_string(), json!({ "type": "null" })))
            .collect();
        json!({ "properties": properties })
    };
    let [path, root, workspace] = TARGETS;
    schema.insert("if".into(), given(path));
    schema.insert("then".into(), absent(&[root, workspace]));
    schema.insert(
        "else".into(),
        json!({
            "if": given(root),
            "then": absent(&[workspace]),
            "else": given(workspace),
        }),
    );
}

/// The active root after the switch.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceSwitched {
    /// The workspace the active execution root belongs to.
    pub active_workspace_id: String,
    /// The active execution root (a workspace id or a worktree's id).
    pub active_execution_root_id: String,
    /// Its absolute path.
    pub active_root: String,
    /// Where relative paths resolve now.
    pub working_directory: String,
    /// The execution root that was active before.
    pub previous_execution_root_id: String,
}

/// Switch the active execution root: the directory tools work in by default.
///
/// Give exactly one of: `workspace_id` (a bound workspace's own directory),
/// `execution_root_id` (a worktree made with CreateWorktree, or a workspace id), or
/// `path` (any directory inside a bound workspace or worktree; it becomes the working
/// directory). `cwd` optionally picks a subdirectory of the target as the working
/// directory. After the switch, relative paths of ApplyPatch and ExecCommand's
/// default working directory are in the new place; every bound workspace stays
/// reachable by absolute path. The choice is kept in the store across restarts.
#[holon_tool(
    family = LocalEnvironment,
    keywords = ["cd", "change directory", "working directory", "go to folder", "chdir"],
    annotations(idempotent, open_world = false)
)]
fn switch_workspace(
    rt: &Runtime,
    args: SwitchWorkspaceArgs,
) -> Result<ToolOutput<WorkspaceSwitched>, ToolError> {
    let given = [&args.path, &args.execution_root_id, &args.workspace_id]
        .iter()
        .filter(|v| v.is_some())
        .count();
    if given != 1 {
        return Err(ToolError::invalid_input(format!(
            "give exactly one of `workspace_id`, `execution_root_id` and `path` ({given} given)"
        ))
        .with_hint("name the target once: a workspace id, an execution root id, or a path"));
    }
    let target = match (&args.workspace_id, &args.execution_root_id, &args.path) {
        (Some(id), _, _) => SwitchTarget::Workspace(id),
        (None, Some(id), _) => SwitchTarget::ExecutionRoot(id),
        (None, None, path) => SwitchTarget::Path(path.as_deref().unwrap_or_default()),
    };
    let switched = rt.workspaces().switch(target, args.cwd.as_deref())?;
    let result = WorkspaceSwitched {
        active_workspace_id: switched.active_workspace_id,
        active_execution_root_id: switched.active_execution_root_id,
        active_root: switched.active_root.to_string_lossy().into_owned(),
        working_directory: switched.working_directory.to_string_lossy().into_owned(),
        previous_execution_root_id: switched.previous_execution_root_id,
    };
    let summary = format!(
        "switched to {} ({})",
        result.active_execution_root_id, result.working_directory
    );
    Ok(ToolOutput::new(result).with_summary(summary))
}
