//! How the agent tools show an agent.

use holon_core::prelude::*;

use super::spawn_agent::{ModelChoice, WorkspaceMode};
use holon_runtime::agency::TurnState;
use holon_runtime::agency::WaitView;
use holon_runtime::agency::services::AgentState;
use holon_runtime::agency::{AgentProfile, AgentRecord, Lifecycle, agent_task_handle};

/// The work item an agent focuses on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FocusView {
    /// Its id, `wi-<n>`.
    pub work_item_id: String,
    /// Its objective.
    pub objective: String,
}

/// A child agent, in short.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ChildView {
    /// Its id.
    pub agent_id: String,
    /// `private_child` or `public_named`.
    pub profile: AgentProfile,
    /// `idle`, `running`, `waiting` or `stopped`.
    pub lifecycle: Lifecycle,
    /// The task handle a private child works under (`agent:<id>`): WaitFor with
    /// `wake = task_result` takes it as `resource`.
    pub task_handle: Option<String>,
}

/// An agent's current turn, in short.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TurnBrief {
    /// Its id, `turn-<n>`.
    pub turn_id: String,
    /// `open` or `awaiting_final`.
    pub state: TurnState,
}

/// An agent.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct AgentView {
    /// Its id.
    pub agent_id: String,
    /// `private_child` or `public_named`: which capability families it may use.
    pub profile: AgentProfile,
    /// The agent that spawned it; none for `root`.
    pub parent_id: Option<String>,
    /// `idle`, `running` (a turn is open), `waiting` (it yielded on a wait) or
    /// `stopped`.
    pub lifecycle: Lifecycle,
    /// The work item it focuses on.
    pub focus: Option<FocusView>,
    /// Its waits that are pending or active: what it waits for.
    pub waiting_on: Vec<WaitView>,
    /// The agents it spawned.
    pub children: Vec<ChildView>,
    /// Its current turn.
    pub current_turn: Option<TurnBrief>,
    /// How many messages are queued for it.
    pub queued_messages: i64,
    /// The model it runs on, when one was chosen.
    pub runs_on: Option<ModelChoice>,
    /// The template it was spawned from.
    pub spawned_from_template: Option<String>,
    /// `inherit` or `worktree`.
    pub workspace: WorkspaceMode,
    /// The execution root id of its own worktree, when `workspace` is `worktree`.
    pub worktree_root_id: Option<String>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_at_unix_ms: i64,
}

fn task_handle(child: &AgentRecord) -> Option<String> {
    (child.profile == AgentProfile::PrivateChild).then(|| agent_task_handle(&child.id))
}

/// The view of an agent's state.
pub(crate) fn agent_view(state: &AgentState) -> AgentView {
    let agent = &state.agent;
    AgentView {
        agent_id: agent.id.clone(),
        profile: agent.profile,
        parent_id: agent.parent_id.clone(),
        lifecycle: agent.lifecycle,
        focus: state.focus.as_ref().map(|item| FocusView {
            work_item_id: item.id(),
            objective: item.objective.clone(),
        }),
        waiting_on: state.waiting_on.clone(),
        children: state.children.iter().map(child_view).collect(),
        current_turn: state.current_turn.as_ref().map(|turn| TurnBrief {
            turn_id: turn.id(),
            state: turn.state,
        }),
        queued_messages: state.queued_messages,
        runs_on: agent
            .model
            .clone()
            .and_then(|value| serde_json::from_value(value).ok()),
        spawned_from_template: agent.template.clone(),
        workspace: WorkspaceMode::parse(&agent.workspace_mode),
        worktree_root_id: agent.worktree_root_id.clone(),
        created_at_unix_ms: agent.created_at_ms,
    }
}

/// The short view of a child agent.
pub(crate) fn child_view(child: &AgentRecord) -> ChildView {
    ChildView {
        agent_id: child.id.clone(),
        profile: child.profile,
        lifecycle: child.lifecycle,
        task_handle: task_handle(child),
    }
}
