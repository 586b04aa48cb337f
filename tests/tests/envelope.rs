//! The result envelope: what every call returns, serialized with `serde_json`.

use std::collections::BTreeSet;

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolResult};
use holon_downstream_tools as _;
use serde_json::{Value, json};

#[derive(Serialize, JsonSchema)]
struct Squared {
    squared: i64,
}

/// Arguments of the square tools.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct SquareArgs {
    /// The number to square.
    n: i32,
}

/// Squares a number, synchronously.
#[holon_tool(family = CoreAgent)]
fn square_now(args: SquareArgs) -> Squared {
    Squared {
        squared: i64::from(args.n) * i64::from(args.n),
    }
}

/// Squares a number, asynchronously, after a short sleep.
#[holon_tool(family = CoreAgent)]
async fn square_later(args: SquareArgs, context: &ToolContext) -> Result<Squared, ToolError> {
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let _ = context.caller();
    Ok(Squared {
        squared: i64::from(args.n) * i64::from(args.n),
    })
}

#[derive(Serialize, JsonSchema)]
struct Approval {
    request_id: String,
}

/// Asks the operator for approval; the call completes later.
#[holon_tool(family = CoreAgent)]
async fn request_approval() -> ToolOutput<Approval> {
    ToolOutput::new(Approval {
        request_id: "req-7".to_string(),
    })
    .deferred("the operator's approval of req-7")
}

/// Asks for approval, synchronously: the handler returns at once, deferred.
#[holon_tool(family = CoreAgent)]
fn request_approval_now() -> ToolOutput<Approval> {
    ToolOutput::new(Approval {
        request_id: "req-8".to_string(),
    })
    .deferred("the operator's approval of req-8")
}

#[derive(Serialize, JsonSchema)]
struct Rendered {
    width_px: u32,
    height_px: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    caption: Option<String>,
}

/// Renders a picture: an image block, an artifact and a summary.
#[holon_tool(family = CoreAgent)]
fn render_picture() -> ToolOutput<Rendered> {
    ToolOutput::new(Rendered {
        width_px: 2,
        height_px: 1,
        caption: None,
    })
    .with_summary("rendered a 2x1 picture")
    .with_content(ContentBlock::Image {
        mime_type: "image/png".to_string(),
        data: "iVBORw0KGgo=".to_string(),
    })
    .with_artifact("out/picture.png", "image")
}

#[derive(Serialize, JsonSchema)]
struct Nothing {}

/// Always fails with a tool-specific error kind.
#[holon_tool(family = CoreAgent)]
// `ToolError` is 136 bytes, over clippy's 128-byte `result_large_err` threshold, so
// every synchronous handler returning `Result<_, ToolError>` trips the lint.
#[allow(clippy::result_large_err)]
fn spend_quota() -> Result<Nothing, ToolError> {
    Err(ToolError::new(
        ToolErrorKind::new("quota_exhausted"),
        "the daily quota is used up",
    )
    .with_hint("try again tomorrow")
    .retryable())
}

#[derive(Serialize, JsonSchema)]
struct Receipted {
    internal_token: String,
}

/// Writes its own receipt.
#[holon_tool(family = CoreAgent)]
fn custom_receipt() -> ToolOutput<Receipted> {
    ToolOutput::new(Receipted {
        internal_token: "t0k3n".to_string(),
    })
    .with_receipt("done; nothing to report")
}

async fn dispatch(call: ToolCall) -> (ToolResult, Value) {
    let context = ToolContext::new(FamilyPolicy::all());
    let result = Registry::global().dispatch(&context, call).await;
    let envelope = serde_json::to_value(&result).expect("the envelope serializes");
    (result, envelope)
}

fn keys(envelope: &Value) -> BTreeSet<&str> {
    envelope
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

const ALWAYS: [&str; 8] = [
    "artifacts",
    "content",
    "error",
    "receipt",
    "status",
    "structured",
    "summary",
    "tool_name",
];

/// The envelope validates against the envelope schema, and `structured` against the
/// tool's result schema.
fn assert_valid(envelope: &Value) {
    let schema = ToolResult::envelope_schema();
    let validator = jsonschema::draft202012::new(&schema).expect("the envelope schema compiles");
    if let Err(error) = validator.validate(envelope) {
        panic!("the envelope breaks its schema: {error}\n{envelope:#}");
    }
    if envelope["status"] != "error" {
        let name = envelope["tool_name"].as_str().expect("a name");
        let definition = Registry::global().get(name).expect("registered");
        let validator =
            jsonschema::draft202012::new(&definition.result_schema).expect("result schema");
        if let Err(error) = validator.validate(&envelope["structured"]) {
            panic!("{name}'s result breaks its schema: {error}\n{envelope:#}");
        }
    }
}

#[tokio::test]
async fn a_success_envelope_has_every_part() {
    let (result, envelope) =
        dispatch(ToolCall::new("Echo", json!({ "text": "hi", "times": 2 }))).await;
    assert_valid(&envelope);
    assert_eq!(keys(&envelope), BTreeSet::from(ALWAYS));
    assert_eq!(envelope["tool_name"], "Echo");
    assert_eq!(envelope["status"], "success");
    assert_eq!(envelope["summary"], "Echo succeeded");
    assert_eq!(
        envelope["structured"],
        json!({ "echoed": "hi hi", "length_chars": 5 })
    );
    assert_eq!(envelope["artifacts"], json!([]));
    assert_eq!(envelope["error"], Value::Null);
    // A plain result carries no extras, so no box is allocated for them.
    assert!(result.extras.is_none(), "{:?}", result.extras);

    let receipt = envelope["receipt"].as_str().expect("a receipt");
    assert_eq!(receipt, "Echo succeeded\nechoed: hi hi\nlength_chars: 5");
    assert_eq!(receipt, result.receipt());
    assert_eq!(
        envelope["content"],
        json!([{ "type": "text", "text": receipt }])
    );
    assert_eq!(
        serde_json::to_value(result.model_content()).expect("serializes"),
        envelope["content"]
    );
}

#[tokio::test]
async fn content_blocks_artifacts_and_summary_follow_the_receipt() {
    let (result, envelope) = dispatch(ToolCall::new("RenderPicture", json!({}))).await;
    assert_valid(&envelope);
    assert_eq!(result.content().len(), 1);
    assert_eq!(result.artifacts()[0].path, "out/picture.png");
    assert_eq!(result.summary(), "rendered a 2x1 picture");
    assert_eq!(envelope["summary"], "rendered a 2x1 picture");
    let receipt = envelope["receipt"].as_str().expect("a receipt");
    assert!(receipt.starts_with("rendered a 2x1 picture\n"), "{receipt}");
    assert!(receipt.contains("width_px: 2"), "{receipt}");
    assert!(receipt.contains("out/picture.png (image)"), "{receipt}");
    assert_eq!(
        envelope["content"],
        json!([
            { "type": "text", "text": receipt },
            { "type": "image", "mime_type": "image/png", "data": "iVBORw0KGgo=" },
        ])
    );
    assert_eq!(
        envelope["artifacts"],
        json!([{ "path": "out/picture.png", "role": "image" }])
    );
}

#[tokio::test]
async fn a_custom_receipt_replaces_the_default_one() {
    let (_, envelope) = dispatch(ToolCall::new("CustomReceipt", json!({}))).await;
    assert_valid(&envelope);
    assert_eq!(envelope["receipt"], "done; nothing to report");
    assert_eq!(envelope["content"][0]["text"], "done; nothing to report");
    assert_eq!(envelope["structured"]["internal_token"], "t0k3n");
}

#[tokio::test]
async fn a_deferred_output_gives_status_deferred_and_a_directive() {
    let (result, envelope) = dispatch(ToolCall::new("RequestApproval", json!({}))).await;
    assert_valid(&envelope);
    let mut expected = BTreeSet::from(ALWAYS);
    expected.insert("directive");
    assert_eq!(keys(&envelope), expected);
    assert_eq!(envelope["status"], "deferred");
    assert!(!result.is_success());
    assert_eq!(result.directive(), Some("the operator's approval of req-7"));
    assert_eq!(envelope["directive"], "the operator's approval of req-7");
    assert_eq!(envelope["summary"], "RequestApproval deferred");
    assert_eq!(envelope["structured"], json!({ "request_id": "req-7" }));
    assert_eq!(envelope["error"], Value::Null);
    let receipt = envelope["receipt"].as_str().expect("a receipt");
    assert!(
        receipt.contains("waiting for: the operator's approval of req-7"),
        "{receipt}"
    );
    assert!(receipt.contains("request_id: req-7"), "{receipt}");
}

/// A synchronous handler's result is put in its envelope where the handler returns:
/// a deferral is one as well there, by either entry point.
#[tokio::test]
async fn a_synchronous_deferred_output_is_deferred_by_either_entry_point() {
    let context = ToolContext::new(FamilyPolicy::all());
    let registry = Registry::global();
    let by_value = registry
        .dispatch(&context, ToolCall::new("RequestApprovalNow", json!({})))
        .await;
    let by_text = registry
        .dispatch_text(&context, "RequestApprovalNow", "{}")
        .await;
    for result in [by_value, by_text] {
        assert_eq!(
            result.status,
            holon_core::ToolStatus::Deferred,
            "{result:?}"
        );
        assert_eq!(result.tool_name, "RequestApprovalNow");
        assert_eq!(result.directive(), Some("the operator's approval of req-8"));
        assert_eq!(
            result.structured.as_deref(),
            Some(&json!({ "request_id": "req-8" }))
        );
    }
}

#[tokio::test]
async fn an_error_envelope_carries_the_typed_error() {
    let (result, envelope) =
        dispatch(ToolCall::new("SpendQuota", json!({})).with_call_id("c-1")).await;
    assert_valid(&envelope);
    let mut expected = BTreeSet::from(ALWAYS);
    expected.insert("call_id");
    assert_eq!(keys(&envelope), expected);
    assert_eq!(result.error_kind(), Some("quota_exhausted"));
    assert_eq!(envelope["status"], "error");
    assert_eq!(envelope["call_id"], "c-1");
    assert_eq!(envelope["structured"], Value::Null);
    assert_eq!(envelope["summary"], "SpendQuota failed: quota_exhausted");
    assert_eq!(
        envelope["error"],
        json!({
            "kind": "quota_exhausted",
            "message": "the daily quota is used up",
            "recovery_hint": "try again tomorrow",
            "retryable": true,
        })
    );
    let receipt = envelope["receipt"].as_str().expect("a receipt");
    // The summary names the kind; the receipt does not say it again.
    assert!(
        receipt.starts_with("SpendQuota failed: quota_exhausted\n"),
        "{receipt}"
    );
    assert!(!receipt.contains("error: quota_exhausted"), "{receipt}");
    for line in [
        "message: the daily quota is used up",
        "hint: try again tomorrow",
        "retryable: true",
    ] {
        assert!(receipt.contains(line), "{receipt}");
    }

    // A framework error names the field in the receipt as well, once.
    let (_, envelope) = dispatch(ToolCall::new("Echo", json!({ "text": "" }))).await;
    assert_valid(&envelope);
    let receipt = envelope["receipt"].as_str().expect("a receipt");
    assert!(
        receipt.starts_with("Echo failed: invalid_tool_input\n"),
        "{receipt}"
    );
    assert_eq!(receipt.matches("`text`").count(), 1, "{receipt}");
}

#[tokio::test]
async fn sync_and_async_handlers_both_work() {
    for tool in ["SquareNow", "SquareLater"] {
        let (result, envelope) = dispatch(ToolCall::new(tool, json!({ "n": -12 }))).await;
        assert!(result.is_success(), "{result:?}");
        assert_valid(&envelope);
        assert_eq!(envelope["tool_name"], tool);
        assert_eq!(envelope["structured"], json!({ "squared": 144 }));

        let (result, _) = dispatch(ToolCall::new(tool, json!({ "n": "twelve" }))).await;
        assert_eq!(result.error_kind(), Some("invalid_tool_input"));
    }
    // The downstream crate's async tool, too.
    let (result, _) = dispatch(ToolCall::new("RecordTodos", json!({ "todo_list": [] }))).await;
    assert!(result.is_success(), "{result:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_on_a_multi_threaded_runtime_are_independent() {
    let tasks: Vec<_> = (0..32)
        .map(|n| {
            tokio::spawn(async move {
                let tool = if n % 2 == 0 {
                    "SquareNow"
                } else {
                    "SquareLater"
                };
                let call = ToolCall::new(tool, json!({ "n": n })).with_call_id(format!("c{n}"));
                let (result, _) = dispatch(call).await;
                (n, result)
            })
        })
        .collect();
    for task in tasks {
        let (n, result) = task.await.expect("the task finishes");
        assert_eq!(result.call_id.as_deref(), Some(format!("c{n}").as_str()));
        assert_eq!(
            result.structured.as_deref(),
            Some(&json!({ "squared": n * n }))
        );
    }
}

#[test]
fn the_envelope_schema_lists_every_envelope_key() {
    let schema = ToolResult::envelope_schema();
    let properties: BTreeSet<&str> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected = BTreeSet::from(ALWAYS);
    expected.extend(["call_id", "directive", "deferral"]);
    assert_eq!(properties, expected);
}

/// Returns one block of every kind besides text.
#[holon_tool(family = CoreAgent)]
fn every_kind() -> ToolOutput<Nothing> {
    ToolOutput::new(Nothing {})
        .with_content(ContentBlock::Image {
            mime_type: "image/png".to_string(),
            data: "iVBORw0KGgo=".to_string(),
        })
        .with_content(ContentBlock::Audio {
            mime_type: "audio/wav".to_string(),
            data: "UklGRiQ=".to_string(),
        })
        .with_content(ContentBlock::ResourceText {
            uri: "test://notes".to_string(),
            mime_type: Some("text/plain".to_string()),
            text: "héllo".to_string(),
        })
        .with_content(ContentBlock::ResourceBlob {
            uri: "test://bytes".to_string(),
            mime_type: None,
            blob: "AAECAw".to_string(),
        })
        .with_content(ContentBlock::ResourceLink {
            uri: "file:///w/out.txt".to_string(),
            name: "out.txt".to_string(),
            description: None,
            mime_type: None,
        })
}

#[tokio::test]
async fn every_content_kind_is_in_the_envelope_and_has_a_receipt_line() {
    let (_, envelope) = dispatch(ToolCall::new("EveryKind", json!({}))).await;
    assert_valid(&envelope);
    let kinds: Vec<&str> = envelope["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|block| block["type"].as_str().expect("a type"))
        .collect();
    assert_eq!(
        kinds,
        [
            "text",
            "image",
            "audio",
            "resource_text",
            "resource_blob",
            "resource_link"
        ]
    );
    let receipt = envelope["receipt"].as_str().expect("a receipt");
    assert!(
        receipt.ends_with(
            "content:\n  - image (image/png, 8 bytes)\n  - audio (audio/wav, 5 bytes)\n  \
             - resource test://notes (5 characters of text)\n  - resource test://bytes (4 bytes)\n  \
             - link file:///w/out.txt"
        ),
        "{receipt}"
    );
}
