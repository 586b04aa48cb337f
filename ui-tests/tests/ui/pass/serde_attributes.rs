use holon_core::prelude::*;

/// Arguments of CreateTask: camelCase on the wire, one defaulted field.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateTaskArgs {
    /// The task's title.
    pub task_title: String,
    /// Priority, 0 when omitted.
    #[serde(default)]
    pub priority_level: u8,
    /// Labels, none when omitted.
    #[serde(default, rename = "tags")]
    pub labels: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedTask {
    pub task_id: String,
}

/// Creates a task.
#[holon_tool(family = CoreAgent)]
fn create_task(args: CreateTaskArgs) -> Result<CreatedTask, ToolError> {
    Ok(CreatedTask {
        task_id: format!(
            "{}-{}-{}",
            args.task_title,
            args.priority_level,
            args.labels.len()
        ),
    })
}

fn main() {
    let registry = holon_core::Registry::global();
    let tool = registry.get("CreateTask").expect("registered");
    let properties = &tool.spec.input_schema["properties"];
    assert!(properties.get("taskTitle").is_some());
    assert_eq!(
        tool.spec.input_schema["required"],
        serde_json::json!(["taskTitle"])
    );
    assert_eq!(
        <CreateTaskArgs as holon_core::ToolArgs>::FIELDS,
        ["taskTitle", "priorityLevel", "tags"]
    );
}
