//! Helpers shared by the agent-plane tests: an in-memory runtime, calls through the
//! registry and through the runtime's gate, and snapshots of the store.

use std::sync::Arc;

use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_runtime::{Runtime, RuntimeConfig};
use serde_json::Value;

/// A runtime on `workspace` whose state is on disk in `<workspace>/.holon`, named
/// explicitly: by default it would be in the user's data directory, which tests must
/// not touch.
pub fn config_with_state_in(workspace: impl Into<std::path::PathBuf>) -> RuntimeConfig {
    let workspace = workspace.into();
    let mut config = RuntimeConfig::new(&workspace);
    config.state_dir = Some(workspace.join(".holon"));
    config
}

/// A fresh runtime whose state is in memory.
pub fn runtime() -> Arc<Runtime> {
    Runtime::open(RuntimeConfig::in_memory(std::env::temp_dir())).unwrap()
}

/// A call of `root` through `Registry::dispatch`, as a model host would make it.
pub async fn call(runtime: &Arc<Runtime>, name: &str, input: Value) -> Value {
    let context = runtime.context(FamilyPolicy::all());
    let result = Registry::global()
        .dispatch(&context, ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).unwrap()
}

/// A call of `root` through the runtime's gate (`Runtime::dispatch`).
pub async fn gated(runtime: &Arc<Runtime>, name: &str, input: Value) -> Value {
    let result = runtime
        .dispatch(FamilyPolicy::all(), ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).unwrap()
}

/// A call of agent `agent` through the gate, under its profile.
pub async fn call_as(runtime: &Arc<Runtime>, agent: &str, name: &str, input: Value) -> Value {
    let result = runtime.dispatch_as(agent, ToolCall::new(name, input)).await;
    serde_json::to_value(&result).unwrap()
}

/// Asserts that `envelope` succeeded and returns its structured result.
#[track_caller]
pub fn ok(envelope: &Value) -> &Value {
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    &envelope["structured"]
}

/// The error kind of `envelope`.
pub fn error_kind(envelope: &Value) -> &str {
    envelope["error"]["kind"].as_str().unwrap_or("")
}

/// The tables a settlement touches, row by row.
pub const SETTLEMENT_TABLES: &[&str] = &[
    "agents",
    "turns",
    "queue",
    "work_items",
    "waits",
    "wakes",
    "timers",
    "tool_executions",
];

/// Every row of `tables`, rendered, in row order.
pub fn snapshot(runtime: &Runtime, tables: &[&str]) -> Vec<String> {
    let conn = runtime.store().connection();
    let mut rows = Vec::new();
    for table in tables {
        let mut statement = conn
            .prepare(&format!("SELECT * FROM {table} ORDER BY rowid"))
            .unwrap();
        let columns = statement.column_count();
        let mut query = statement.query([]).unwrap();
        while let Some(row) = query.next().unwrap() {
            let values: Vec<String> = (0..columns)
                .map(|i| format!("{:?}", row.get::<_, rusqlite::types::Value>(i).unwrap()))
                .collect();
            rows.push(format!("{table}: {}", values.join(" | ")));
        }
    }
    rows
}

/// One scalar from the store.
pub fn scalar(runtime: &Runtime, sql: &str) -> rusqlite::types::Value {
    runtime
        .store()
        .connection()
        .query_row(sql, [], |row| row.get(0))
        .unwrap()
}

/// One integer from the store.
pub fn count(runtime: &Runtime, sql: &str) -> i64 {
    runtime
        .store()
        .connection()
        .query_row(sql, [], |row| row.get(0))
        .unwrap()
}
