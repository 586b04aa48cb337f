//! What the host does with agents and turns: build an agent's context, dispatch its
//! calls through the turn gate, begin and end turns, publish a turn's final brief, and
//! supply its completion report.

use std::sync::Arc;

use holon_core::prelude::*;

use super::errors::AgencyError;
use holon_core::{Registry, ToolCall, ToolResult};

use super::errors::{self, AgencyErrorKind};
use super::queue::QueuedMessage;
use super::turns::{self, TurnRecord, TurnState};
use super::waits::WaitView;
use super::wakes::Wake;
use super::{agents, now_ms, queue, settlement, wakes, work_items, write};
use crate::Runtime;

/// A turn as the host sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TurnView {
    /// Its id, `turn-<n>`.
    pub turn_id: String,
    /// The agent whose turn it is.
    pub agent_id: String,
    /// `open`, `awaiting_final` or `closed`.
    pub state: TurnState,
    /// The wait its final brief settles, while it awaits one.
    pub pending_wait_id: Option<String>,
    /// The final brief it closed with.
    pub final_brief: Option<String>,
    /// The completion report supplied during it.
    pub completion_report: Option<String>,
    /// `waiting` or `ended`, once closed.
    pub outcome: Option<String>,
}

impl From<&TurnRecord> for TurnView {
    fn from(turn: &TurnRecord) -> Self {
        Self {
            turn_id: turn.id(),
            agent_id: turn.agent_id.clone(),
            state: turn.state,
            pending_wait_id: turn
                .pending_wait
                .map(|row| super::ids::format(super::ids::WAIT, row)),
            final_brief: turn.final_brief.clone(),
            completion_report: turn.completion_report.clone(),
            outcome: turn.outcome.clone(),
        }
    }
}

/// A turn that just began, with what it delivered to the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TurnStart {
    /// The turn.
    pub turn: TurnView,
    /// The queued messages delivered to it, most urgent first.
    pub messages: Vec<QueuedMessage>,
    /// The pending wakes delivered to it, oldest first.
    pub wakes: Vec<Wake>,
}

fn not_active(turn: &TurnRecord, wanted: &str) -> AgencyError {
    errors::error(
        AgencyErrorKind::TurnNotActive,
        format!("{} is {}, not {wanted}", turn.id(), turn.state.as_str()),
        "use the agent's current turn (Runtime::current_turn)",
    )
}

impl Runtime {
    /// A context for calls of agent `agent_id`: it names the agent as the caller and
    /// allows the families of the agent's profile (a private child may not create
    /// agents), and it carries this runtime and records every call.
    pub fn agent_context(self: &Arc<Self>, agent_id: &str) -> Result<ToolContext, AgencyError> {
        let agent = agents::require(&self.store().connection(), agent_id)?;
        Ok(self
            .context(agent.profile.policy())
            .with_caller(agent.id.as_str()))
    }

    /// Dispatches a call of agent `agent_id` under its profile's policy, through the
    /// turn gate: while the agent's turn awaits its final brief, the call is refused
    /// with `turn_awaiting_final` and does not run.
    pub async fn dispatch_as(self: &Arc<Self>, agent_id: &str, call: ToolCall) -> ToolResult {
        let input_json = || call.input.to_string();
        if let Some(refused) = self.admit(agent_id, &call.name, input_json, call.call_id.as_deref())
        {
            return refused;
        }
        match self.agent_context(agent_id) {
            Ok(context) => Registry::global().dispatch(&context, call).await,
            Err(error) => {
                let mut result = ToolResult::from_error(call.name, error.into());
                result.call_id = call.call_id;
                result
            }
        }
    }

    /// Begins a turn of `agent_id` and delivers its queued messages and pending wakes
    /// to it. A turn still open is ended first; a turn awaiting its final brief is
    /// refused (publish the brief or reopen the turn first).
    pub fn begin_turn(&self, agent_id: &str) -> Result<TurnStart, AgencyError> {
        let now = now_ms();
        write(self.store(), "beginning a turn", |tx| {
            if let Some(turn) = turns::current(tx, agent_id)? {
                if turn.state == TurnState::AwaitingFinal {
                    return Err(turns::awaiting_final(&turn));
                }
                queue::settle_turn(tx, turn.row)?;
                turns::close(tx, turn.row, "ended", None, now)?;
            }
            let turn = turns::for_call(tx, agent_id, now)?;
            let messages = queue::deliver_to_turn(tx, agent_id, turn.row)?;
            let wakes = wakes::deliver_pending_to_turn(tx, agent_id, turn.row)?;
            Ok(TurnStart {
                turn: TurnView::from(&turn),
                messages,
                wakes,
            })
        })
    }

    /// The current turn of `agent_id` (open or awaiting its final brief), if any.
    pub fn current_turn(&self, agent_id: &str) -> Result<Option<TurnView>, AgencyError> {
        let conn = self.store().connection();
        agents::require(&conn, agent_id)?;
        Ok(turns::current(&conn, agent_id)?
            .as_ref()
            .map(TurnView::from))
    }

    /// The turn `turn_id` (`turn-<n>`).
    pub fn turn(&self, turn_id: &str) -> Result<TurnView, AgencyError> {
        Ok(TurnView::from(&turns::require(
            &self.store().connection(),
            turn_id,
        )?))
    }

    /// Publishes the operator-facing final brief of turn `turn_id`, which awaits it,
    /// and settles the turn's wait in one transaction. A stale wait report writes
    /// nothing and fails with `stale_wait_settlement`; the turn keeps awaiting its
    /// brief until it is published again or reopened.
    pub fn publish_final(&self, turn_id: &str, text: &str) -> Result<WaitView, AgencyError> {
        let brief = errors::non_empty(text, "final brief", "text")?;
        let now = now_ms();
        write(self.store(), "settling a wait", |tx| {
            let turn = turns::require(tx, turn_id)?;
            let wait = settlement::pending_wait_of(tx, turn.row)?
                .ok_or_else(|| not_active(&turn, "awaiting a final brief"))?;
            Ok(settlement::settle(tx, wait, Some(brief), "", now)?.view)
        })
    }

    /// Publishes the final brief for the wait `wait_id` (`wait-<n>`, from the deferred
    /// WaitFor result) and settles it, like [`Runtime::publish_final`], but only while
    /// that very wait is the one its turn awaits a brief for: a brief written for a
    /// wait that was since replaced or expired fails with `stale_wait_settlement`
    /// (execution binding) and writes nothing.
    pub fn publish_final_for(&self, wait_id: &str, text: &str) -> Result<WaitView, AgencyError> {
        let brief = errors::non_empty(text, "final brief", "text")?;
        let now = now_ms();
        let row = super::ids::parse(super::ids::WAIT, wait_id).unwrap_or_default();
        write(self.store(), "settling a wait", |tx| {
            Ok(settlement::settle(tx, row, Some(brief), "", now)?.view)
        })
    }

    /// Puts turn `turn_id`, which awaits its final brief, back to open: its pending
    /// wait expires and the queued messages and pending wakes are delivered, so the
    /// agent can act on what made the report stale.
    pub fn reopen_turn(&self, turn_id: &str) -> Result<TurnStart, AgencyError> {
        write(self.store(), "reopening a turn", |tx| {
            let turn = turns::require(tx, turn_id)?;
            if turn.state != TurnState::AwaitingFinal {
                return Err(not_active(&turn, "awaiting a final brief"));
            }
            tx.execute(
                "UPDATE waits SET state = 'expired' WHERE turn_id = ?1 AND state = 'pending_final'",
                [turn.row],
            )
            .map_err(errors::store("expiring a wait"))?;
            turns::reopen(tx, turn.row)?;
            let messages = queue::deliver_to_turn(tx, &turn.agent_id, turn.row)?;
            let wakes = wakes::deliver_pending_to_turn(tx, &turn.agent_id, turn.row)?;
            let turn = turns::require(tx, turn_id)?;
            Ok(TurnStart {
                turn: TurnView::from(&turn),
                messages,
                wakes,
            })
        })
    }

    /// Ends the open turn `turn_id` without a wait: its delivered messages settle.
    pub fn end_turn(&self, turn_id: &str) -> Result<TurnView, AgencyError> {
        let now = now_ms();
        write(self.store(), "ending a turn", |tx| {
            let turn = turns::require(tx, turn_id)?;
            match turn.state {
                TurnState::Open => {}
                TurnState::AwaitingFinal => return Err(turns::awaiting_final(&turn)),
                TurnState::Closed => return Err(not_active(&turn, "open")),
            }
            queue::settle_turn(tx, turn.row)?;
            turns::close(tx, turn.row, "ended", None, now)?;
            agents::refresh_lifecycle(tx, &turn.agent_id)?;
            Ok(TurnView::from(&turns::require(tx, turn_id)?))
        })
    }

    /// Supplies the operator-facing completion report of turn `turn_id` (open or
    /// awaiting its final brief): the work items CompleteWorkItem left `completing` in
    /// this turn complete with it, in one transaction. Returns their ids.
    pub fn supply_completion_report(
        &self,
        turn_id: &str,
        text: &str,
    ) -> Result<Vec<String>, AgencyError> {
        let report = errors::non_empty(text, "completion report", "text")?;
        let now = now_ms();
        write(self.store(), "supplying a completion report", |tx| {
            let turn = turns::require(tx, turn_id)?;
            if turn.state == TurnState::Closed {
                return Err(not_active(&turn, "open"));
            }
            turns::set_completion_report(tx, turn.row, report)?;
            let mut completed = Vec::new();
            for row in work_items::completing_in_turn(tx, turn.row)? {
                let item = work_items::complete(tx, row, report, now)?;
                agents::clear_focus_on(tx, row)?;
                completed.push(item.id());
            }
            Ok(completed)
        })
    }
}
