use holon_core::prelude::*;

/// Runs long enough to be a task when the client supports tasks.
#[holon_tool(family = CoreAgent, task = optional)]
fn long_report() -> Result<String, ToolError> {
    Ok(String::new())
}

/// Always runs as a task.
#[holon_tool(family = CoreAgent, task = required)]
fn nightly_batch() -> Result<String, ToolError> {
    Ok(String::new())
}

/// Never a task (the default).
#[holon_tool(family = CoreAgent)]
fn quick_answer() -> Result<String, ToolError> {
    Ok(String::new())
}

fn main() {
    use holon_core::TaskSupport;
    let registry = holon_core::Registry::global();
    let task = |name: &str| registry.get(name).expect("registered").task;
    assert_eq!(task("LongReport"), TaskSupport::Optional);
    assert_eq!(task("NightlyBatch"), TaskSupport::Required);
    assert_eq!(task("QuickAnswer"), TaskSupport::Forbidden);
}
