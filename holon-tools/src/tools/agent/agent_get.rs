//! `AgentGet`.

use holon_core::prelude::*;

use super::view::{AgentView, agent_view};
use holon_runtime::Runtime;
use holon_runtime::agency::{agents, caller, now_ms, turns, write};

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
#[holon_tool(family = CoreAgent, annotations(read_only, idempotent, open_world = false))]
fn agent_get(
    rt: &Runtime,
    ctx: &ToolContext,
    args: AgentGetArgs,
) -> Result<ToolOutput<AgentSnapshot>, ToolError> {
    let me = caller(ctx);
    let view = write(rt.store(), "reading an agent", |tx| {
        turns::for_call(tx, me, now_ms())?;
        let id = args.agent_id.as_deref().unwrap_or(me);
        let my_parent = agents::require(tx, me)?.parent_id;
        let agent = agents::load(tx, id)?
            .filter(|agent| {
                agents::visible_to(agent, me) || my_parent.as_deref() == Some(agent.id.as_str())
            })
            .ok_or_else(|| agents::unknown(id))?;
        agent_view(tx, &agent)
    })?;
    let summary = format!(
        "{} ({}, {})",
        view.agent_id,
        view.profile.as_str(),
        view.lifecycle.as_str()
    );
    Ok(ToolOutput::new(AgentSnapshot { agent: view }).with_summary(summary))
}
