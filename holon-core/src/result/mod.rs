//! The canonical result envelope of a tool call.

pub(crate) mod envelope;
pub(crate) mod error;
pub(crate) mod output;
pub(crate) mod receipt;
pub(crate) mod structured;

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::result::error::ToolError;
use crate::result::structured::Structured;

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// The tool did its work; `structured` holds its result.
    Success,
    /// The call failed; `error` says why and how to fix it.
    Error,
    /// The tool accepted the call but its effect waits for something; `directive` says
    /// what the runtime waits for.
    Deferred,
}

impl ToolStatus {
    /// The snake_case wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Error => "error",
            Self::Deferred => "deferred",
        }
    }
}

/// A typed block of content returned to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// MIME type such as `image/png`.
        mime_type: String,
        /// Base64 of the image bytes.
        data: String,
    },
    /// Audio, base64-encoded.
    Audio {
        /// MIME type such as `audio/wav`.
        mime_type: String,
        /// Base64 of the audio bytes.
        data: String,
    },
    /// A resource whose contents are text, embedded in the result.
    ResourceText {
        /// The resource's URI.
        uri: String,
        /// MIME type such as `text/plain`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The contents.
        text: String,
    },
    /// A resource whose contents are bytes, embedded in the result.
    ResourceBlob {
        /// The resource's URI.
        uri: String,
        /// MIME type such as `application/pdf`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 of the contents.
        blob: String,
    },
    /// A reference to a resource the client may read, by URI (artifacts become these).
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// A name for it, such as the file name.
        name: String,
        /// What it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// MIME type, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
    /// A tool call the tool asks the runtime to make.
    ToolUse {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Tool input.
        input: Value,
    },
}

/// A file the call produced or refers to, by path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Artifact {
    /// Path of the file.
    pub path: String,
    /// What the file is, such as `stdout`, `image` or `patch`.
    pub role: String,
}

/// What a call returned besides its structured result: content blocks, artifacts, a
/// summary, a receipt of its own, a deferral. Most calls return none of these, so a
/// [`ToolResult`] and a [`ToolOutput`](crate::ToolOutput) keep them out of line, in
/// one box that is absent when all are empty: a call's result stays small enough to
/// move cheaply.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultExtras {
    /// A one-line summary; `None` renders a default from the status.
    pub summary: Option<String>,
    /// Content blocks besides the receipt (images, tool uses).
    pub content: Vec<ContentBlock>,
    /// Files referenced by path.
    pub artifacts: Vec<Artifact>,
    /// A receipt the tool wrote itself; `None` renders the default receipt.
    pub receipt: Option<String>,
    /// When set, the call is `deferred` and this says what the runtime waits for.
    pub directive: Option<String>,
    /// Why a deferred call waits, as data: `approval_required` when the host's policy
    /// asks the operator (see [`CallGate`](crate::CallGate)).
    pub deferral: Option<Deferral>,
}

/// Why a call is deferred, as data the caller can act on; tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Deferral {
    /// The host's policy asks the operator before the call runs: nothing has run,
    /// and the call runs once the operator approves it.
    ApprovalRequired(ApprovalRequired),
}

/// Why a call was deferred for approval: what the envelope's `deferral` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalRequired {
    /// The id the operator approves or denies.
    pub approval_id: String,
    /// The tool that will run.
    pub tool: String,
    /// The arguments it will run with.
    pub arguments: Value,
    /// SHA-256 (hex) of the arguments' canonical form.
    pub arguments_sha256: String,
    /// Who the call is for.
    pub principal: String,
    /// The caller's id, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// Why the policy asks.
    pub reason: String,
    /// Until when the call can be approved, ms since the Unix epoch.
    pub expires_at_ms: i64,
}

impl ResultExtras {
    /// The extras kept in `slot`, boxed there empty on first use.
    pub(crate) fn in_slot(slot: &mut Option<Box<Self>>) -> &mut Self {
        slot.get_or_insert_with(Box::default)
    }
}

/// The result of one call, as the dispatcher returns it. Serializes to the canonical
/// envelope (see [`ToolResult::envelope_schema`]) and renders a human-readable receipt.
///
/// Read the rarely set parts through [`ToolResult::content`], [`ToolResult::artifacts`],
/// [`ToolResult::directive`], [`ToolResult::summary`] and [`ToolResult::receipt`]; set
/// them through [`ToolResult::extras_mut`].
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The tool's canonical name (also when it was called by an alias). Borrowed from
    /// the tool's static facts when the registry dispatched it, so that a call counts
    /// no reference: an `Arc`'s count is one cache line that every thread dispatching
    /// the tool writes twice a call.
    pub tool_name: Cow<'static, str>,
    /// The caller's id for this call, if it gave one.
    pub call_id: Option<String>,
    /// How the call ended.
    pub status: ToolStatus,
    /// The typed result as JSON; it validates against the tool's result schema.
    pub structured: Option<Structured>,
    /// The error, when `status` is `error` (boxed: most calls succeed).
    pub error: Option<Box<ToolError>>,
    /// Content blocks, artifacts, the tool's own summary and receipt, and the
    /// deferral's directive; `None` when the call returned none of them.
    pub extras: Option<Box<ResultExtras>>,
}

impl ToolResult {
    /// An error result for `tool_name`. The error is cut to a bounded size (message
    /// and hint 4 KiB, field 1 KiB, details 64 KiB), whatever input it quotes.
    pub fn from_error(tool_name: impl Into<Cow<'static, str>>, error: ToolError) -> Self {
        Self {
            tool_name: tool_name.into(),
            call_id: None,
            status: ToolStatus::Error,
            structured: None,
            error: Some(Box::new(error.bounded())),
            extras: None,
        }
    }

    /// The envelope of `tool_name`'s output: `deferred` when the output has a
    /// directive.
    pub(crate) fn of_output(tool_name: &'static str, output: crate::ToolOutput) -> Self {
        let status = match output.extras.as_deref() {
            Some(extras) if extras.directive.is_some() => ToolStatus::Deferred,
            _ => ToolStatus::Success,
        };
        Self {
            tool_name: Cow::Borrowed(tool_name),
            call_id: None,
            status,
            structured: Some(output.value),
            error: None,
            extras: output.extras,
        }
    }

    /// A `deferred` result of `tool_name` with nothing set yet (a
    /// [`CallGate`](crate::CallGate)'s, for a call it asks about; the gate sets the
    /// directive and the [`Deferral`]).
    pub fn deferred(tool_name: &'static str) -> Self {
        Self {
            tool_name: Cow::Borrowed(tool_name),
            call_id: None,
            status: ToolStatus::Deferred,
            structured: None,
            error: None,
            extras: None,
        }
    }

    /// Why the call is deferred, as data, when it says.
    pub fn deferral(&self) -> Option<&Deferral> {
        self.extras.as_deref()?.deferral.as_ref()
    }

    /// Content blocks the tool returned besides its receipt.
    pub fn content(&self) -> &[ContentBlock] {
        self.extras.as_deref().map_or(&[], |extras| &extras.content)
    }

    /// Files the result refers to by path.
    pub fn artifacts(&self) -> &[Artifact] {
        self.extras
            .as_deref()
            .map_or(&[], |extras| &extras.artifacts)
    }

    /// What the runtime waits for, when the call is deferred.
    pub fn directive(&self) -> Option<&str> {
        self.extras.as_deref()?.directive.as_deref()
    }

    /// The extras, to set one (created empty when there were none).
    pub fn extras_mut(&mut self) -> &mut ResultExtras {
        ResultExtras::in_slot(&mut self.extras)
    }

    /// Whether the call succeeded.
    pub fn is_success(&self) -> bool {
        self.status == ToolStatus::Success
    }

    /// The error kind, if the call failed.
    pub fn error_kind(&self) -> Option<&str> {
        self.error.as_ref().map(|error| error.kind.as_str())
    }

    /// The one-line summary: the tool's own, or one made from the status.
    pub fn summary(&self) -> String {
        let mut summary = String::new();
        self.write_summary(&mut summary);
        summary
    }

    /// Whether the tool set a summary of its own (the default one names the status
    /// and, for an error, its kind).
    pub(crate) fn has_own_summary(&self) -> bool {
        self.extras
            .as_deref()
            .is_some_and(|extras| extras.summary.is_some())
    }

    /// Appends [`summary`](Self::summary) to `out`, piece by piece: a receipt is
    /// rendered per call, and `format!` costs several times the pushes.
    pub(crate) fn write_summary(&self, out: &mut String) {
        if let Some(summary) = self.extras.as_deref().and_then(|e| e.summary.as_ref()) {
            out.push_str(summary);
            return;
        }
        out.push_str(&self.tool_name);
        match (&self.status, self.error.as_deref()) {
            (ToolStatus::Error, Some(error)) => {
                out.push_str(" failed: ");
                out.push_str(error.kind.as_str());
            }
            (ToolStatus::Deferred, _) => out.push_str(" deferred"),
            _ => out.push_str(" succeeded"),
        }
    }
}
