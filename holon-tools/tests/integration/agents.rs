//! The agent plane through `Registry::dispatch`: AgentGet, Enqueue, SpawnAgent and its
//! schema rules, profiles, the runtime-only trigger tools, and operator notification.

use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_export::{ExportOptions, Provider, export};
use holon_lint::inventory_text;
use holon_runtime::agency::{AgentOutcome, NotificationLevel, Priority};
use holon_tool_fixtures::runtime::{call, call_as, error_kind, ok, runtime};
use serde_json::{Value, json};

#[tokio::test]
async fn agent_get_shows_identity_focus_waits_and_children() {
    let rt = runtime();
    let me = call(&rt, "AgentGet", json!({})).await;
    let agent = &ok(&me)["agent"];
    assert_eq!(agent["agent_id"], "root");
    assert_eq!(agent["profile"], "public_named");
    assert_eq!(agent["lifecycle"], "running", "the call opened a turn");
    assert!(agent["focus"].is_null());

    ok(&call(&rt, "CreateWorkItem", json!({"objective": "lead"})).await);
    ok(&call(&rt, "SpawnAgent", json!({"initial_message": "help"})).await);
    ok(&call(
        &rt,
        "SpawnAgent",
        json!({"preset": "public_named", "agent_id": "reviewer", "template": "review"}),
    )
    .await);
    let me = call(&rt, "AgentGet", json!({"agent_id": "root"})).await;
    let agent = &ok(&me)["agent"];
    assert_eq!(agent["focus"]["work_item_id"], "wi-1");
    let children: Vec<(&str, &str)> = agent["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["agent_id"].as_str().unwrap(),
                c["profile"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        children,
        [("child-1", "private_child"), ("reviewer", "public_named")]
    );
    assert_eq!(agent["children"][0]["task_handle"], "agent:child-1");

    let child = call(&rt, "AgentGet", json!({"agent_id": "child-1"})).await;
    let child = &ok(&child)["agent"];
    assert_eq!(child["parent_id"], "root");
    assert_eq!(child["queued_messages"], 1, "its first message is queued");
    assert_eq!(child["lifecycle"], "idle");

    // A private child is private: a sibling cannot see it, its parent can.
    let hidden = call_as(&rt, "reviewer", "AgentGet", json!({"agent_id": "child-1"})).await;
    assert_eq!(error_kind(&hidden), "unknown_agent", "{hidden}");
    let parent = call_as(&rt, "child-1", "AgentGet", json!({"agent_id": "root"})).await;
    assert_eq!(ok(&parent)["agent"]["agent_id"], "root");
    let start = rt.begin_turn("child-1").unwrap();
    assert_eq!(start.messages[0].text, "help");
    assert_eq!(start.messages[0].sender, "root");
}

#[tokio::test]
async fn enqueue_orders_messages_by_priority() {
    let rt = runtime();
    for (text, priority) in [
        ("bg", "background"),
        ("n1", "normal"),
        ("nx", "next"),
        ("n2", "normal"),
        ("now", "interject"),
    ] {
        let queued = call(&rt, "Enqueue", json!({"text": text, "priority": priority})).await;
        assert_eq!(ok(&queued)["recipient"], "root");
    }
    let queued = call(&rt, "Enqueue", json!({"text": "later"})).await;
    assert_eq!(ok(&queued)["message"]["priority"], "normal");
    assert_eq!(
        ok(&queued)["ahead_in_queue"],
        4,
        "interject, next, n1 and n2 come first"
    );
    let delivered: Vec<String> = rt
        .begin_turn("root")
        .unwrap()
        .messages
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(
        delivered,
        ["now", "nx", "n1", "n2", "later"],
        "background waits while others are queued"
    );
    let delivered: Vec<String> = rt
        .begin_turn("root")
        .unwrap()
        .messages
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(delivered, ["bg"]);

    let bad = call(&rt, "Enqueue", json!({"text": "x", "priority": "urgent"})).await;
    assert_eq!(error_kind(&bad), "invalid_tool_input");
    let stranger = call(&rt, "Enqueue", json!({"text": "x", "agent_id": "nobody"})).await;
    assert_eq!(error_kind(&stranger), "unknown_agent");
}

/// Inputs that break SpawnAgent's preset rules, with the field each error names.
fn spawn_violations() -> Vec<(Value, &'static str)> {
    vec![
        (json!({}), "initial_message"),
        (json!({"preset": "private_child"}), "initial_message"),
        (
            json!({"initial_message": "m", "agent_id": "named"}),
            "agent_id",
        ),
        (json!({"preset": "public_named"}), "agent_id"),
        (
            json!({"preset": "public_named", "agent_id": "ok-name", "workspace_mode": "worktree"}),
            "workspace_mode",
        ),
        (
            json!({"preset": "public_named", "agent_id": "Bad Name"}),
            "agent_id",
        ),
    ]
}

#[tokio::test]
async fn spawn_rules_live_in_the_schema_and_dispatch_enforces_exactly_them() {
    let rt = runtime();
    let schema = Registry::global()
        .get("SpawnAgent")
        .unwrap()
        .spec
        .input_schema
        .clone();
    let rules = schema["allOf"].as_array().expect("conditional subschemas");
    assert!(
        rules
            .iter()
            .all(|rule| rule.get("if").is_some() && rule.get("then").is_some())
    );
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for (input, field) in spawn_violations() {
        assert!(
            !validator.is_valid(&input),
            "the schema itself rejects {input}"
        );
        let envelope = call(&rt, "SpawnAgent", input.clone()).await;
        assert_eq!(
            error_kind(&envelope),
            "invalid_tool_input",
            "{input}: {envelope}"
        );
        assert_eq!(envelope["error"]["field"], field, "{input}: {envelope}");
    }
    let valid = [
        json!({"initial_message": "run the tests"}),
        json!({"preset": "private_child", "initial_message": "m", "workspace_mode": "inherit", "agent_id": null}),
        json!({"preset": "public_named", "agent_id": "docs-writer"}),
        json!({"preset": "public_named", "agent_id": "greeter", "initial_message": "hi", "workspace_mode": "inherit"}),
    ];
    for input in valid {
        assert!(validator.is_valid(&input), "{input}");
        let envelope = call(&rt, "SpawnAgent", input.clone()).await;
        ok(&envelope);
    }
    let twice = call(
        &rt,
        "SpawnAgent",
        json!({"preset": "public_named", "agent_id": "docs-writer"}),
    )
    .await;
    assert_eq!(error_kind(&twice), "agent_exists");
    let model = call(
        &rt,
        "SpawnAgent",
        json!({"initial_message": "m", "model": {"provider": "opneai", "model": "x"}}),
    )
    .await;
    assert_eq!(error_kind(&model), "unknown_model");
    assert_eq!(model["error"]["recovery_hint"], "did you mean `openai`?");
}

#[tokio::test]
async fn a_spawned_private_child_is_a_real_agent_with_a_task_and_its_profile() {
    let rt = runtime();
    let spawned = call(
        &rt,
        "SpawnAgent",
        json!({"initial_message": "index the repository", "template": "indexer"}),
    )
    .await;
    let spawned = ok(&spawned);
    assert_eq!(spawned["spawned"]["agent_id"], "child-1");
    assert_eq!(spawned["spawned"]["task_handle"], "agent:child-1");
    assert_eq!(spawned["queued_message_id"], "msg-1");
    let owner = rt.task_owner("agent:child-1").unwrap().unwrap();
    assert_eq!(owner.agent_id, "root");

    // The child's context carries the private_child profile: no agent creation.
    let context = rt.agent_context("child-1").unwrap();
    assert_eq!(context.caller(), Some("child-1"));
    assert_eq!(context.policy(), FamilyPolicy::private_child());
    let refused = call_as(
        &rt,
        "child-1",
        "SpawnAgent",
        json!({"initial_message": "grandchild"}),
    )
    .await;
    assert_eq!(error_kind(&refused), "family_not_allowed", "{refused}");
    let refused = Registry::global()
        .dispatch(
            &context,
            ToolCall::new("SpawnAgent", json!({"initial_message": "m"})),
        )
        .await;
    assert_eq!(refused.error_kind(), Some("family_not_allowed"));
    // Even a host that widens the policy cannot make a private child spawn.
    let widened = rt
        .agent_context("child-1")
        .unwrap()
        .with_policy(FamilyPolicy::all());
    let refused = Registry::global()
        .dispatch(
            &widened,
            ToolCall::new("SpawnAgent", json!({"initial_message": "m"})),
        )
        .await;
    assert_eq!(refused.error_kind(), Some("family_not_allowed"));
    // Its own bookkeeping works, in its own store rows.
    ok(&call_as(
        &rt,
        "child-1",
        "CreateWorkItem",
        json!({"objective": "index"}),
    )
    .await);
    let mine = call(&rt, "ListWorkItems", json!({"filter": "all"})).await;
    assert_eq!(
        ok(&mine)["total_matching"],
        0,
        "root does not see the child's items"
    );
    let unknown = rt.agent_context("nobody").unwrap_err();
    assert_eq!(unknown.kind.as_str(), "unknown_agent");

    // A child that ended stops: no more messages, no more turns.
    rt.finish_agent("child-1", AgentOutcome::Failed, Some("gave up"))
        .unwrap();
    let stopped = call(
        &rt,
        "Enqueue",
        json!({"text": "more", "agent_id": "child-1"}),
    )
    .await;
    assert_eq!(error_kind(&stopped), "agent_stopped");
    let child = call(&rt, "AgentGet", json!({"agent_id": "child-1"})).await;
    assert_eq!(ok(&child)["agent"]["lifecycle"], "stopped");
    assert_eq!(
        rt.begin_turn("child-1").unwrap_err().kind.as_str(),
        "agent_stopped"
    );
    assert!(
        rt.finish_agent("root", AgentOutcome::Completed, None)
            .is_err()
    );
}

fn runtime_only() -> [&'static str; 2] {
    ["CreateExternalTrigger", "CancelExternalTrigger"]
}

#[tokio::test]
async fn trigger_tools_are_dispatchable_by_the_runtime_only() {
    let rt = runtime();
    let registry = Registry::global();
    for name in runtime_only() {
        let definition = registry.get(name).unwrap();
        assert!(!definition.is_model_facing(), "{name}");
        assert_eq!(definition.family.as_str(), "external_trigger");
    }
    // Not for a model...
    let refused = call(
        &rt,
        "CreateExternalTrigger",
        json!({"delivery_mode": "wake_hint"}),
    )
    .await;
    assert_eq!(error_kind(&refused), "unknown_tool", "{refused}");
    // ...but for the runtime.
    let context = rt.context(FamilyPolicy::all()).with_runtime_access();
    let created = registry
        .dispatch(
            &context,
            ToolCall::new(
                "CreateExternalTrigger",
                json!({"delivery_mode": "enqueue_message", "description": "CI webhook"}),
            ),
        )
        .await;
    let trigger = created.structured.unwrap()["trigger"].clone();
    assert_eq!(trigger["trigger_id"], "trigger-1");
    ok(&call(&rt, "WaitFor", json!({"reason": "until CI reports", "wake": "external", "resource": "trigger-1", "delivery": "silent"})).await);
    let wake = rt.fire_external_trigger("trigger-1", "CI passed").unwrap();
    assert_eq!(wake.woke_waits, ["wait-1"]);
    let start = rt.begin_turn("root").unwrap();
    assert_eq!(start.messages[0].text, "CI passed");
    assert_eq!(start.messages[0].sender, "external:trigger-1");

    let cancelled = registry
        .dispatch(
            &context,
            ToolCall::new(
                "CancelExternalTrigger",
                json!({"external_trigger_id": "trigger-1"}),
            ),
        )
        .await;
    assert_eq!(
        cancelled.structured.unwrap()["trigger"]["state"],
        "cancelled"
    );
    let error = rt.fire_external_trigger("trigger-1", "again").unwrap_err();
    assert_eq!(error.kind.as_str(), "external_trigger_cancelled");

    // Absent from the inventory and from every export.
    let inventory = inventory_text(registry);
    for provider in Provider::ALL {
        let payload = export(registry, provider, ExportOptions::new(FamilyPolicy::all()))
            .payload()
            .to_string();
        for name in runtime_only() {
            assert!(!payload.contains(name), "{name} in the {provider} export");
        }
        assert!(payload.contains("WaitFor"), "{provider}");
    }
    for name in runtime_only() {
        assert!(!inventory.contains(name), "{name} in the inventory");
    }
}

#[tokio::test]
async fn notify_operator_is_a_runtime_method_not_a_tool() {
    let rt = runtime();
    let registry = Registry::global();
    assert!(registry.get("NotifyOperator").is_none());
    assert!(registry.definitions().all(|d| !d.name().contains("Notify")));
    assert!(!inventory_text(registry).contains("NotifyOperator"));
    let context = rt.context(FamilyPolicy::all()).with_runtime_access();
    let result = registry
        .dispatch(
            &context,
            ToolCall::new("NotifyOperator", json!({"text": "hi"})),
        )
        .await;
    assert_eq!(
        result.error_kind(),
        Some("unknown_tool"),
        "not even for the runtime"
    );

    let note = rt
        .notify_operator(
            "root",
            NotificationLevel::ActionRequired,
            "approve the deploy",
        )
        .unwrap();
    assert_eq!(note.notification_id, "note-1");
    let listed = rt.notifications(10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].text, "approve the deploy");
    assert!(
        rt.notify_operator("nobody", NotificationLevel::Info, "x")
            .is_err()
    );
    assert!(
        rt.enqueue_message("root", "operator", Priority::Normal, " ")
            .is_err()
    );
}
