//! The wire form of a [`ToolResult`]: the envelope every call returns, with the
//! receipt rendered into it, and that envelope's JSON Schema.

use schemars::JsonSchema;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::result::error::ToolError;
use crate::result::structured::Structured;
use crate::result::{Artifact, ContentBlock, Deferral, ToolResult, ToolStatus};

impl ToolResult {
    /// JSON Schema of the envelope this type serializes to.
    pub fn envelope_schema() -> Value {
        let mut generator = crate::schema::result_generator();
        crate::schema::finish(generator.root_schema_for::<Envelope<'static>>())
    }
}

/// The result envelope of every tool call.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "ToolResultEnvelope")]
struct Envelope<'a> {
    /// The tool's canonical name.
    tool_name: &'a str,
    /// The caller's id for this call.
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<&'a str>,
    /// How the call ended.
    status: ToolStatus,
    /// One-line summary.
    summary: String,
    /// The human-readable receipt.
    receipt: String,
    /// Content blocks: the receipt as text first, then the tool's own blocks.
    content: Vec<ContentBlock>,
    /// The typed result as JSON (null on error).
    #[schemars(with = "Option<Value>")]
    structured: Option<&'a Structured>,
    /// Files referenced by path.
    artifacts: &'a [Artifact],
    /// The error, when status is `error`.
    error: Option<&'a ToolError>,
    /// What the runtime waits for, when status is `deferred`.
    #[serde(skip_serializing_if = "Option::is_none")]
    directive: Option<&'a str>,
    /// Why the call is deferred, as data (`kind: approval_required`, ...), when
    /// status is `deferred` and the reason has a form.
    #[serde(skip_serializing_if = "Option::is_none")]
    deferral: Option<&'a Deferral>,
}

impl Serialize for ToolResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let receipt = self.receipt();
        let mut content = Vec::with_capacity(self.content().len() + 1);
        content.push(ContentBlock::Text {
            text: receipt.clone(),
        });
        content.extend(self.content().iter().cloned());
        Envelope {
            tool_name: &self.tool_name,
            call_id: self.call_id.as_deref(),
            status: self.status,
            summary: self.summary(),
            receipt,
            content,
            structured: self.structured.as_ref(),
            artifacts: self.artifacts(),
            error: self.error.as_deref(),
            directive: self.directive(),
            deferral: self.deferral(),
        }
        .serialize(serializer)
    }
}
