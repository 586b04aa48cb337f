//! The canonical result envelope of a tool call.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ToolError;
use crate::structured::Structured;

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

/// The result of one call, as the dispatcher returns it. Serializes to the canonical
/// envelope (see [`ToolResult::envelope_schema`]) and renders a human-readable receipt.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The tool's canonical name (also when it was called by an alias).
    pub tool_name: Arc<str>,
    /// The caller's id for this call, if it gave one.
    pub call_id: Option<String>,
    /// How the call ended.
    pub status: ToolStatus,
    /// A one-line summary; `None` renders a default from the status.
    pub summary: Option<String>,
    /// Content blocks the tool returned besides its receipt (images, tool uses).
    pub content: Vec<ContentBlock>,
    /// The typed result as JSON; it validates against the tool's result schema.
    pub structured: Option<Structured>,
    /// Files referenced by path.
    pub artifacts: Vec<Artifact>,
    /// The error, when `status` is `error`.
    pub error: Option<ToolError>,
    /// What the runtime waits for, when `status` is `deferred`.
    pub directive: Option<String>,
    /// A receipt the tool wrote itself; `None` renders the default receipt.
    pub receipt: Option<String>,
}

impl ToolResult {
    /// An error result for `tool_name`.
    pub fn from_error(tool_name: Arc<str>, error: ToolError) -> Self {
        Self {
            tool_name,
            call_id: None,
            status: ToolStatus::Error,
            summary: None,
            content: Vec::new(),
            structured: None,
            artifacts: Vec::new(),
            error: Some(error),
            directive: None,
            receipt: None,
        }
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
        if let Some(summary) = &self.summary {
            return summary.clone();
        }
        match (&self.status, &self.error) {
            (ToolStatus::Error, Some(error)) => {
                format!("{} failed: {}", self.tool_name, error.kind)
            }
            (ToolStatus::Deferred, _) => format!("{} deferred", self.tool_name),
            _ => format!("{} succeeded", self.tool_name),
        }
    }
}
