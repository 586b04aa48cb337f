//! The agent plane: reading agents, queueing messages, spawning agents, waiting, and
//! the runtime-only external triggers.

mod agent_get;
mod enqueue;
mod external_trigger;
mod spawn_agent;
mod view;
mod wait_for;

pub use agent_get::{AgentGetArgs, AgentSnapshot};
pub use enqueue::{EnqueueArgs, Enqueued};
pub use external_trigger::{CancelExternalTriggerArgs, CreateExternalTriggerArgs, TriggerOutcome};
pub use spawn_agent::{
    AGENT_ID_PATTERN, AgentWorktree, ModelChoice, SpawnAgentArgs, SpawnedAgent, WorkspaceMode,
};
pub use view::{AgentView, ChildView, FocusView, TurnBrief};
pub use wait_for::{WaitForArgs, WaitForOutcome};
