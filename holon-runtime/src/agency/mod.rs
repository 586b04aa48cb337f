//! The agent-facing state of the runtime, in the store: agents and their turns, the
//! message queue, work items, waits and the wakes that resolve them, timers, task
//! ownership, external triggers and operator notifications.
//!
//! # The agent and turn model
//!
//! Every runtime has the agent [`ROOT_AGENT_ID`] (`root`, profile `public_named`);
//! SpawnAgent adds children. A call's agent is the context's caller
//! ([`ToolContext::caller`](holon_core::ToolContext::caller)); contexts from
//! [`Runtime::context`](super::Runtime::context) name `root`, and
//! [`Runtime::agent_context`](super::Runtime::agent_context) names any agent and
//! applies its profile's family policy.
//!
//! An agent works in turns. The host opens one with
//! [`Runtime::begin_turn`](super::Runtime::begin_turn), which delivers the agent's
//! queued messages and pending wakes to it; a call made when no turn is open opens one
//! (without delivering anything). A turn closes when a wait settles (outcome
//! `waiting`) or when the host ends it (`ended`). After WaitFor with `delivery =
//! final` the turn awaits its final brief: [`Runtime::dispatch`](super::Runtime::dispatch)
//! refuses every further call with `turn_awaiting_final`, and
//! [`Runtime::publish_final`](super::Runtime::publish_final) settles the wait with the
//! brief, atomically (see [`SettlementStep`]).

mod agents;
mod errors;
mod evidence;
mod gate;
mod host;
mod host_command;
mod host_events;
mod host_work;
pub mod ids;
mod notifications;
mod ownership;
mod queue;
pub mod services;
mod settlement;
mod timers;
mod triggers;
mod turns;
mod waits;
mod wakes;
mod work_items;

use rusqlite::Transaction;

pub use agents::{AgentProfile, AgentRecord, Lifecycle, ROOT_AGENT_ID};
pub use errors::{AgencyError, AgencyErrorKind, SpawnError};
pub use host::{TurnStart, TurnView};
pub use host_command::HostCommand;
pub use host_events::AgentOutcome;
pub use host_work::WorkItemEdit;
pub use notifications::{Notification, NotificationLevel};
pub use ownership::{TaskOwner, agent_task_handle};
pub use queue::{Priority, QueuedMessage};
pub use settlement::{FailPoint, SettlementStep};
pub use timers::TimerRecord;
pub use triggers::{DeliveryMode, TriggerRecord};
pub use turns::{TurnRecord, TurnState};
pub use waits::{Delivery, WaitView};
pub use wakes::{Wake, WakeKind};
pub use work_items::{PlanStatus, TodoItem, TodoState, WorkItemRecord, WorkItemState};

pub use evidence::record as record_execution;

pub use super::clock::now_ms;

/// Runs `work` in one immediate (write-locking) transaction of `store` and commits it;
/// an error rolls everything back.
pub(crate) fn write<T>(
    store: &super::Store,
    doing: &'static str,
    work: impl FnOnce(&Transaction<'_>) -> Result<T, AgencyError>,
) -> Result<T, AgencyError> {
    let mut conn = store.connection();
    let tx = crate::begin_write(&mut conn).map_err(errors::store(doing))?;
    let value = work(&tx)?;
    tx.commit().map_err(errors::store(doing))?;
    Ok(value)
}

/// The agent a call runs for: the context's caller, or `root`.
pub fn caller(context: &holon_core::ToolContext) -> &str {
    context.caller().unwrap_or(ROOT_AGENT_ID)
}
