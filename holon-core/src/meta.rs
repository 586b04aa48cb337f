//! The static description of a tool, as the `#[holon_tool]` macro writes it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::family::ToolCapabilityFamily;

/// Compatibility label of a tool in the inventory.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Stability {
    /// Covered by compatibility: its name and fields change only with a deprecation.
    Stable,
    /// May change or go away without notice.
    Experimental,
    /// Still served, but slated for removal; prefer its replacement.
    Deprecated,
}

impl Stability {
    /// The snake_case wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Stable => "stable",
            Self::Experimental => "experimental",
            Self::Deprecated => "deprecated",
        }
    }
}

/// Who may see a tool.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Advertised to models and dispatchable.
    Model,
    /// Dispatchable by the runtime, never advertised to a model (absent from the
    /// inventory and every export).
    Runtime,
}

impl Visibility {
    /// The snake_case wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Runtime => "runtime",
        }
    }
}

/// The language a freeform grammar is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrammarSyntax {
    /// A Lark grammar (EBNF-like rules and terminals, `start` is the entry rule).
    Lark,
    /// A regular expression the whole input must match.
    Regex,
}

impl GrammarSyntax {
    /// The wire name, as model APIs spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Lark => "lark",
            Self::Regex => "regex",
        }
    }
}

/// A freeform grammar as declared in `freeform(syntax = ..., definition = ...)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreeformGrammarDecl {
    /// The grammar's language.
    pub syntax: GrammarSyntax,
    /// The grammar text.
    pub definition: &'static str,
}

/// Behaviour hints exported to MCP. `None` leaves the protocol's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ToolAnnotations {
    /// The tool does not change its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// The tool reaches entities outside the runtime (the network, other systems).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is set.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Whether a call of the tool may run as a task (the MCP tasks extension,
/// `io.modelcontextprotocol/tasks`): the server answers with a task handle at once,
/// and the client polls the task for the result. Declared with `task = optional` or
/// `task = required` in `#[holon_tool]`; exported as MCP's `execution.taskSupport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskSupport {
    /// Every call runs to its end within the request (the default).
    #[default]
    Forbidden,
    /// A call runs as a task when the client supports tasks, and within the
    /// request otherwise.
    Optional,
    /// A call runs as a task only: a client that does not support tasks is refused.
    Required,
}

impl TaskSupport {
    /// The wire name, as MCP's `execution.taskSupport` spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }

    /// Whether calls never run as tasks (the default, left out of exports).
    pub fn is_forbidden(&self) -> bool {
        *self == Self::Forbidden
    }
}

/// Where a tool was declared, for error messages that name definition sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct DefinedAt {
    /// `module_path!()` of the handler.
    pub module: &'static str,
    /// `file!()` of the handler.
    pub file: &'static str,
    /// `line!()` of the handler's name.
    pub line: u32,
}

impl std::fmt::Display for DefinedAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{} ({})", self.file, self.line, self.module)
    }
}

/// Everything about a tool that is known at compile time. The `#[holon_tool]` macro
/// writes one as a `static`; a hand-written [`Tool`](crate::Tool) can too.
#[derive(Debug, Clone, Copy)]
pub struct ToolMeta {
    /// Model-facing name.
    pub name: &'static str,
    /// Capability family.
    pub family: ToolCapabilityFamily,
    /// Model-visible description.
    pub description: &'static str,
    /// Compatibility label.
    pub stability: Stability,
    /// Model-facing or runtime-only.
    pub visibility: Visibility,
    /// Legacy names the dispatcher still accepts; never advertised.
    pub aliases: &'static [&'static str],
    /// The freeform grammar, when the tool also accepts raw text.
    pub freeform: Option<FreeformGrammarDecl>,
    /// Behaviour hints.
    pub annotations: ToolAnnotations,
    /// Whether a call may run as an MCP task.
    pub task: TaskSupport,
    /// Words a user may search for the tool by that its description does not use
    /// (`keywords = [...]`): weighed by tool search, never shown to a model.
    pub keywords: &'static [&'static str],
    /// Where the tool was declared.
    pub defined_at: DefinedAt,
}
