//! `SpawnAgent`.

use holon_core::prelude::*;

use super::view::{ChildView, child_view};
use holon_runtime::Runtime;
use holon_runtime::agency::services::{ModelRequest, SpawnRequest, WORKTREE_MODE};
use holon_runtime::agency::{AgentProfile, caller};

/// What a public agent's id must look like.
pub const AGENT_ID_PATTERN: &str = "^[a-z][a-z0-9_-]{1,47}$";

/// Where a child agent works.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput,
)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceMode {
    /// In its parent's workspace.
    #[default]
    Inherit,
    /// In a git worktree of its own (private children only).
    Worktree,
}

impl WorkspaceMode {
    fn as_str(self) -> &'static str {
        match self {
            Self::Inherit => "inherit",
            Self::Worktree => WORKTREE_MODE,
        }
    }

    pub(crate) fn parse(text: &str) -> Self {
        if text == WORKTREE_MODE {
            Self::Worktree
        } else {
            Self::Inherit
        }
    }
}

/// The model an agent runs on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(deny_unknown_fields)]
pub struct ModelChoice {
    /// Provider id, as ListModelProviders returns it.
    #[schemars(length(min = 1))]
    pub provider: String,
    /// Model id, as ListProviderModels returns it.
    #[schemars(length(min = 1))]
    pub model: String,
    /// Accept another model of the provider when this one is retired.
    #[serde(default)]
    pub allow_fallback: Option<bool>,
    /// Most output tokens per response.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_output_tokens: Option<u32>,
    /// Reasoning effort, for models that support it (such as `low` or `high`).
    #[serde(default)]
    pub reasoning_effort: Option<String>,
    /// Sampling temperature, 0 to 2.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub temperature: Option<f64>,
}

/// Arguments of SpawnAgent.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
#[schemars(extend("allOf" = [
    {
        "if": { "properties": { "preset": { "enum": ["private_child", null] } } },
        "then": {
            "required": ["initial_message"],
            "properties": { "initial_message": { "type": "string" }, "agent_id": { "type": "null" } }
        }
    },
    {
        "if": { "properties": { "preset": { "const": "public_named" } }, "required": ["preset"] },
        "then": {
            "required": ["agent_id"],
            "properties": { "agent_id": { "type": "string" }, "workspace_mode": { "not": { "const": "worktree" } } }
        }
    }
]))]
pub struct SpawnAgentArgs {
    /// `private_child` (the default): a helper only you see, named by the runtime,
    /// needing `initial_message` and taking no `agent_id`. `public_named`: a named
    /// agent others can address, needing `agent_id`, never in a worktree.
    #[serde(default)]
    pub preset: Option<AgentProfile>,
    /// The public agent's id: lowercase letters, digits, `-` and `_`, starting with a
    /// letter, 2 to 48 characters. Only with `preset = public_named`.
    #[serde(default)]
    #[schemars(pattern(AGENT_ID_PATTERN))]
    pub agent_id: Option<String>,
    /// The first message queued for the new agent: its assignment. Required for a
    /// private child.
    #[serde(default)]
    #[schemars(length(min = 1, max = 20000))]
    pub initial_message: Option<String>,
    /// The model it runs on; by default the runtime's choice.
    #[serde(default)]
    pub model: Option<ModelChoice>,
    /// A named template for its instructions.
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    pub template: Option<String>,
    /// `inherit` (the default: it works in your workspace) or `worktree` (private
    /// children only): it gets a git worktree of its own on the new branch
    /// `holon/<agent id>`, made from the HEAD of your active workspace, which must be a
    /// git checkout.
    #[serde(default)]
    pub workspace_mode: Option<WorkspaceMode>,
}

/// What SpawnAgent created.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SpawnedAgent {
    /// The new agent.
    pub spawned: ChildView,
    /// The id of its queued first message, `msg-<n>`.
    pub queued_message_id: Option<String>,
    /// Its own git worktree, with `workspace_mode = worktree`.
    pub worktree: Option<AgentWorktree>,
}

/// The git worktree a child agent works in.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentWorktree {
    /// Its execution root id, for SwitchWorkspace and RemoveWorktree.
    pub execution_root_id: String,
    /// Its absolute path.
    pub root_path: String,
    /// The branch checked out in it, `holon/<agent id>`, made from the active
    /// workspace's HEAD.
    pub branch_name: String,
}

/// Create a new agent. A `private_child` (the default) is your helper: only you see
/// it, the runtime names it, it starts with `initial_message` queued, and it works
/// under a task handle you can wait on (WaitFor with `wake = task_result`). A
/// `public_named` agent gets the `agent_id` you choose and everyone can address it.
///
/// With `workspace_mode: "worktree"`, a private child gets a git worktree of its own
/// (branch `holon/<agent id>` from your active workspace's HEAD), so its edits never
/// touch your checkout; the result names it, and RemoveWorktree removes it.
///
/// A private child cannot spawn agents itself. The rules (a private child needs
/// `initial_message` and takes no `agent_id`; a public agent needs `agent_id` and no
/// worktree) are part of the input schema.
#[holon_tool(
    family = AgentCreation,
    keywords = ["subagent", "delegate", "helper", "worker", "fork", "parallel"],
    annotations(open_world = false)
)]
fn spawn_agent(
    rt: &Runtime,
    ctx: &ToolContext,
    args: SpawnAgentArgs,
) -> Result<ToolOutput<SpawnedAgent>, ToolError> {
    let profile = args.preset.unwrap_or(AgentProfile::PrivateChild);
    // Only a private child may have a worktree; the schema refuses one for a public agent.
    let workspace = args.workspace_mode.unwrap_or_default();
    let model = args
        .model
        .as_ref()
        .and_then(|m| serde_json::to_value(m).ok());
    let request = SpawnRequest {
        profile,
        agent_id: args.agent_id.as_deref(),
        initial_message: args.initial_message.as_deref(),
        model: args
            .model
            .as_ref()
            .zip(model.as_ref())
            .map(|(m, record)| ModelRequest {
                provider: &m.provider,
                model: &m.model,
                allow_fallback: m.allow_fallback == Some(true),
                record,
            }),
        template: args.template.as_deref(),
        workspace_mode: workspace.as_str(),
    };
    let spawned = rt.agents().spawn(caller(ctx), &request)?;
    let spawned = SpawnedAgent {
        spawned: ChildView {
            task_handle: spawned.task_handle,
            ..child_view(&spawned.agent)
        },
        queued_message_id: spawned.queued_message_id,
        worktree: spawned.worktree.map(|worktree| AgentWorktree {
            root_path: worktree.path.to_string_lossy().into_owned(),
            execution_root_id: worktree.execution_root_id,
            branch_name: worktree.branch,
        }),
    };
    let mut summary = format!("spawned {} ({}", spawned.spawned.agent_id, profile.as_str());
    if let Some(handle) = &spawned.spawned.task_handle {
        summary.push_str(&format!(", task {handle}"));
    }
    if let Some(worktree) = &spawned.worktree {
        summary.push_str(&format!(", worktree {}", worktree.execution_root_id));
    }
    summary.push(')');
    Ok(ToolOutput::new(spawned).with_summary(summary))
}
