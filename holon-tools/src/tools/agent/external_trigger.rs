//! `CreateExternalTrigger` and `CancelExternalTrigger`: runtime-only tools, which the
//! runtime dispatches for an agent and no model ever sees.

use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::agency::caller;
use holon_runtime::agency::{DeliveryMode, TriggerRecord};

/// Arguments of CreateExternalTrigger.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CreateExternalTriggerArgs {
    /// `enqueue_message`: firing queues the payload for the agent and wakes its
    /// external waits. `wake_hint`: firing only wakes them.
    pub delivery_mode: DeliveryMode,
    /// What the trigger is for (shown to the operator).
    #[serde(default)]
    #[schemars(length(max = 2000))]
    pub description: Option<String>,
}

/// The trigger a call created or cancelled.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TriggerOutcome {
    /// The trigger.
    pub trigger: TriggerRecord,
}

/// Register an external trigger for the calling agent: a hook the outside world fires
/// (`Runtime::fire_external_trigger`) to queue a message for the agent or only to wake
/// its `external` waits. Runtime-only: models never see this tool.
#[holon_tool(family = ExternalTrigger, visibility = runtime, annotations(open_world = false))]
fn create_external_trigger(
    rt: &Runtime,
    ctx: &ToolContext,
    args: CreateExternalTriggerArgs,
) -> Result<ToolOutput<TriggerOutcome>, ToolError> {
    let agent = caller(ctx);
    let trigger =
        rt.agents()
            .create_trigger(agent, args.delivery_mode, args.description.as_deref())?;
    let summary = format!("created {} for {agent}", trigger.trigger_id);
    Ok(ToolOutput::new(TriggerOutcome { trigger }).with_summary(summary))
}

/// Arguments of CancelExternalTrigger.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct CancelExternalTriggerArgs {
    /// The trigger to cancel, such as `trigger-1`.
    #[schemars(length(min = 1))]
    pub external_trigger_id: String,
}

/// Cancel one of the calling agent's external triggers: firing it afterwards does
/// nothing. Cancelling twice is harmless. Runtime-only: models never see this tool.
#[holon_tool(family = ExternalTrigger, visibility = runtime, annotations(idempotent, open_world = false))]
fn cancel_external_trigger(
    rt: &Runtime,
    ctx: &ToolContext,
    args: CancelExternalTriggerArgs,
) -> Result<ToolOutput<TriggerOutcome>, ToolError> {
    let trigger = rt
        .agents()
        .cancel_trigger(caller(ctx), &args.external_trigger_id)?;
    let summary = format!("{} is {}", trigger.trigger_id, trigger.state);
    Ok(ToolOutput::new(TriggerOutcome { trigger }).with_summary(summary))
}
