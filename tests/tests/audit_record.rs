//! The audit record a dispatch observer builds: who called, what, the arguments'
//! digest, and how the call ended (success, error kind, refused by the family gate).

use std::sync::{Arc, Mutex};

use holon_core::prelude::*;
use holon_core::{
    FamilyPolicy, Principal, Registry, SessionId, ToolCall, ToolCapabilityFamily, ToolContext,
};
use holon_downstream_tools as _;
use holon_policy::audit::{AuditRecord, Outcome, sha256_hex};
use serde_json::json;

/// Keeps the audit record of every call it sees.
#[derive(Default)]
struct Audits(Mutex<Vec<AuditRecord>>);

impl holon_core::DispatchObserver for Audits {
    fn record(&self, execution: &holon_core::Execution<'_>) {
        let record = AuditRecord::of_execution(execution, true);
        self.0.lock().unwrap().push(record);
    }
}

/// The number to double.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct DoubleArgs {
    /// The number.
    n: i64,
}

/// Doubles a number (for the audit test).
#[holon_tool(family = CoreAgent)]
fn audited_double(args: DoubleArgs) -> Result<i64, ToolError> {
    Ok(args.n * 2)
}

/// A web tool, refused to a caller without the web family.
#[holon_tool(family = Web)]
fn audited_web() -> Result<bool, ToolError> {
    Ok(true)
}

fn last(audits: &Audits) -> AuditRecord {
    audits
        .0
        .lock()
        .unwrap()
        .last()
        .cloned()
        .expect("one record")
}

#[tokio::test]
async fn each_call_gives_one_record_of_who_what_and_how_it_ended() {
    let audits = Arc::new(Audits::default());
    let context = ToolContext::new(FamilyPolicy::none().with(ToolCapabilityFamily::CoreAgent))
        .with_caller("agent-7")
        .with_state(Principal::new("alice", ["tools"]))
        .with_state(SessionId::new("s-1"))
        .with_observer(audits.clone());
    let registry = Registry::global();

    let text = r#"{"n": 21}"#;
    registry
        .dispatch_text(&context, "AuditedDouble", text)
        .await;
    let record = last(&audits);
    assert_eq!(record.outcome, Outcome::Success);
    assert_eq!(record.kind, None);
    assert_eq!(record.tool, "AuditedDouble");
    assert_eq!(record.caller.as_deref(), Some("agent-7"));
    assert_eq!(record.principal.as_deref(), Some("alice"));
    assert_eq!(record.session.as_deref(), Some("s-1"));
    assert_eq!(record.arguments_sha256, sha256_hex(text.as_bytes()));
    assert_eq!(record.arguments.as_deref(), Some(text));
    assert_eq!(record.decision, None);

    let call = ToolCall::new("AuditedDouble", json!({ "n": "x" })).with_call_id("c-9");
    registry.dispatch(&context, call).await;
    let record = last(&audits);
    assert_eq!(record.outcome, Outcome::Error);
    assert_eq!(
        record.kind.as_deref(),
        Some("invalid_tool_input"),
        "{record:?}"
    );
    assert_eq!(record.call_id.as_deref(), Some("c-9"));

    registry.dispatch_text(&context, "AuditedWeb", "{}").await;
    let record = last(&audits);
    assert_eq!(record.outcome, Outcome::Refused);
    assert_eq!(record.kind.as_deref(), Some("family_not_allowed"));

    registry.dispatch_text(&context, "NoSuchTool", "{}").await;
    let record = last(&audits);
    assert_eq!(
        (record.outcome, record.tool.as_str()),
        (Outcome::Error, "NoSuchTool")
    );
    assert_eq!(record.kind.as_deref(), Some("unknown_tool"));
    assert_eq!(audits.0.lock().unwrap().len(), 4);
}

#[tokio::test]
async fn the_arguments_are_left_out_unless_the_host_keeps_them() {
    struct Digests(Mutex<Vec<AuditRecord>>);
    impl holon_core::DispatchObserver for Digests {
        fn record(&self, execution: &holon_core::Execution<'_>) {
            let record = AuditRecord::of_execution(execution, false);
            self.0.lock().unwrap().push(record);
        }
    }
    let digests = Arc::new(Digests(Mutex::default()));
    let context = ToolContext::new(FamilyPolicy::all()).with_observer(digests.clone());
    Registry::global()
        .dispatch_text(&context, "AuditedDouble", r#"{"n":1}"#)
        .await;
    let record = digests.0.lock().unwrap().pop().expect("a record");
    assert_eq!(record.arguments, None);
    assert_eq!(record.arguments_sha256, sha256_hex(br#"{"n":1}"#));
    assert_eq!((record.principal, record.caller), (None, None));
}
