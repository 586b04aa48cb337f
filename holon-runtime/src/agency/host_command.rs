//! Host commands as data: what `holon-tools session` accepts besides tool calls, one
//! JSON object a line with a `host` field, such as
//! `{"host": "publish_final", "text": "Build is running; I'll report when it ends."}`.
//! Each acts on an agent (`agent_id`, default `root`) and its current turn.

use holon_core::prelude::*;

use super::errors::AgencyError;
use holon_core::{ToolResult, ToolStatus};
use serde_json::{Value, json};

use super::errors::AgencyErrorKind;
use super::host_events::AgentOutcome;
use super::queue::Priority;
use super::{ROOT_AGENT_ID, errors};
use crate::Runtime;

/// One host command.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "host", rename_all = "snake_case", deny_unknown_fields)]
pub enum HostCommand {
    /// Begin a turn, delivering queued messages and pending wakes.
    BeginTurn {
        /// The agent (default `root`).
        #[serde(default)]
        agent_id: Option<String>,
    },
    /// End the current open turn.
    EndTurn {
        /// The agent (default `root`).
        #[serde(default)]
        agent_id: Option<String>,
    },
    /// Publish the final brief of the current turn, settling its wait.
    PublishFinal {
        /// The operator-facing final brief.
        text: String,
        /// The agent (default `root`).
        #[serde(default)]
        agent_id: Option<String>,
    },
    /// Reopen the current turn, which awaits its final brief.
    ReopenTurn {
        /// The agent (default `root`).
        #[serde(default)]
        agent_id: Option<String>,
    },
    /// Supply the completion report of the current turn.
    CompletionReport {
        /// The operator-facing completion report.
        text: String,
        /// The agent (default `root`).
        #[serde(default)]
        agent_id: Option<String>,
    },
    /// The operator writes to the agent.
    OperatorInput {
        /// The message.
        text: String,
        /// The agent (default `root`).
        #[serde(default)]
        agent_id: Option<String>,
    },
    /// The operator interjects into the agent's turn.
    Interject {
        /// The message.
        text: String,
        /// The agent (default `root`).
        #[serde(default)]
        agent_id: Option<String>,
    },
    /// Fire due timers and rechecks, and wake waits on ended tasks.
    Tick {},
    /// Fire an external trigger.
    FireExternalTrigger {
        /// The trigger, `trigger-<n>`.
        external_trigger_id: String,
        /// The payload.
        payload: String,
    },
    /// A child agent ended.
    FinishAgent {
        /// The child.
        agent_id: String,
        /// How it ended.
        outcome: AgentOutcome,
        /// Its result.
        #[serde(default)]
        result: Option<String>,
    },
    /// The newest operator notifications.
    Notifications {
        /// How many (default 20).
        #[serde(default)]
        limit: Option<usize>,
    },
}

impl HostCommand {
    /// The command's name, as in its `host` field.
    pub fn name(&self) -> &'static str {
        match self {
            Self::BeginTurn { .. } => "begin_turn",
            Self::EndTurn { .. } => "end_turn",
            Self::PublishFinal { .. } => "publish_final",
            Self::ReopenTurn { .. } => "reopen_turn",
            Self::CompletionReport { .. } => "completion_report",
            Self::OperatorInput { .. } => "operator_input",
            Self::Interject { .. } => "interject",
            Self::Tick {} => "tick",
            Self::FireExternalTrigger { .. } => "fire_external_trigger",
            Self::FinishAgent { .. } => "finish_agent",
            Self::Notifications { .. } => "notifications",
        }
    }
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl Runtime {
    fn current_turn_id(&self, agent: &str) -> Result<String, AgencyError> {
        self.current_turn(agent)?
            .map(|turn| turn.turn_id)
            .ok_or_else(|| {
                errors::error(
                    AgencyErrorKind::TurnNotActive,
                    format!("agent `{agent}` has no current turn"),
                    "begin one ({\"host\": \"begin_turn\"}) or make a tool call",
                )
            })
    }

    /// Runs a host command and returns its outcome as JSON.
    pub fn run_host_command(&self, command: &HostCommand) -> Result<Value, AgencyError> {
        let agent = |id: &Option<String>| id.clone().unwrap_or_else(|| ROOT_AGENT_ID.to_string());
        Ok(match command {
            HostCommand::BeginTurn { agent_id } => to_value(&self.begin_turn(&agent(agent_id))?),
            HostCommand::EndTurn { agent_id } => {
                to_value(&self.end_turn(&self.current_turn_id(&agent(agent_id))?)?)
            }
            HostCommand::PublishFinal { text, agent_id } => {
                let turn = self.current_turn_id(&agent(agent_id))?;
                json!({ "wait": self.publish_final(&turn, text)?, "turn": self.turn(&turn)? })
            }
            HostCommand::ReopenTurn { agent_id } => {
                to_value(&self.reopen_turn(&self.current_turn_id(&agent(agent_id))?)?)
            }
            HostCommand::CompletionReport { text, agent_id } => {
                let turn = self.current_turn_id(&agent(agent_id))?;
                json!({ "completed_work_items": self.supply_completion_report(&turn, text)? })
            }
            HostCommand::OperatorInput { text, agent_id } => {
                to_value(&self.operator_input(&agent(agent_id), text)?)
            }
            HostCommand::Interject { text, agent_id } => to_value(&self.enqueue_message(
                &agent(agent_id),
                "operator",
                Priority::Interject,
                text,
            )?),
            HostCommand::Tick {} => json!({ "wakes": self.tick()? }),
            HostCommand::FireExternalTrigger {
                external_trigger_id,
                payload,
            } => to_value(&self.fire_external_trigger(external_trigger_id, payload)?),
            HostCommand::FinishAgent {
                agent_id,
                outcome,
                result,
            } => {
                json!({ "wake": self.finish_agent(agent_id, *outcome, result.as_deref())? })
            }
            HostCommand::Notifications { limit } => {
                json!({ "notifications": self.notifications(limit.unwrap_or(20))? })
            }
        })
    }

    /// The answer to a session line that is a host command (a JSON object with a
    /// `host` field), as an envelope named `host:<command>`; `None` for other lines.
    pub fn host_line(&self, line: &str) -> Option<ToolResult> {
        let value: Value = serde_json::from_str(line).ok()?;
        let name = value.get("host")?.as_str().unwrap_or_default().to_string();
        let tool_name = format!("host:{name}");
        let command = match serde_json::from_value::<HostCommand>(value) {
            Ok(command) => command,
            Err(error) => {
                let error = ToolError::invalid_input(format!("not a valid host command: {error}")).with_hint(
                    "host commands: begin_turn, end_turn, publish_final, reopen_turn, completion_report, operator_input, interject, tick, fire_external_trigger, finish_agent, notifications",
                );
                return Some(ToolResult::from_error(tool_name, error));
            }
        };
        Some(match self.run_host_command(&command) {
            Ok(structured) => {
                // Built from an envelope so that it stays complete whatever fields the
                // envelope gains.
                let mut result = ToolResult::from_error(tool_name, ToolError::invalid_input(""));
                result.status = ToolStatus::Success;
                result.error = None;
                result.extras_mut().summary = Some(format!("host {} done", command.name()));
                result.structured = Some(structured.into());
                result
            }
            Err(error) => ToolResult::from_error(tool_name, error.into()),
        })
    }
}
