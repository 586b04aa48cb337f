//! `SpawnAgent`.

use holon_core::prelude::*;
use holon_core::{ToolCapabilityFamily, closest};
use rusqlite::Connection;

use super::view::ChildView;
use crate::tools::workspace::ChildWorktreePlan;
use holon_runtime::Runtime;
use holon_runtime::agency::agents::NewAgent;
use holon_runtime::agency::queue::{self, Priority};
use holon_runtime::agency::{
    AGENT_EXISTS, AgentProfile, UNKNOWN_MODEL, agents, caller, errors, now_ms, ownership, turns,
    write,
};
use holon_runtime::catalog::{ModelCatalog, ModelStatus};

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
            Self::Worktree => "worktree",
        }
    }

    pub(crate) fn parse(text: &str) -> Self {
        if text == "worktree" {
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

/// Checks `model` against the catalog.
fn check_model(catalog: &ModelCatalog, model: &ModelChoice) -> Result<(), ToolError> {
    let Some(provider) = catalog.provider(&model.provider) else {
        let hint = closest(
            &model.provider,
            catalog.providers().iter().map(|p| p.id.as_str()),
        )
        .map_or_else(
            || "list providers with ListModelProviders".to_string(),
            |best| format!("did you mean `{best}`?"),
        );
        return Err(errors::error(
            UNKNOWN_MODEL,
            format!("the model catalog has no provider `{}`", model.provider),
            hint,
        )
        .with_field("model.provider"));
    };
    match provider.models.iter().find(|m| m.id == model.model) {
        None => {
            let hint = closest(&model.model, provider.models.iter().map(|m| m.id.as_str()))
                .map_or_else(
                    || "list models with ListProviderModels".to_string(),
                    |best| format!("did you mean `{best}`?"),
                );
            Err(errors::error(
                UNKNOWN_MODEL,
                format!("provider `{}` has no model `{}`", provider.id, model.model),
                hint,
            )
            .with_field("model.model"))
        }
        Some(entry)
            if entry.status == ModelStatus::Retired && model.allow_fallback != Some(true) =>
        {
            Err(errors::error(
                UNKNOWN_MODEL,
                format!(
                    "model `{}` is retired and can no longer be called",
                    model.model
                ),
                "choose an available model (ListProviderModels), or set allow_fallback",
            )
            .with_field("model.model"))
        }
        Some(_) => Ok(()),
    }
}

fn create(
    conn: &Connection,
    parent: &str,
    args: &SpawnAgentArgs,
    profile: AgentProfile,
    now: i64,
) -> Result<SpawnedAgent, ToolError> {
    let id = match (profile, &args.agent_id) {
        (AgentProfile::PublicNamed, Some(id)) => {
            if agents::load(conn, id)?.is_some() {
                return Err(errors::error(
                    AGENT_EXISTS,
                    format!("an agent `{id}` already exists"),
                    "choose another agent_id",
                )
                .with_field("agent_id"));
            }
            id.clone()
        }
        _ => agents::fresh_child_id(conn)?,
    };
    let model = args
        .model
        .as_ref()
        .and_then(|m| serde_json::to_value(m).ok());
    let workspace = args.workspace_mode.unwrap_or_default();
    agents::insert(
        conn,
        &NewAgent {
            id: &id,
            profile,
            parent_id: parent,
            model: model.as_ref(),
            template: args.template.as_deref(),
            workspace_mode: workspace.as_str(),
            now_ms: now,
        },
    )?;
    let queued = match args
        .initial_message
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        Some(message) => Some(
            queue::enqueue(conn, &id, parent, Priority::Normal, message, now)?
                .0
                .message_id,
        ),
        None => None,
    };
    let task_handle = match profile {
        AgentProfile::PrivateChild => Some(ownership::create_agent_task(conn, &id, parent, now)?),
        AgentProfile::PublicNamed => None,
    };
    let record = agents::require(conn, &id)?;
    Ok(SpawnedAgent {
        spawned: ChildView {
            agent_id: id,
            profile,
            lifecycle: record.lifecycle,
            task_handle,
        },
        queued_message_id: queued,
        worktree: None,
    })
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
#[holon_tool(family = AgentCreation, annotations(open_world = false))]
fn spawn_agent(
    rt: &Runtime,
    ctx: &ToolContext,
    args: SpawnAgentArgs,
) -> Result<ToolOutput<SpawnedAgent>, ToolError> {
    let parent = caller(ctx);
    if let Some(model) = &args.model {
        check_model(rt.catalog(), model)?;
    }
    let profile = args.preset.unwrap_or(AgentProfile::PrivateChild);
    // Only a private child may have a worktree; the schema refuses one for a public agent.
    let plan = match args.workspace_mode.unwrap_or_default() {
        WorkspaceMode::Worktree => Some(ChildWorktreePlan::prepare(rt)?),
        WorkspaceMode::Inherit => None,
    };
    let now = now_ms();
    let mut added = None;
    let spawned = write(rt.store(), "spawning an agent", |tx| {
        turns::for_call(tx, parent, now)?;
        let parent_profile = agents::require(tx, parent)?.profile;
        if !parent_profile
            .policy()
            .allows(ToolCapabilityFamily::AgentCreation)
        {
            return Err(errors::error(
                holon_core::ToolErrorKind::FAMILY_NOT_ALLOWED,
                format!(
                    "agent `{parent}` is a {} and may not create agents",
                    parent_profile.as_str()
                ),
                "ask your parent to spawn the agent you need",
            ));
        }
        let mut spawned = create(tx, parent, &args, profile, now)?;
        if let Some(plan) = &plan {
            // The git worktree is made inside the transaction, so that a failure
            // leaves no agent behind.
            let id = spawned.spawned.agent_id.clone();
            let worktree = added.insert(plan.add(&id)?);
            plan.bind_in(tx, worktree)?;
            agents::set_worktree(tx, &id, &worktree.execution_root_id)?;
            spawned.worktree = Some(AgentWorktree {
                execution_root_id: worktree.execution_root_id.clone(),
                root_path: worktree.path.to_string_lossy().into_owned(),
                branch_name: worktree.branch.clone(),
            });
        }
        Ok(spawned)
    });
    let spawned = match (spawned, plan) {
        (Ok(spawned), Some(plan)) => {
            plan.finish()?;
            spawned
        }
        (Ok(spawned), None) => spawned,
        (Err(error), plan) => {
            if let (Some(plan), Some(worktree)) = (plan, &added) {
                plan.undo(worktree);
            }
            return Err(error);
        }
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
