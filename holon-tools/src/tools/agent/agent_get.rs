//! `AgentGet`.

use holon_core::prelude::*;

use super::view::{AgentView, agent_view};
use holon_runtime::Runtime;
use holon_runtime::agency::caller;

/// Arguments of AgentGet.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct AgentGetArgs {
    /// The agent to read: yourself (the default), your parent, one of your children,
    /// or a public agent.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub agent_id: Option<String>,
}

/// One agent.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentSnapshot {
    /// The agent.
    pub agent: AgentView,
}

/// Read an agent: its identity and profile, lifecycle (`idle`, `running`, `waiting`,
/// `stopped`), the work item it focuses on, what it waits for, its children (with the
/// task handles of private children), its current turn and queued messages. Without
/// `agent_id` it reads you.
#[holon_tool(
    family = CoreAgent,
    keywords = ["whoami", "my status", "child agents", "subagent", "busy", "profile"],
    annotations(read_only, idempotent, open_world = false)
)]
fn agent_get(
    rt: &Runtime,
    ctx: &ToolContext,
    args: AgentGetArgs,
) -> Result<ToolOutput<AgentSnapshot>, ToolError> {
    let state = rt.agents().get(caller(ctx), args.agent_id.as_deref())?;
    let view = agent_view(&state);
    let summary = format!(
        "{} ({}, {})",
        view.agent_id,
        view.profile.as_str(),
        view.lifecycle.as_str()
    );
    Ok(ToolOutput::new(AgentSnapshot { agent: view }).with_summary(summary))
}
