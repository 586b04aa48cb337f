//! # holon-core
//!
//! The runtime-neutral contract of the holon tool framework: a tool author writes one
//! argument type and one handler, puts `#[holon_tool(family = ...)]` on the handler,
//! and gets the rest from here: the model-facing [`ToolSpec`], compile-time checks, a
//! link-time registration the [`Registry`] finds on its own, permission gating by
//! [`ToolCapabilityFamily`], typed argument parsing with precise errors, and the
//! canonical [`ToolResult`] envelope.
//!
//! ```
//! use holon_core::prelude::*;
//! use holon_core::{FamilyPolicy, Registry, ToolCall};
//!
//! /// Arguments of Greet.
//! #[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
//! #[serde(deny_unknown_fields)]
//! pub struct GreetArgs {
//!     /// Who to greet.
//!     #[schemars(length(min = 1))]
//!     pub name: String,
//! }
//!
//! #[derive(Serialize, JsonSchema)]
//! pub struct Greeting {
//!     pub text: String,
//! }
//!
//! /// Greets someone by name.
//! #[holon_tool(family = CoreAgent)]
//! fn greet(args: GreetArgs) -> Result<Greeting, ToolError> {
//!     Ok(Greeting { text: format!("hello, {}", args.name) })
//! }
//!
//! # futures_lite_block_on(async {
//! let context = ToolContext::new(FamilyPolicy::all());
//! let call = ToolCall::new("Greet", serde_json::json!({ "name": "Ada" }));
//! let result = Registry::global().dispatch(&context, call).await;
//! assert_eq!(result.structured.unwrap()["text"], "hello, Ada");
//! # });
//! # fn futures_lite_block_on(f: impl std::future::Future<Output = ()>) {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! ```
//!
//! ## Attribute options
//!
//! | option | meaning | default |
//! |---|---|---|
//! | `family = Ident` | capability family (`CoreAgent`, `LocalEnvironment`, `AuthorityExpanding`, `Web`, `AgentCreation`, `ExternalTrigger`) | required |
//! | `name = "WaitFor"` | model-facing name, `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` | PascalCase of the fn name |
//! | `description = "..."` or `include_str!("...")` | model-visible guidance | the doc comment |
//! | `stability = stable \| experimental \| deprecated` | label in the inventory | `stable` |
//! | `visibility = model \| runtime` | `runtime`: dispatchable by the runtime only | `model` |
//! | `aliases = ["Old"]` | legacy names the dispatcher accepts, never advertised | none |
//! | `freeform(syntax = "lark" \| "regex", definition = ...)` | the tool also accepts raw text | none |
//! | `annotations(read_only, destructive, idempotent, open_world)` | behaviour hints (MCP) | MCP defaults |
//!
//! ## Handler rules
//!
//! A free `fn` or `async fn` without generics. At most one parameter by value: the
//! arguments, whose type implements [`ToolArgs`]. Every other parameter is a shared
//! reference: `&ToolContext`, or `&T` for a state the host put into the context with
//! [`ToolContext::with_state`] (missing, it is a `missing_context` error at dispatch).
//! Returns `Result<T, E>` with `E: Into<ToolError>`, or `T`, where `T` implements
//! [`IntoToolOutput`]: any `Serialize + JsonSchema` type, or [`ToolOutput<T>`] to add
//! content blocks, artifacts, a custom receipt or a deferral.

mod arguments;
mod catalog;
mod context;
mod dispatch;
mod error;
mod family;
mod grammar;
mod hints;
mod meta;
mod output;
mod receipt;
mod registry;
mod result;
pub mod schema;
mod spec;
mod tool;

pub use catalog::{
    INVENTORY_FILE_NAME, INVENTORY_VERSION, InventoryDrift, check_inventory, inventory,
    inventory_text,
};
pub use context::{DispatchObserver, Execution, ToolCall, ToolContext, ToolInput};
pub use dispatch::MAX_INPUT_DEPTH;
pub use error::{ToolError, ToolErrorKind};
pub use family::{FamilyPolicy, ToolCapabilityFamily, UnknownFamily};
pub use hints::closest;
pub use holon_tool_macros::{ToolArgs, holon_tool};
pub use meta::{
    DefinedAt, FreeformGrammarDecl, GrammarSyntax, Stability, ToolAnnotations, ToolMeta, Visibility,
};
pub use output::{IntoToolOutput, ToolOutput};
pub use registry::{Registry, RegistryError};
pub use result::{Artifact, ContentBlock, ToolResult, ToolStatus};
pub use spec::{FreeformGrammar, ToolDefinition, ToolSpec};
pub use tool::{CallFuture, FromFreeform, Tool, ToolArgs, ToolRegistration, registered_tools};

/// Checks a freeform grammar the way the registry does.
pub use grammar::check as check_grammar;

/// What a tool author needs in scope: `use holon_core::prelude::*;`.
pub mod prelude {
    pub use crate::{
        ContentBlock, FromFreeform, ToolArgs, ToolContext, ToolError, ToolErrorKind, ToolOutput,
        ToolResult, holon_tool,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
    // `#[derive(JsonSchema)]` names `schemars::...`; having the crate in scope through
    // the prelude means a tool crate does not depend on schemars itself.
    #[doc(hidden)]
    pub use schemars;
}

/// Items the generated code names. Not a public API: it may change at any time.
#[doc(hidden)]
pub mod __private {
    pub use crate::arguments::{
        argument_fields, arguments_schema, empty_arguments_schema, parse_arguments,
        parse_freeform_arguments, parse_no_arguments,
    };
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    use crate::{FromFreeform, IntoToolOutput, ToolArgs};

    /// The handler's argument type must implement `ToolArgs`.
    pub const fn assert_tool_args<T: ToolArgs>() {}

    /// A freeform tool's argument type must implement `FromFreeform`.
    pub const fn assert_freeform_args<T: FromFreeform>() {}

    /// A state parameter's type must be shareable across threads.
    pub const fn assert_state<T: Send + Sync + 'static>() {}

    /// The handler's success type must be a tool result.
    pub const fn assert_tool_result<T: IntoToolOutput>() {}
}
