//! The turn gate where the runtime's calls enter: time and tasks are brought up to
//! date, and a call made while the agent's turn awaits its final brief is refused
//! with `turn_awaiting_final` (and recorded), without running.

use std::time::{Instant, SystemTime};

use holon_core::{Registry, ToolResult};

use super::turns::{self, TurnState};
use crate::{ExecutionRecord, Runtime};

impl Runtime {
    /// Admits a call of `agent_id` of the tool `name`, or returns its refusal (with
    /// `call_id`, recorded with `input_json`, the input as JSON text).
    pub fn admit(
        &self,
        agent_id: &str,
        name: &str,
        input_json: impl FnOnce() -> String,
        call_id: Option<&str>,
    ) -> Option<ToolResult> {
        let started_at = SystemTime::now();
        let started = Instant::now();
        // Late timers or task wakes must not block the call; the operator sees why.
        if let Err(error) = self.tick() {
            tracing::warn!(agent = agent_id, %error, "late timers and task wakes were not delivered");
        }
        let turn = match turns::current(&self.store().connection(), agent_id) {
            Ok(Some(turn)) if turn.state == TurnState::AwaitingFinal => turn,
            Ok(_) => return None,
            Err(error) => {
                tracing::warn!(agent = agent_id, %error, "the agent's turn could not be read");
                return None;
            }
        };
        let tool_name = Registry::global()
            .get(name)
            .map_or_else(|| name.to_string(), |d| d.spec.name.to_string());
        let mut result = ToolResult::from_error(tool_name, turns::awaiting_final(&turn).into());
        result.call_id = call_id.map(str::to_string);
        let record =
            ExecutionRecord::new(name, input_json(), &result, started_at, started.elapsed());
        if let Err(error) = self.store().record_execution(&record) {
            tracing::warn!(tool = %record.tool_name, %error, "the call was not recorded in the execution log");
        }
        Some(result)
    }
}
