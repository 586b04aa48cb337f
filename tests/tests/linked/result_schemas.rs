//! Every structured result agrees with its tool's published result schema.
//!
//! A table of sample calls, run in order on a throwaway runtime (a temporary workspace,
//! state in memory), covers every model-facing tool: each structured result is
//! validated against the tool's `result_schema` with a JSON Schema 2020-12 validator.
//! A tool with no sample fails the test until it gets one, or a reason why it cannot
//! run here (in `NOT_RUN`); so a tool added later is covered, or visibly not.

use std::collections::{BTreeMap, BTreeSet};

use holon_core::{FamilyPolicy, Registry, ToolCall, ToolStatus};
use holon_downstream_tools as _;
use holon_runtime::{Runtime, RuntimeConfig};
use serde_json::{Value, json};

/// Model-facing tools that no sample runs, and why.
const NOT_RUN: &[(&str, &str)] = &[
    ("GenerateImage", "it calls an external images API"),
    ("WebFetch", "it fetches from the network"),
    ("WebSearch", "it queries an external search provider"),
    ("XSearch", "it asks an external xAI-compatible provider"),
];

/// A 1x1 RGB PNG, for ViewImage.
const PIXEL_PNG: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// One sample call. A string input `"${name}"` is replaced by the value captured
/// under `name` by an earlier step.
struct Step {
    tool: &'static str,
    input: Input,
    /// `(name, JSON pointer into the structured result)` to capture.
    capture: &'static [(&'static str, &'static str)],
}

enum Input {
    Json(Value),
    /// The raw text of a freeform call.
    Text(&'static str),
}

fn step(tool: &'static str, input: Value) -> Step {
    Step {
        tool,
        input: Input::Json(input),
        capture: &[],
    }
}

fn capturing(
    tool: &'static str,
    input: Value,
    capture: &'static [(&'static str, &'static str)],
) -> Step {
    Step {
        tool,
        input: Input::Json(input),
        capture,
    }
}

/// The samples, in the order they run.
fn steps() -> Vec<Step> {
    let todo = json!([{"text": "build", "state": "completed"}]);
    vec![
        step("Echo", json!({"text": "hi", "times": 2})),
        step(
            "RecordTodos",
            json!({"todo_list": [{"text": "a", "state": "pending"}]}),
        ),
        step("Sleep", json!({"duration_ms": 1, "reason": "a sample"})),
        capturing(
            "ListModelProviders",
            json!({"include_unavailable": true}),
            &[("provider", "/providers/0/id")],
        ),
        step(
            "ListProviderModels",
            json!({"provider": "${provider}", "limit": 2, "include_unavailable": true}),
        ),
        step(
            "ApplyPatch",
            json!({"patch": "--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+# Notes\n+the quokka deploys to staging\n"}),
        ),
        Step {
            tool: "ApplyPatch",
            input: Input::Text(
                "*** Begin Patch\n*** Add File: more.md\n+# More\n+nothing yet\n*** End Patch\n",
            ),
            capture: &[],
        },
        step("ViewImage", json!({"path": "pixel.png"})),
        step("ExecCommand", json!({"cmd": "echo hi"})),
        step(
            "ExecCommand",
            json!({"cmd": "git init -q && git -c user.email=a@b.c -c user.name=sample commit -q --allow-empty -m init"}),
        ),
        capturing(
            "ExecCommand",
            json!({"cmd": "sleep 30", "yield_time_ms": 0}),
            &[("task", "/task_handle/task_id")],
        ),
        step(
            "ExecCommand",
            json!({"cmd": "sleep 30", "yield_time_ms": 0}),
        ),
        step(
            "ExecCommandBatch",
            json!({"items": [{"cmd": "echo one"}, {"cmd": "false"}, {"cmd": "echo never"}], "stop_on_error": true}),
        ),
        step("ListTasks", json!({})),
        step("TaskStatus", json!({"task_id": "${task}"})),
        step("TaskOutput", json!({"task_id": "${task}", "block": false})),
        step(
            "TaskInput",
            json!({"task_id": "${task}", "input": "ignored\n"}),
        ),
        step("TaskStop", json!({"task_id": "${task}"})),
        capturing(
            "CreateWorkItem",
            json!({"objective": "Ship the sample", "plan": "build", "todo_list": todo}),
            &[("item", "/work_item/work_item_id")],
        ),
        step(
            "UpdateWorkItem",
            json!({"work_item_id": "${item}", "plan": "build, then test", "expected_revision": 1}),
        ),
        step(
            "GetWorkItem",
            json!({"work_item_id": "${item}", "include_todo_list": true}),
        ),
        step("ListWorkItems", json!({"filter": "all"})),
        step("PickWorkItem", json!({"work_item_id": "${item}"})),
        step("CompleteWorkItem", json!({"work_item_id": "${item}"})),
        capturing(
            "CreateTimer",
            json!({"delay_ms": 600000, "reason": "a sample"}),
            &[("timer", "/timer/timer_id")],
        ),
        step("CancelTimer", json!({"timer_id": "${timer}"})),
        step("AgentGet", json!({})),
        step(
            "Enqueue",
            json!({"text": "later", "priority": "background"}),
        ),
        step(
            "SpawnAgent",
            json!({"initial_message": "help with the sample"}),
        ),
        capturing(
            "MemorySearch",
            json!({"query": "quokka"}),
            &[("memory", "/hits/0/source_ref")],
        ),
        step("MemoryGet", json!({"source_ref": "${memory}"})),
        step("GetWorkspaceState", json!({})),
        capturing(
            "AttachWorkspace",
            json!({"path": "${other}"}),
            &[("attached", "/attached_workspace_id")],
        ),
        step("SwitchWorkspace", json!({"workspace_id": "${attached}"})),
        step("SwitchWorkspace", json!({"workspace_id": "home"})),
        step("DetachWorkspace", json!({"workspace_id": "${attached}"})),
        capturing(
            "CreateWorktree",
            json!({"workspace_id": "home", "branch": "sample", "base_ref": "HEAD", "activate": false}),
            &[("worktree", "/execution_root_id")],
        ),
        step(
            "RemoveWorktree",
            json!({"execution_root_id": "${worktree}"}),
        ),
        capturing(
            "CreateTimer",
            json!({"delay_ms": 600000}),
            &[("wake_timer", "/timer/timer_id")],
        ),
        // Last: it ends the turn.
        step(
            "WaitFor",
            json!({"reason": "a sample wait", "wake": "timer", "resource": "${wake_timer}", "delivery": "silent"}),
        ),
    ]
}

/// Replaces every string `"${name}"` in `input` by the captured value.
fn substitute(input: &mut Value, vars: &BTreeMap<&str, Value>) -> Result<(), String> {
    match input {
        Value::String(text) => {
            if let Some(name) = text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) {
                *input = vars
                    .get(name)
                    .cloned()
                    .ok_or_else(|| format!("no earlier step captured `{name}`"))?;
            }
        }
        Value::Array(items) => {
            for item in items {
                substitute(item, vars)?;
            }
        }
        Value::Object(map) => {
            for value in map.values_mut() {
                substitute(value, vars)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[test]
fn every_model_facing_tool_has_a_sample_or_a_reason() {
    let registry = Registry::global();
    let sampled: BTreeSet<&str> = steps().iter().map(|step| step.tool).collect();
    let skipped: BTreeSet<&str> = NOT_RUN.iter().map(|(name, _)| *name).collect();
    let missing: Vec<&str> = registry
        .definitions()
        .filter(|definition| definition.is_model_facing())
        .map(|definition| definition.name())
        .filter(|name| !sampled.contains(name) && !skipped.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "these tools have no sample call in tests/tests/result_schemas.rs: {missing:?}; add one to `steps()`, or say in `NOT_RUN` why it cannot run"
    );
    let unknown: Vec<&&str> = sampled
        .iter()
        .chain(&skipped)
        .filter(|name| registry.get(name).is_none())
        .collect();
    assert!(
        unknown.is_empty(),
        "samples of tools that do not exist: {unknown:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sample_result_matches_its_published_result_schema() {
    let workspace = tempfile::tempdir().expect("a temporary workspace");
    let other = tempfile::tempdir().expect("a second directory");
    std::fs::write(workspace.path().join("pixel.png"), PIXEL_PNG).expect("the image");
    let runtime =
        Runtime::open(RuntimeConfig::in_memory(workspace.path())).expect("a throwaway runtime");
    let context = runtime.context(FamilyPolicy::all()).with_runtime_access();
    let registry = Registry::global();
    let mut vars: BTreeMap<&str, Value> = BTreeMap::new();
    let other_path = other.path().canonicalize().expect("a path");
    vars.insert("other", json!(other_path.to_string_lossy()));
    let mut problems = Vec::new();
    let mut validated = 0;
    for (index, step) in steps().into_iter().enumerate() {
        let label = format!("step {index} ({})", step.tool);
        let call = match step.input {
            Input::Text(text) => ToolCall::freeform(step.tool, text),
            Input::Json(mut input) => match substitute(&mut input, &vars) {
                Ok(()) => ToolCall::new(step.tool, input),
                Err(problem) => {
                    problems.push(format!("{label}: {problem}"));
                    continue;
                }
            },
        };
        let input = call.input.clone();
        let result = registry.dispatch(&context, call).await;
        let Some(structured) = result
            .structured
            .as_ref()
            .filter(|_| matches!(result.status, ToolStatus::Success | ToolStatus::Deferred))
        else {
            problems.push(format!(
                "{label}: the sample call {input} failed: {:?}",
                result.error
            ));
            continue;
        };
        let Some(definition) = registry.get(step.tool) else {
            problems.push(format!("{label}: no such tool"));
            continue;
        };
        match jsonschema::draft202012::new(&definition.result_schema) {
            Err(error) => problems.push(format!(
                "{label}: the result schema does not compile: {error}"
            )),
            Ok(validator) => {
                let errors: Vec<String> = validator
                    .iter_errors(structured)
                    .map(|error| format!("{} at `{}`", error, error.instance_path()))
                    .collect();
                if errors.is_empty() {
                    validated += 1;
                } else {
                    problems.push(format!(
                        "{label}: the result does not match the published result schema:\n    {}\n  result: {structured}",
                        errors.join("\n    ")
                    ));
                }
            }
        }
        for (name, pointer) in step.capture {
            match structured.pointer(pointer) {
                Some(value) => {
                    vars.insert(name, value.clone());
                }
                None => problems.push(format!("{label}: the result has nothing at {pointer}")),
            }
        }
    }
    println!("{validated} structured results matched their result schemas");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
