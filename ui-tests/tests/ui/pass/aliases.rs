use holon_core::prelude::*;

#[derive(Serialize, JsonSchema)]
pub struct Tasks {
    pub tasks: Vec<String>,
}

/// Lists the tasks. Still accepts its legacy names.
#[holon_tool(family = CoreAgent, aliases = ["TaskList", "list_tasks_v1"])]
fn list_tasks() -> Result<Tasks, ToolError> {
    Ok(Tasks { tasks: Vec::new() })
}

fn main() {
    let registry = holon_core::Registry::global();
    let tool = registry.get("ListTasks").expect("ListTasks is registered");
    assert_eq!(tool.aliases, ["TaskList", "list_tasks_v1"]);
}
