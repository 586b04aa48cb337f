//! What reaches agents from outside their turns, as the host reports it: messages,
//! operator input, wakes, due timers and rechecks, ended tasks and child agents,
//! external triggers; and what the runtime tells the operator.

use holon_core::prelude::*;

use super::errors::{AgencyError, AgencyErrorKind};
use rusqlite::Connection;

use super::notifications::{self, Notification, NotificationLevel};
use super::ownership::{self, TaskOwner};
use super::queue::{self, Priority, QueuedMessage};
use super::timers::{self, TimerRecord};
use super::wakes::{self, Wake, WakeKind};
use super::{agents, errors, now_ms, triggers, write};
use crate::Runtime;

/// How a child agent ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentOutcome {
    /// It did its job.
    Completed,
    /// It gave up or crashed.
    Failed,
    /// Its parent or the operator stopped it.
    Cancelled,
}

impl AgentOutcome {
    fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

impl Runtime {
    /// Queues `text` from `sender` (an agent id, `operator`, ...) for `agent_id`.
    pub fn enqueue_message(
        &self,
        agent_id: &str,
        sender: &str,
        priority: Priority,
        text: &str,
    ) -> Result<QueuedMessage, AgencyError> {
        let text = errors::non_empty(text, "message", "text")?;
        write(self.store(), "queueing a message", |tx| {
            agents::require(tx, agent_id)?;
            Ok(queue::enqueue(tx, agent_id, sender, priority, text, now_ms())?.0)
        })
    }

    /// The operator wrote `text` to `agent_id`: it is queued (`next`) and wakes the
    /// agent's `operator_input` waits.
    pub fn operator_input(&self, agent_id: &str, text: &str) -> Result<Wake, AgencyError> {
        let text = errors::non_empty(text, "message", "text")?;
        let now = now_ms();
        write(self.store(), "delivering operator input", |tx| {
            agents::require(tx, agent_id)?;
            queue::enqueue(tx, agent_id, "operator", Priority::Next, text, now)?;
            wakes::deliver(tx, agent_id, WakeKind::OperatorInput, None, Some(text), now)
        })
    }

    /// Delivers a wake of `kind` (about `resource`) to `agent_id`, resolving its
    /// active waits on it.
    pub fn deliver_wake(
        &self,
        agent_id: &str,
        kind: WakeKind,
        resource: Option<&str>,
        detail: Option<&str>,
    ) -> Result<Wake, AgencyError> {
        write(self.store(), "delivering a wake", |tx| {
            agents::require(tx, agent_id)?;
            wakes::deliver(tx, agent_id, kind, resource, detail, now_ms())
        })
    }

    /// Creates a durable timer for `agent_id`, due in `delay_ms`; its id is what
    /// WaitFor takes as `resource` with `wake = timer`.
    pub fn create_timer(
        &self,
        agent_id: &str,
        delay_ms: u64,
        reason: Option<&str>,
    ) -> Result<TimerRecord, AgencyError> {
        write(self.store(), "creating a timer", |tx| {
            agents::require(tx, agent_id)?;
            timers::create(tx, agent_id, "timer", delay_ms, reason, now_ms())
        })
    }

    /// Fires every timer due at `now_ms` (each wakes its waiters; a cancelled timer is
    /// never due) and wakes every active wait whose recheck time has come. Returns the
    /// wakes.
    pub fn fire_due_timers(&self, now_ms: i64) -> Result<Vec<Wake>, AgencyError> {
        write(self.store(), "firing timers", |tx| fire_due(tx, now_ms))
    }

    /// Wakes the waits on tasks that are no longer running (a command task that ended,
    /// a child agent that finished).
    pub fn sync_task_wakes(&self) -> Result<Vec<Wake>, AgencyError> {
        write(self.store(), "waking task waits", |tx| {
            wake_ended_tasks(tx, now_ms())
        })
    }

    /// Everything time and tasks brought since the last tick, in one transaction: due
    /// timers, rechecks and ended tasks. [`Runtime::dispatch`] ticks before every call.
    pub fn tick(&self) -> Result<Vec<Wake>, AgencyError> {
        let now = now_ms();
        write(self.store(), "bringing timers and tasks up to date", |tx| {
            let mut woken = fire_due(tx, now)?;
            woken.extend(wake_ended_tasks(tx, now)?);
            Ok(woken)
        })
    }

    /// Child `agent_id` ended with `outcome` and `result`: it stops, its task (for a
    /// private child) ends, and its parent's waits on that task wake.
    pub fn finish_agent(
        &self,
        agent_id: &str,
        outcome: AgentOutcome,
        result: Option<&str>,
    ) -> Result<Option<Wake>, AgencyError> {
        let now = now_ms();
        write(self.store(), "finishing an agent", |tx| {
            let agent = agents::require(tx, agent_id)?;
            if agent.parent_id.is_none() {
                return Err(errors::error(
                    AgencyErrorKind::UnknownAgent,
                    format!("`{agent_id}` is not a child agent and cannot be finished"),
                    "finish an agent that SpawnAgent created",
                ));
            }
            agents::stop(tx, agent_id)?;
            let handle = ownership::finish_agent_task(tx, agent_id, outcome.as_str(), result, now)?;
            match (handle, agent.parent_id) {
                (Some(handle), Some(parent)) => {
                    let detail = format!("agent {agent_id} {}", outcome.as_str());
                    let detail = match result {
                        Some(result) => format!("{detail}: {result}"),
                        None => detail,
                    };
                    wakes::deliver(
                        tx,
                        &parent,
                        WakeKind::TaskResult,
                        Some(&handle),
                        Some(&detail),
                        now,
                    )
                    .map(Some)
                }
                _ => Ok(None),
            }
        })
    }

    /// Captures `agent_id` (and the work item it focuses on now) as the owner of
    /// `task_handle`. Call it when the task is created: the first capture wins and is
    /// never moved. A task-result wait needs its task's owner.
    pub fn capture_task_owner(
        &self,
        agent_id: &str,
        task_handle: &str,
    ) -> Result<TaskOwner, AgencyError> {
        write(self.store(), "capturing a task owner", |tx| {
            ownership::capture(tx, task_handle, agent_id, now_ms())
        })
    }

    /// The captured owner of `task_handle`.
    pub fn task_owner(&self, task_handle: &str) -> Result<Option<TaskOwner>, AgencyError> {
        ownership::owner(&self.store().connection(), task_handle)
    }

    /// Fires external trigger `trigger_id` with `payload`: for `enqueue_message` the
    /// payload is queued for its agent; either way the agent's external waits wake. A
    /// cancelled trigger fires nothing (`external_trigger_cancelled`).
    pub fn fire_external_trigger(
        &self,
        trigger_id: &str,
        payload: &str,
    ) -> Result<Wake, AgencyError> {
        write(self.store(), "firing an external trigger", |tx| {
            triggers::fire(tx, trigger_id, payload, now_ms())
        })
    }

    /// Records a notification for the operator about `agent_id`. This is how the
    /// runtime reaches the operator; it is not a tool.
    pub fn notify_operator(
        &self,
        agent_id: &str,
        level: NotificationLevel,
        text: &str,
    ) -> Result<Notification, AgencyError> {
        let text = errors::non_empty(text, "notification", "text")?;
        write(self.store(), "notifying the operator", |tx| {
            agents::require(tx, agent_id)?;
            notifications::insert(tx, agent_id, level, text, now_ms())
        })
    }

    /// The newest `limit` operator notifications, newest first.
    pub fn notifications(&self, limit: usize) -> Result<Vec<Notification>, AgencyError> {
        notifications::recent(&self.store().connection(), limit)
    }
}

/// Fires the timers and rechecks due at `now_ms`.
fn fire_due(tx: &Connection, now_ms: i64) -> Result<Vec<Wake>, AgencyError> {
    let mut woken: Vec<Wake> = timers::fire_due(tx, now_ms)?
        .into_iter()
        .map(|(_, wake)| wake)
        .collect();
    for (agent, wait) in timers::due_rechecks(tx, now_ms)? {
        woken.push(wakes::recheck(tx, &agent, wait, now_ms)?);
    }
    Ok(woken)
}

/// Wakes the active waits on tasks that ended.
fn wake_ended_tasks(tx: &Connection, now_ms: i64) -> Result<Vec<Wake>, AgencyError> {
    let mut woken = Vec::new();
    for (agent, handle, state) in ownership::ended_awaited_tasks(tx)? {
        let detail = format!("task {handle} is {state}");
        woken.push(wakes::deliver(
            tx,
            &agent,
            WakeKind::TaskResult,
            Some(&handle),
            Some(&detail),
            now_ms,
        )?);
    }
    Ok(woken)
}
