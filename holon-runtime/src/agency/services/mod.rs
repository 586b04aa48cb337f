//! The agency's services: one operation per tool of the work item, agent and timer
//! planes, and the host operations that share their rules. Each owns its transaction
//! and returns typed records; tools shape them into what the model sees.

mod agents;
mod timers;
mod wait_for;
mod work_items;

pub use agents::{
    AgentState, Agents, EnqueuedMessage, ModelRequest, SpawnRequest, Spawned, WORKTREE_MODE,
};
pub use timers::{SleepRecord, Timers};
pub use wait_for::{WaitReport, WaitRequest};
pub use work_items::{
    ClearedBlocker, Completion, CreatedWorkItem, ListFilter, NewWorkItem, Picked, WorkItemChange,
    WorkItemListing, WorkItems,
};

/// Who acts on an agent's work items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor<'a> {
    /// The agent itself, in its current turn (opened when none is, refused while the
    /// turn awaits its final brief).
    Agent(&'a str),
    /// The operator, through the host, on the named agent's items, outside its turns.
    Operator(&'a str),
}

impl<'a> Actor<'a> {
    /// The agent whose items are acted on.
    pub fn agent(self) -> &'a str {
        match self {
            Self::Agent(agent) | Self::Operator(agent) => agent,
        }
    }
}

impl crate::Runtime {
    /// The work item service.
    pub fn work_items(&self) -> WorkItems<'_> {
        WorkItems::new(self)
    }

    /// The agent service: reading agents, queueing, spawning, waiting and external
    /// triggers.
    pub fn agents(&self) -> Agents<'_> {
        Agents::new(self)
    }

    /// The timer service: durable timers and the records of Sleep.
    pub fn timers(&self) -> Timers<'_> {
        Timers::new(self)
    }
}
