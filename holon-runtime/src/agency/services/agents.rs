//! The agent service: read an agent, queue a message, spawn an agent, and the
//! external triggers; WaitFor is in [`super::wait_for`].

use holon_core::{ToolCapabilityFamily, closest};
use rusqlite::Connection;

use crate::Runtime;
use crate::agency::agents::{self as table, AgentProfile, AgentRecord, Lifecycle, NewAgent};
use crate::agency::errors::{self, AgencyError, AgencyErrorKind, SpawnError};
use crate::agency::queue::{self, Priority, QueuedMessage};
use crate::agency::triggers::{self, DeliveryMode, TriggerRecord};
use crate::agency::turns::{self, TurnRecord};
use crate::agency::waits::{self, WaitView};
use crate::agency::work_items::{self, WorkItemRecord};
use crate::agency::{now_ms, ownership, write};
use crate::bindings::WorktreeBinding;
use crate::catalog::{ModelCatalog, ModelStatus};
use crate::workspace::ChildWorktreePlan;

/// The `workspace_mode` of an agent that works in a git worktree of its own.
pub const WORKTREE_MODE: &str = "worktree";

/// An agent with what surrounds it: its focus, children, turn, waits and queue.
#[derive(Debug, Clone)]
pub struct AgentState {
    /// The agent.
    pub agent: AgentRecord,
    /// The work item it focuses on.
    pub focus: Option<WorkItemRecord>,
    /// The agents it spawned, oldest first.
    pub children: Vec<AgentRecord>,
    /// Its current turn.
    pub current_turn: Option<TurnRecord>,
    /// Its waits that are pending or active.
    pub waiting_on: Vec<WaitView>,
    /// How many messages are queued for it.
    pub queued_messages: i64,
}

/// A message just queued.
#[derive(Debug, Clone)]
pub struct EnqueuedMessage {
    /// The message.
    pub message: QueuedMessage,
    /// The agent it is queued for.
    pub recipient: String,
    /// How many queued messages are delivered before it.
    pub ahead: i64,
}

/// The model a new agent is to run on.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    /// The provider id in the catalog.
    pub provider: &'a str,
    /// The model id of that provider.
    pub model: &'a str,
    /// Whether a retired model is accepted (the provider falls back).
    pub allow_fallback: bool,
    /// The whole choice as it is recorded with the agent.
    pub record: &'a serde_json::Value,
}

/// What SpawnAgent asks for.
#[derive(Debug, Clone, Copy)]
pub struct SpawnRequest<'a> {
    /// The new agent's profile.
    pub profile: AgentProfile,
    /// A public agent's id (a private child is named by the runtime).
    pub agent_id: Option<&'a str>,
    /// Its first message.
    pub initial_message: Option<&'a str>,
    /// The model it runs on.
    pub model: Option<ModelRequest<'a>>,
    /// The template it is spawned from.
    pub template: Option<&'a str>,
    /// `inherit` (it works in its parent's workspace) or `worktree` (it gets a git
    /// worktree of its own, [`WORKTREE_MODE`]).
    pub workspace_mode: &'a str,
}

/// An agent just spawned, with its own worktree if it has one.
#[derive(Debug, Clone)]
pub struct Spawned {
    /// The new agent.
    pub agent: AgentRecord,
    /// The id of its queued first message.
    pub queued_message_id: Option<String>,
    /// The task handle of a private child.
    pub task_handle: Option<String>,
    /// The git worktree made for it (`workspace_mode = worktree`).
    pub worktree: Option<WorktreeBinding>,
}

/// The agent service of a runtime ([`Runtime::agents`]).
#[derive(Clone, Copy)]
pub struct Agents<'rt> {
    pub(super) rt: &'rt Runtime,
}

/// Checks `model` against the catalog.
fn check_model(catalog: &ModelCatalog, model: &ModelRequest<'_>) -> Result<(), AgencyError> {
    let Some(provider) = catalog.provider(model.provider) else {
        let hint = closest(
            model.provider,
            catalog.providers().iter().map(|p| p.id.as_str()),
        )
        .map_or_else(
            || "list providers with ListModelProviders".to_string(),
            |best| format!("did you mean `{best}`?"),
        );
        return Err(errors::error(
            AgencyErrorKind::UnknownModel,
            format!("the model catalog has no provider `{}`", model.provider),
            hint,
        )
        .with_field("model.provider"));
    };
    match provider.models.iter().find(|m| m.id == model.model) {
        None => {
            let hint = closest(model.model, provider.models.iter().map(|m| m.id.as_str()))
                .map_or_else(
                    || "list models with ListProviderModels".to_string(),
                    |best| format!("did you mean `{best}`?"),
                );
            Err(errors::error(
                AgencyErrorKind::UnknownModel,
                format!("provider `{}` has no model `{}`", provider.id, model.model),
                hint,
            )
            .with_field("model.model"))
        }
        Some(entry) if entry.status == ModelStatus::Retired && !model.allow_fallback => {
            Err(errors::error(
                AgencyErrorKind::UnknownModel,
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

/// Inserts the agent `request` asks for, its first message and a private child's task.
fn insert_agent(
    conn: &Connection,
    parent: &str,
    request: &SpawnRequest<'_>,
    now: i64,
) -> Result<(String, Option<String>, Option<String>), AgencyError> {
    let id = match (request.profile, request.agent_id) {
        (AgentProfile::PublicNamed, Some(id)) => {
            if table::load(conn, id)?.is_some() {
                return Err(errors::error(
                    AgencyErrorKind::AgentExists,
                    format!("an agent `{id}` already exists"),
                    "choose another agent_id",
                )
                .with_field("agent_id"));
            }
            id.to_string()
        }
        _ => table::fresh_child_id(conn)?,
    };
    table::insert(
        conn,
        &NewAgent {
            id: &id,
            profile: request.profile,
            parent_id: parent,
            model: request.model.map(|m| m.record),
            template: request.template,
            workspace_mode: request.workspace_mode,
            now_ms: now,
        },
    )?;
    let queued = match request
        .initial_message
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
    let task_handle = match request.profile {
        AgentProfile::PrivateChild => Some(ownership::create_agent_task(conn, &id, parent, now)?),
        AgentProfile::PublicNamed => None,
    };
    Ok((id, queued, task_handle))
}

impl<'rt> Agents<'rt> {
    pub(super) fn new(rt: &'rt Runtime) -> Self {
        Self { rt }
    }

    /// The agent `agent_id` (default: the viewer) as `viewer` may see it: itself, its
    /// parent, its children, or a public agent.
    pub fn get(&self, viewer: &str, agent_id: Option<&str>) -> Result<AgentState, AgencyError> {
        write(self.rt.store(), "reading an agent", |tx| {
            turns::for_call(tx, viewer, now_ms())?;
            let id = agent_id.unwrap_or(viewer);
            let my_parent = table::require(tx, viewer)?.parent_id;
            let agent = table::load(tx, id)?
                .filter(|agent| {
                    table::visible_to(agent, viewer)
                        || my_parent.as_deref() == Some(agent.id.as_str())
                })
                .ok_or_else(|| table::unknown(id))?;
            let focus = match agent.focus_work_item {
                Some(row) => work_items::load(tx, row)?,
                None => None,
            };
            Ok(AgentState {
                focus,
                children: table::children(tx, &agent.id)?,
                current_turn: turns::current(tx, &agent.id)?,
                waiting_on: waits::open_waits(tx, &agent.id)?,
                queued_messages: queue::depth(tx, &agent.id)?,
                agent,
            })
        })
    }

    /// Queues `text` from `sender` for itself (no `recipient`) or for one of its
    /// children, which must not have stopped.
    pub fn enqueue(
        &self,
        sender: &str,
        recipient: Option<&str>,
        priority: Priority,
        text: &str,
    ) -> Result<EnqueuedMessage, AgencyError> {
        let text = errors::non_empty(text, "message", "text")?;
        let now = now_ms();
        write(self.rt.store(), "queueing a message", |tx| {
            turns::for_call(tx, sender, now)?;
            let recipient = match recipient {
                None => sender.to_string(),
                Some(id) => {
                    let agent = table::load(tx, id)?
                        .filter(|agent| {
                            agent.id == sender || agent.parent_id.as_deref() == Some(sender)
                        })
                        .ok_or_else(|| table::unknown(id))?;
                    if agent.lifecycle == Lifecycle::Stopped {
                        return Err(errors::error(
                            AgencyErrorKind::AgentStopped,
                            format!("agent `{id}` has stopped and takes no more messages"),
                            "spawn a new agent for further work",
                        )
                        .with_field("agent_id"));
                    }
                    agent.id
                }
            };
            let (message, ahead) = queue::enqueue(tx, &recipient, sender, priority, text, now)?;
            Ok(EnqueuedMessage {
                message,
                recipient,
                ahead,
            })
        })
    }

    /// Spawns the agent `request` asks for, as a child of `parent`, in one
    /// transaction. With `workspace_mode = worktree` the workspace service plans the
    /// child's own git worktree first (a workspace that cannot have one fails the spawn
    /// before anything is written) and adds it inside the transaction, once the agent
    /// has its id; a later failure takes the worktree back.
    pub fn spawn(&self, parent: &str, request: &SpawnRequest<'_>) -> Result<Spawned, SpawnError> {
        let plan = match request.workspace_mode {
            WORKTREE_MODE => Some(self.rt.workspaces().child_worktree()?),
            _ => None,
        };
        if let Some(model) = &request.model {
            check_model(self.rt.catalog(), model)?;
        }
        let mut added = None;
        match (
            self.write_spawn(parent, request, plan.as_ref(), &mut added),
            plan,
        ) {
            (Ok(spawned), Some(plan)) => {
                plan.finish()?;
                Ok(spawned)
            }
            (Ok(spawned), None) => Ok(spawned),
            (Err(error), plan) => {
                if let (Some(plan), Some(worktree)) = (plan, &added) {
                    plan.undo(worktree);
                }
                Err(error)
            }
        }
    }

    /// The transaction of [`Agents::spawn`]; the worktree it adds is left in `added`
    /// for the caller to take back if the spawn fails after it.
    fn write_spawn(
        &self,
        parent: &str,
        request: &SpawnRequest<'_>,
        plan: Option<&ChildWorktreePlan<'_>>,
        added: &mut Option<WorktreeBinding>,
    ) -> Result<Spawned, SpawnError> {
        let now = now_ms();
        let mut conn = self.rt.store().connection();
        let tx = crate::begin_write(&mut conn).map_err(errors::store("spawning an agent"))?;
        turns::for_call(&tx, parent, now)?;
        let parent_profile = table::require(&tx, parent)?.profile;
        if !parent_profile
            .policy()
            .allows(ToolCapabilityFamily::AgentCreation)
        {
            return Err(errors::error(
                AgencyErrorKind::FamilyNotAllowed,
                format!(
                    "agent `{parent}` is a {} and may not create agents",
                    parent_profile.as_str()
                ),
                "ask your parent to spawn the agent you need",
            )
            .into());
        }
        let (id, queued_message_id, task_handle) = insert_agent(&tx, parent, request, now)?;
        if let Some(plan) = plan {
            let worktree = added.insert(plan.add_in(&tx, &id)?);
            table::set_worktree(&tx, &id, &worktree.execution_root_id)?;
        }
        let agent = table::require(&tx, &id)?;
        tx.commit().map_err(errors::store("spawning an agent"))?;
        Ok(Spawned {
            agent,
            queued_message_id,
            task_handle,
            worktree: added.clone(),
        })
    }

    /// Registers an external trigger for `agent`.
    pub fn create_trigger(
        &self,
        agent: &str,
        mode: DeliveryMode,
        description: Option<&str>,
    ) -> Result<TriggerRecord, AgencyError> {
        write(self.rt.store(), "creating an external trigger", |tx| {
            table::require(tx, agent)?;
            triggers::create(tx, agent, mode, description, now_ms())
        })
    }

    /// Cancels `agent`'s external trigger `id`; cancelling twice is harmless.
    pub fn cancel_trigger(&self, agent: &str, id: &str) -> Result<TriggerRecord, AgencyError> {
        write(self.rt.store(), "cancelling an external trigger", |tx| {
            let trigger = triggers::require_owned(tx, agent, id, "external_trigger_id")?;
            triggers::cancel(tx, &trigger, now_ms())
        })
    }
}
