//! `Enqueue`.

use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::agency::caller;
use holon_runtime::agency::services::EnqueuedMessage;
use holon_runtime::agency::{Priority, QueuedMessage};

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
#[holon_tool(
    family = CoreAgent,
    keywords = ["send message", "note to self", "follow-up", "instruct child", "notify"],
    annotations(open_world = false)
)]
fn enqueue(
    rt: &Runtime,
    ctx: &ToolContext,
    args: EnqueueArgs,
) -> Result<ToolOutput<Enqueued>, ToolError> {
    let priority = args.priority.unwrap_or_default();
    let EnqueuedMessage {
        message,
        recipient,
        ahead,
    } = rt
        .agents()
        .enqueue(caller(ctx), args.agent_id.as_deref(), priority, &args.text)?;
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
