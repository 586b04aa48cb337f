//! `Enqueue`.

use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::agency::queue::{self, Priority, QueuedMessage};
use holon_runtime::agency::{
    AGENT_STOPPED, Lifecycle, agents, caller, errors, now_ms, turns, write,
};

/// Arguments of Enqueue.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct EnqueueArgs {
    /// The message.
    #[schemars(length(min = 1, max = 20000))]
    pub text: String,
    /// `interject` (into the running turn, ahead of all), `next` (first in the next
    /// turn), `normal` (the default, in arrival order) or `background` (only when
    /// nothing else is queued).
    #[serde(default)]
    pub priority: Option<Priority>,
    /// Whom to queue it for: yourself (the default) or one of your children.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub agent_id: Option<String>,
}

/// What Enqueue queued.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Enqueued {
    /// The queued message.
    pub message: QueuedMessage,
    /// The agent it is queued for.
    pub recipient: String,
    /// How many queued messages will be delivered before it.
    pub ahead_in_queue: i64,
}

/// Queue a message for yourself (a follow-up for a later turn) or for one of your
/// children (more instructions), with a priority: `interject` reaches a running turn
/// at once, `next` comes first in the next turn, `normal` in arrival order, and
/// `background` only when nothing else is queued.
#[holon_tool(family = CoreAgent, annotations(open_world = false))]
fn enqueue(
    rt: &Runtime,
    ctx: &ToolContext,
    args: EnqueueArgs,
) -> Result<ToolOutput<Enqueued>, ToolError> {
    let me = caller(ctx);
    let text = errors::non_empty(&args.text, "message", "text")?;
    let priority = args.priority.unwrap_or_default();
    let now = now_ms();
    let (message, recipient, ahead) = write(rt.store(), "queueing a message", |tx| {
        turns::for_call(tx, me, now)?;
        let recipient = match args.agent_id.as_deref() {
            None => me.to_string(),
            Some(id) => {
                let agent = agents::load(tx, id)?
                    .filter(|agent| agent.id == me || agent.parent_id.as_deref() == Some(me))
                    .ok_or_else(|| agents::unknown(id))?;
                if agent.lifecycle == Lifecycle::Stopped {
                    return Err(errors::error(
                        AGENT_STOPPED,
                        format!("agent `{id}` has stopped and takes no more messages"),
                        "spawn a new agent for further work",
                    )
                    .with_field("agent_id"));
                }
                agent.id
            }
        };
        let (message, ahead) = queue::enqueue(tx, &recipient, me, priority, text, now)?;
        Ok((message, recipient, ahead))
    })?;
    let summary = format!(
        "queued {} for {recipient} ({}, {ahead} ahead)",
        message.message_id,
        priority.as_str()
    );
    Ok(ToolOutput::new(Enqueued {
        message,
        recipient,
        ahead_in_queue: ahead,
    })
    .with_summary(summary))
}
