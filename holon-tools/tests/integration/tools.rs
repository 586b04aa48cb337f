//! The first built-in tools, through `registry.dispatch` on an in-memory runtime.

use std::collections::BTreeSet;
use std::sync::Arc;

use holon_core::{FamilyPolicy, Registry, ToolCall, ToolStatus};
use holon_runtime::{Credentials, Runtime, RuntimeConfig};
use serde_json::{Value, json};

fn runtime_with_credentials(names: &[&str]) -> Arc<Runtime> {
    let mut config = RuntimeConfig::in_memory(std::env::temp_dir());
    config.credentials =
        Credentials::Fixed(names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>());
    Runtime::open(config).unwrap()
}

async fn call(runtime: &Arc<Runtime>, name: &str, input: Value) -> Value {
    let result = runtime
        .dispatch(FamilyPolicy::all(), ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).unwrap()
}

#[tokio::test]
async fn sleep_really_sleeps_and_reports_it() {
    let runtime = runtime_with_credentials(&[]);
    let started = std::time::Instant::now();
    let envelope = call(
        &runtime,
        "Sleep",
        json!({"duration_ms": 30, "reason": "let the build start"}),
    )
    .await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    assert!(started.elapsed().as_millis() >= 30);
    let slept = envelope["structured"]["slept_ms"].as_u64().unwrap();
    assert!(slept >= 30, "{envelope}");
    assert!(
        envelope["summary"]
            .as_str()
            .unwrap()
            .contains("let the build start")
    );
}

#[tokio::test]
async fn sleep_rejects_out_of_range_and_unknown_fields() {
    let runtime = runtime_with_credentials(&[]);
    for (input, field) in [
        (json!({"duration_ms": 0}), "duration_ms"),
        (json!({"duration_ms": 600_001}), "duration_ms"),
        (json!({"duration_ms": -5}), "duration_ms"),
        (json!({"duration_ms": "10"}), "duration_ms"),
    ] {
        let envelope = call(&runtime, "Sleep", input.clone()).await;
        assert_eq!(
            envelope["error"]["kind"], "invalid_tool_input",
            "{input}: {envelope}"
        );
        assert_eq!(envelope["error"]["field"], field, "{input}: {envelope}");
    }
    let envelope = call(&runtime, "Sleep", json!({"duration": 10})).await;
    assert_eq!(envelope["error"]["kind"], "unknown_field");
    assert_eq!(
        envelope["error"]["recovery_hint"],
        "did you mean `duration_ms`?"
    );
    let envelope = call(&runtime, "Sleep", json!({"slept_ms": 10})).await;
    assert_eq!(
        envelope["error"]["kind"], "result_field_in_input",
        "{envelope}"
    );
}

#[tokio::test]
async fn providers_are_listed_by_configuration() {
    let runtime = runtime_with_credentials(&["OPENAI_API_KEY"]);
    let envelope = call(&runtime, "ListModelProviders", json!({})).await;
    let providers = envelope["structured"]["providers"].as_array().unwrap();
    assert_eq!(providers.len(), 1, "{envelope}");
    assert_eq!(providers[0]["id"], "openai");
    assert_eq!(providers[0]["configured"], true);
    assert!(
        envelope["structured"]["unconfigured_hidden"]
            .as_u64()
            .unwrap()
            >= 1
    );

    let envelope = call(
        &runtime,
        "ListModelProviders",
        json!({"include_unavailable": true}),
    )
    .await;
    let providers = envelope["structured"]["providers"].as_array().unwrap();
    assert!(providers.len() > 1);
    assert!(providers.iter().any(|p| p["configured"] == false));
    assert_eq!(envelope["structured"]["unconfigured_hidden"], 0);
}

#[tokio::test]
async fn models_page_through_with_cursors() {
    let runtime = runtime_with_credentials(&[]);
    let all = call(
        &runtime,
        "ListProviderModels",
        json!({"provider": "openai", "limit": 100}),
    )
    .await;
    let total = all["structured"]["total_count"].as_u64().unwrap() as usize;
    let all_ids: Vec<Value> = all["structured"]["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(all_ids.len(), total);
    assert!(all["structured"]["next_cursor"].is_null());
    assert!(
        all_ids.iter().all(|id| id != "gpt-4.5-preview"),
        "retired models are hidden by default"
    );

    let mut paged = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let mut input = json!({"provider": "openai", "limit": 2});
        if !cursor.is_null() {
            input["cursor"] = cursor.clone();
        }
        let page = call(&runtime, "ListProviderModels", input).await;
        assert_eq!(page["status"], "success", "{page}");
        let models = page["structured"]["models"].as_array().unwrap();
        assert!(models.len() <= 2);
        paged.extend(models.iter().map(|m| m["id"].clone()));
        cursor = page["structured"]["next_cursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(paged, all_ids);

    let with_retired = call(
        &runtime,
        "ListProviderModels",
        json!({"provider": "openai", "limit": 100, "include_unavailable": true}),
    )
    .await;
    assert_eq!(
        with_retired["structured"]["total_count"].as_u64().unwrap() as usize,
        total + 1
    );
}

#[tokio::test]
async fn bad_model_queries_are_typed_errors() {
    let runtime = runtime_with_credentials(&[]);
    let envelope = call(
        &runtime,
        "ListProviderModels",
        json!({"provider": "antropic"}),
    )
    .await;
    assert_eq!(envelope["error"]["kind"], "unknown_provider");
    assert_eq!(
        envelope["error"]["recovery_hint"],
        "did you mean `anthropic`?"
    );

    let envelope = call(
        &runtime,
        "ListProviderModels",
        json!({"provider": "openai", "cursor": "page-2"}),
    )
    .await;
    assert_eq!(envelope["error"]["kind"], "invalid_cursor");
    assert_eq!(envelope["error"]["field"], "cursor");

    for limit in [0, 101] {
        let envelope = call(
            &runtime,
            "ListProviderModels",
            json!({"provider": "openai", "limit": limit}),
        )
        .await;
        assert_eq!(
            envelope["error"]["kind"], "invalid_tool_input",
            "{envelope}"
        );
        assert_eq!(envelope["error"]["field"], "limit");
    }
    let envelope = call(&runtime, "ListProviderModels", json!({"provider": ""})).await;
    assert_eq!(envelope["error"]["field"], "provider", "{envelope}");
    let envelope = call(&runtime, "ListProviderModels", json!({})).await;
    assert_eq!(envelope["error"]["field"], "provider", "{envelope}");
}

#[tokio::test]
async fn every_call_is_recorded_in_the_store() {
    let runtime = runtime_with_credentials(&[]);
    call(&runtime, "Sleep", json!({"duration_ms": 1})).await;
    call(&runtime, "NoSuchTool", json!({})).await;
    let records = runtime.store().recent_executions(10).unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].requested_name, "NoSuchTool");
    assert_eq!(records[0].error_kind.as_deref(), Some("unknown_tool"));
    assert_eq!(records[1].tool_name, "Sleep");
    assert_eq!(records[1].status, "success");
    assert_eq!(records[1].input_json, r#"{"duration_ms":1}"#);
}

#[tokio::test]
async fn a_missing_runtime_is_a_typed_error() {
    let context = holon_core::ToolContext::new(FamilyPolicy::all());
    let result = Registry::global()
        .dispatch(&context, ToolCall::new("ListModelProviders", json!({})))
        .await;
    assert_eq!(result.status, ToolStatus::Error);
    assert_eq!(result.error_kind(), Some("missing_context"));
}

#[test]
fn the_checked_in_inventory_is_current() {
    let checked_in = include_str!("../../model-tool-schema-inventory.json");
    if let Err(drift) = holon_lint::check_inventory(checked_in, Registry::global()) {
        panic!("{drift}");
    }
}
