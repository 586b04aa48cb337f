//! The macros in crates that do not call holon-core `holon_core`: one depends on it
//! renamed (`hc = { package = "holon-core", ... }`), one reaches it only through a
//! facade crate (`crate = holon_facade::core`). Both build as workspace members, and
//! their tools dispatch from this program's registry.

use holon_core::{FamilyPolicy, Registry, ToolCall, ToolContext};
use holon_facade_tools as _;
use holon_renamed_core_tools as _;
use serde_json::json;

async fn call(name: &str, input: serde_json::Value) -> serde_json::Value {
    let context = ToolContext::new(FamilyPolicy::all());
    let result = Registry::global()
        .dispatch(&context, ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).expect("an envelope serializes")
}

#[tokio::test]
async fn a_tool_of_a_crate_with_holon_core_renamed_dispatches() {
    let definition = Registry::global().get("RenamedDouble").expect("linked");
    assert_eq!(definition.defined_at.module, "holon_renamed_core_tools");
    let envelope = call("RenamedDouble", json!({ "value": 21 })).await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"]["doubled"], 42);

    let envelope = call("RenamedDouble", json!({ "value": 1, "vaule": 2 })).await;
    assert_eq!(envelope["error"]["kind"], "unknown_field", "{envelope:#}");
}

#[tokio::test]
async fn a_tool_of_a_crate_using_a_facade_dispatches() {
    let definition = Registry::global().get("FacadeGreet").expect("linked");
    assert_eq!(definition.defined_at.module, "holon_facade_tools");
    let envelope = call("FacadeGreet", json!({ "name": "Ada" })).await;
    assert_eq!(envelope["status"], "success", "{envelope:#}");
    assert_eq!(envelope["structured"]["text"], "hello, Ada");
}
