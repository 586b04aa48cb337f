//! Each call is a `tracing` span named and attributed as OpenTelemetry's GenAI
//! conventions name a tool execution (holon-core's `tracing` feature).

use std::sync::{Arc, Mutex};

use holon_core::prelude::*;
use holon_core::{FamilyPolicy, Registry, ToolCall, ToolContext};
use holon_downstream_tools as _;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// A span's name and its fields (name, value), in the order recorded.
type SpanFields = (String, Vec<(String, String)>);

/// Every span's name and fields, as strings.
#[derive(Default, Clone)]
struct Spans(Arc<Mutex<Vec<SpanFields>>>);

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .push((field.name().to_string(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_string(), value.to_string()));
    }
}

impl Subscriber for Spans {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut spans = self.0.lock().unwrap();
        let mut fields = Vec::new();
        span.record(&mut Fields(&mut fields));
        spans.push((span.metadata().name().to_string(), fields));
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.0.lock().unwrap();
        let index = usize::try_from(span.into_u64()).unwrap() - 1;
        values.record(&mut Fields(&mut spans[index].1));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Halves an even number.
#[holon_tool(family = CoreAgent)]
fn span_half(args: HalfArgs) -> Result<i64, ToolError> {
    Ok(args.n / 2)
}

/// The number to halve.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct HalfArgs {
    /// The number.
    n: i64,
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .rev()
        .find(|(own, _)| own == name)
        .map(|(_, value)| value.as_str())
}

#[test]
fn a_call_is_an_execute_tool_span_with_the_tool_its_call_id_and_its_error_type() {
    let spans = Spans::default();
    let context = ToolContext::new(FamilyPolicy::all());
    tracing::subscriber::with_default(spans.clone(), || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let call = ToolCall::new("SpanHalf", json!({ "n": 4 })).with_call_id("call-1");
            Registry::global().dispatch(&context, call).await;
            Registry::global()
                .dispatch_text(&context, "SpanHalf", r#"{"n": "x"}"#)
                .await;
        });
    });
    let spans = spans.0.lock().unwrap();
    let calls: Vec<_> = spans
        .iter()
        .filter(|(name, _)| name == "execute_tool")
        .collect();
    assert_eq!(calls.len(), 2, "{:?}", *spans);
    let ok = &calls[0].1;
    assert_eq!(field(ok, "otel.name"), Some("execute_tool SpanHalf"));
    assert_eq!(field(ok, "gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(field(ok, "gen_ai.tool.name"), Some("SpanHalf"));
    assert_eq!(field(ok, "gen_ai.tool.call.id"), Some("call-1"));
    assert_eq!(field(ok, "error.type"), None);
    let failed = &calls[1].1;
    assert_eq!(field(failed, "gen_ai.tool.call.id"), None);
    assert_eq!(field(failed, "error.type"), Some("invalid_tool_input"));
    assert_eq!(field(failed, "otel.status_code"), Some("ERROR"));
}
