//! The work item service: create, read, list, change, focus and complete an agent's
//! work items. The agent's tools and the operator's host calls go through the same
//! operations, so that each rule (a completed item never changes, an update names a
//! field, a blocked item is focused only by clearing its blocker) has one home.

use holon_core::prelude::*;

use super::Actor;
use crate::Runtime;
use crate::agency::errors::{self, AgencyError, AgencyErrorKind};
use crate::agency::turns::{self, TurnRecord};
use crate::agency::work_items::{
    self as table, PlanStatus, TodoItem, TodoState, WorkItemPatch, WorkItemRecord, WorkItemState,
};
use crate::agency::{agents, now_ms, waits, write};

pub use crate::agency::work_items::NewWorkItem;

/// Which work items to list.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput,
)]
#[serde(rename_all = "snake_case")]
pub enum ListFilter {
    /// Every item, completed ones too.
    All,
    /// Items not completed yet (`open` or `completing`).
    #[default]
    Open,
    /// Items waiting for their turn's completion report.
    Completing,
    /// Completed items.
    Completed,
    /// Your current focus.
    Current,
    /// Open items never focused on yet.
    Queued,
    /// Open items focused on before, not now.
    Yielded,
    /// Items a wait blocks.
    Blocked,
    /// Items blocked on the operator: a wait for operator input, or a plan that
    /// `needs_input`.
    WaitingForOperator,
    /// Open items nothing blocks: workable now.
    Runnable,
}

impl ListFilter {
    /// The SQL condition of the filter (`?2` is the focus row).
    fn condition(self) -> &'static str {
        match self {
            Self::All => "1 = 1",
            Self::Open => "state <> 'completed'",
            Self::Completing => "state = 'completing'",
            Self::Completed => "state = 'completed'",
            Self::Current => "id = ?2",
            Self::Queued => "state <> 'completed' AND id <> ?2 AND first_picked_at_ms IS NULL",
            Self::Yielded => "state <> 'completed' AND id <> ?2 AND first_picked_at_ms IS NOT NULL",
            Self::Blocked => "state <> 'completed' AND blocker_wait_id IS NOT NULL",
            Self::WaitingForOperator => {
                "state <> 'completed' AND (plan_status = 'needs_input' OR blocker_wait_id IN
                   (SELECT id FROM waits WHERE wake = 'operator_input'))"
            }
            Self::Runnable => {
                "state = 'open' AND blocker_wait_id IS NULL AND plan_status <> 'needs_input'"
            }
        }
    }
}

/// A work item just created.
#[derive(Debug, Clone)]
pub struct CreatedWorkItem {
    /// The new item, at revision 1.
    pub item: WorkItemRecord,
    /// The row the agent focused on before.
    pub previous_focus: Option<i64>,
    /// The row the agent focuses on now.
    pub focus: Option<i64>,
}

/// Work items that matched a filter.
#[derive(Debug, Clone)]
pub struct WorkItemListing {
    /// The items, the focus first, then oldest first.
    pub items: Vec<WorkItemRecord>,
    /// How many match in all.
    pub total: i64,
    /// The row the agent focuses on.
    pub focus: Option<i64>,
}

/// A change of a work item's content; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct WorkItemChange {
    /// A new objective (trimmed; it must not be empty).
    pub objective: Option<String>,
    /// A new plan.
    pub plan: Option<String>,
    /// A new plan status.
    pub plan_status: Option<PlanStatus>,
    /// A new todo list, replacing the old one whole.
    pub todo_list: Option<Vec<TodoItem>>,
    /// The revision the change was made against; another one refuses it.
    pub expected_revision: Option<u64>,
}

impl WorkItemChange {
    /// The names of the fields the change sets.
    pub fn fields(&self) -> Vec<&'static str> {
        [
            ("objective", self.objective.is_some()),
            ("plan", self.plan.is_some()),
            ("plan_status", self.plan_status.is_some()),
            ("todo_list", self.todo_list.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect()
    }
}

/// A blocker that picking an item removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearedBlocker {
    /// The row of the cancelled wait.
    pub wait: i64,
    /// What the item was blocked on.
    pub blocked_on: String,
    /// Why it was cleared.
    pub reason: String,
}

/// What focusing an item did.
#[derive(Debug, Clone)]
pub struct Picked {
    /// The item now in focus.
    pub item: WorkItemRecord,
    /// The row focused on before.
    pub previous_focus: Option<i64>,
    /// The blocker removed, when asked to clear it.
    pub cleared: Option<ClearedBlocker>,
}

/// What completing an item did.
#[derive(Debug, Clone)]
pub struct Completion {
    /// The item: `completed`, or `completing` until the turn's report arrives.
    pub item: WorkItemRecord,
    /// The turn whose completion report completes it.
    pub turn: TurnRecord,
    /// The row the agent focuses on now.
    pub focus: Option<i64>,
}

/// The work item service of a runtime ([`Runtime::work_items`]).
#[derive(Clone, Copy)]
pub struct WorkItems<'rt> {
    rt: &'rt Runtime,
}

/// Opens (or checks) the turn of an agent's own call; the operator acts outside turns
/// but only on an agent that exists.
fn enter(tx: &rusqlite::Connection, actor: Actor<'_>, now: i64) -> Result<(), AgencyError> {
    match actor {
        Actor::Agent(agent) => turns::for_call(tx, agent, now).map(|_| ()),
        Actor::Operator(agent) => agents::require(tx, agent).map(|_| ()),
    }
}

/// `agent`'s item `id`, refused when it is completed.
fn changeable(
    tx: &rusqlite::Connection,
    agent: &str,
    id: &str,
) -> Result<WorkItemRecord, AgencyError> {
    let item = table::require_owned(tx, agent, id, "work_item_id")?;
    if item.state == WorkItemState::Completed {
        return Err(table::completed_error(&item, "work_item_id"));
    }
    Ok(item)
}

fn focus_of(tx: &rusqlite::Connection, agent: &str) -> Result<Option<i64>, AgencyError> {
    Ok(agents::require(tx, agent)?.focus_work_item)
}

impl<'rt> WorkItems<'rt> {
    pub(super) fn new(rt: &'rt Runtime) -> Self {
        Self { rt }
    }

    /// Creates an open work item of `agent` at revision 1, focused unless `focus` is
    /// false.
    pub fn create(
        &self,
        agent: &str,
        new: &NewWorkItem<'_>,
        focus: bool,
    ) -> Result<CreatedWorkItem, AgencyError> {
        let objective = errors::non_empty(new.objective, "objective", "objective")?;
        let now = now_ms();
        write(self.rt.store(), "creating a work item", |tx| {
            turns::for_call(tx, agent, now)?;
            let previous = focus_of(tx, agent)?;
            let item = table::insert(tx, agent, &NewWorkItem { objective, ..*new }, now)?;
            if focus {
                agents::set_focus(tx, agent, Some(item.row))?;
                table::mark_picked(tx, item.row, now)?;
            }
            let item = table::load(tx, item.row)?.unwrap_or(item);
            Ok(CreatedWorkItem {
                focus: if focus { Some(item.row) } else { previous },
                item,
                previous_focus: previous,
            })
        })
    }

    /// `agent`'s work item `id`, and the row the agent focuses on. An agent's read
    /// runs in its turn; the operator's does not.
    pub fn get(
        &self,
        actor: Actor<'_>,
        id: &str,
    ) -> Result<(WorkItemRecord, Option<i64>), AgencyError> {
        let agent = actor.agent();
        write(self.rt.store(), "reading a work item", |tx| {
            enter(tx, actor, now_ms())?;
            let item = table::require_owned(tx, agent, id, "work_item_id")?;
            Ok((item, focus_of(tx, agent)?))
        })
    }

    /// At most `limit` of `agent`'s work items that match `filter`.
    pub fn list(
        &self,
        agent: &str,
        filter: ListFilter,
        limit: usize,
    ) -> Result<WorkItemListing, AgencyError> {
        write(self.rt.store(), "listing work items", |tx| {
            turns::for_call(tx, agent, now_ms())?;
            let focus = focus_of(tx, agent)?;
            let (items, total) = table::select(tx, agent, focus, filter.condition(), limit)?;
            Ok(WorkItemListing {
                items,
                total,
                focus,
            })
        })
    }

    /// Applies `change` to the work item `id` and increments its revision. Refused
    /// when the change names no field (`nothing_to_update`), the objective is empty,
    /// the item is completed, or it is not at the expected revision.
    pub fn update(
        &self,
        actor: Actor<'_>,
        id: &str,
        change: &WorkItemChange,
    ) -> Result<(WorkItemRecord, Option<i64>), AgencyError> {
        if change.fields().is_empty() {
            return Err(errors::error(
                AgencyErrorKind::NothingToUpdate,
                "the update names no field to change",
                "pass at least one of objective, plan, plan_status, todo_list",
            ));
        }
        let objective = match &change.objective {
            Some(objective) => Some(errors::non_empty(objective, "objective", "objective")?),
            None => None,
        };
        let agent = actor.agent();
        let now = now_ms();
        write(self.rt.store(), "updating a work item", |tx| {
            enter(tx, actor, now)?;
            let item = changeable(tx, agent, id)?;
            if let Some(expected) = change.expected_revision
                && i64::try_from(expected).ok() != Some(item.revision)
            {
                return Err(errors::error(
                    AgencyErrorKind::StaleRevision,
                    format!(
                        "{} is at revision {}, not {expected}: it changed since you read it",
                        item.id(),
                        item.revision
                    ),
                    "read it again with GetWorkItem and apply your change to what it is now",
                )
                .with_field("expected_revision"));
            }
            let patch = WorkItemPatch {
                objective,
                plan: change.plan.as_deref(),
                plan_status: change.plan_status,
                todo_list: change.todo_list.as_deref(),
            };
            let item = table::update(tx, item.row, &patch, now)?;
            Ok((item, focus_of(tx, agent)?))
        })
    }

    /// Makes `id` the agent's focus; no task and no wait moves with it. A completed
    /// item cannot be focused. A blocked item can be focused by its agent only with
    /// `clear_blocker` (the reason): its wait is cancelled. The operator may focus a
    /// blocked item without clearing it; the wait stays.
    pub fn pick(
        &self,
        actor: Actor<'_>,
        id: &str,
        clear_blocker: Option<&str>,
    ) -> Result<Picked, AgencyError> {
        let reason = match clear_blocker {
            Some(reason) => Some(errors::non_empty(reason, "reason", "reason")?),
            None => None,
        };
        let agent = actor.agent();
        let now = now_ms();
        write(self.rt.store(), "picking a work item", |tx| {
            enter(tx, actor, now)?;
            let item = changeable(tx, agent, id)?;
            let mut cleared = None;
            if let Some(wait) = item.blocker_wait {
                match (reason, actor) {
                    (Some(reason), _) => {
                        waits::cancel_for_blocker_clear(tx, wait, reason, now)?;
                        table::clear_blocker(tx, item.row, now)?;
                        agents::refresh_lifecycle(tx, agent)?;
                        cleared = Some(ClearedBlocker {
                            wait,
                            blocked_on: item.blocker_reason.clone().unwrap_or_default(),
                            reason: reason.to_string(),
                        });
                    }
                    (None, Actor::Operator(_)) => {}
                    (None, Actor::Agent(_)) => {
                        return Err(errors::error(
                            AgencyErrorKind::WorkItemBlocked,
                            format!(
                                "{} is blocked: {}",
                                item.id(),
                                item.blocker_reason.as_deref().unwrap_or("a wait holds it")
                            ),
                            "wait for the wake, or pass clear_blocker: true with a reason to cancel the wait",
                        )
                        .with_field("work_item_id"));
                    }
                }
            }
            let previous = focus_of(tx, agent)?;
            agents::set_focus(tx, agent, Some(item.row))?;
            table::mark_picked(tx, item.row, now)?;
            let item = table::load(tx, item.row)?.unwrap_or(item);
            Ok(Picked {
                item,
                previous_focus: previous,
                cleared,
            })
        })
    }

    /// Clears `agent`'s focus (for the operator).
    pub fn clear_focus(&self, agent: &str) -> Result<(), AgencyError> {
        write(self.rt.store(), "moving a focus", |tx| {
            agents::require(tx, agent)?;
            agents::set_focus(tx, agent, None)
        })
    }

    /// Completes `agent`'s work item `id` with the turn's completion report, or puts
    /// it into `completing` until the report arrives. Every todo entry must be
    /// completed and no wait may block it.
    pub fn complete(&self, agent: &str, id: &str) -> Result<Completion, AgencyError> {
        let now = now_ms();
        write(self.rt.store(), "completing a work item", |tx| {
            let turn = turns::for_call(tx, agent, now)?;
            let item = table::require_owned(tx, agent, id, "work_item_id")?;
            if item.state == WorkItemState::Completed {
                return Err(table::completed_error(&item, "work_item_id"));
            }
            let open = item
                .todo_list
                .iter()
                .filter(|todo| todo.state != TodoState::Completed)
                .count();
            if open > 0 {
                return Err(errors::error(
                    AgencyErrorKind::UnfinishedTodoItems,
                    format!("{} still has {open} todo entr{} not completed", item.id(), if open == 1 { "y" } else { "ies" }),
                    "finish them and mark them completed with UpdateWorkItem, or drop those that no longer apply",
                )
                .with_field("work_item_id"));
            }
            if item.blocker_wait.is_some() {
                return Err(errors::error(
                    AgencyErrorKind::WorkItemBlocked,
                    format!("{} is blocked by a wait and cannot complete", item.id()),
                    "clear the blocker with PickWorkItem (clear_blocker: true, with a reason) first",
                )
                .with_field("work_item_id"));
            }
            let item = match &turn.completion_report {
                Some(report) => {
                    agents::clear_focus_on(tx, item.row)?;
                    table::complete(tx, item.row, report, now)?
                }
                None => table::begin_completion(tx, item.row, turn.row, now)?,
            };
            Ok(Completion {
                item,
                turn,
                focus: focus_of(tx, agent)?,
            })
        })
    }
}
