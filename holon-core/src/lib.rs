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
//! A tool crate's tools are in the registry of every program that *links* the crate.
//! rustc links a dependency only when the code names it, so a program names each tool
//! crate it uses nothing else from with [`link!`]: `holon_core::link!(the_tool_crate);`
//! at module level. It links the crate and makes the registry refuse to build when the
//! crate contributed no tool (see [`Registry::global`]).
//!
//! ## Attribute options
//!
//! `family = Ident` is required; every other option (`name`, `description`,
//! `stability`, `visibility`, `aliases`, `keywords`, `freeform`, `annotations`,
//! `keep_doc_sections`, `timeout_ms`, `task`, `example`, `example_file`, `crate`) is
//! described, with its default, in the one option table: `docs/macro.md`, section
//! "Options", in the repository.
//!
//! ## Handler rules
//!
//! A free `fn` or `async fn` without generics. Parameters are classified by the traits
//! their types implement: the arguments are the one parameter whose type implements
//! [`ToolArgs`], by value or by reference (`args: &MyArgs`); every other parameter
//! implements [`FromToolContext`]: `&ToolContext`, `&T` for a state the host put into
//! the context with [`ToolContext::with_state`] (missing, it is a `missing_context`
//! error at dispatch), the call's [`Cancellation`] and [`Progress`] handles, or a
//! handle of your own. A type that is neither is a compile
//! error at that type. Returns `Result<T, E>` with `E: Into<ToolError>` (`?` converts
//! `io::Error` and `serde_json::Error`; [`ToolError::internal`] wraps any other error),
//! or `T`, where `T` implements [`IntoToolOutput`]: any `Serialize + JsonSchema` type, or
//! [`ToolOutput<T>`] to add content blocks, artifacts, a custom receipt or a deferral.
//!
//! The description is the doc comment as a model should read it: each paragraph on one
//! line, lists kept, intra-doc links as their text, code blocks and the `# Examples`,
//! `# Panics` and `# Errors` sections left out unless `keep_doc_sections` is given.

/// The README's quickstart, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeQuickstart;

mod arguments;
mod asked;
mod build;
mod declared;
mod dispatch;
mod examples;
mod expected_crates;
mod family;
#[cfg(any(test, feature = "fuzz"))]
#[doc(hidden)]
pub mod fuzz;
mod grammar;
mod host;
mod input;
mod meta;
mod params;
mod registry;
mod result;
mod result_check;
pub mod schema;
mod schema_problems;
#[cfg(feature = "validate")]
mod schema_violations;
mod spec;
mod tool;

pub use asked::{AskedCalls, DecisionFuture};
pub use expected_crates::{ExpectedToolCrate, expected_tool_crates};
pub use family::{FamilyPolicy, ToolCapabilityFamily, UnknownFamily};
pub use holon_tool_macros::{ClosedInput, ToolArgs, holon_tool};
pub use host::cancel::Cancellation;
pub use host::client::{
    ClientCapability, ClientFuture, ClientLog, ClientPeer, Elicitation, ElicitationRequest,
    ElicitationResponse, LogLevel, LogMessage, Role, Root, Roots, RootsRequest, Sampling,
    SamplingMessage, SamplingRequest, SamplingResponse, TaskEscalation,
};
pub use host::context::{
    CallGate, Decision, DispatchObserver, Execution, GateAnswer, GatedTool, ToolCall, ToolContext,
};
pub use host::extract::FromToolContext;
pub use host::progress::{Progress, ProgressLog, ProgressReport, ProgressSink};
pub use host::request::{Headers, Principal, ProtocolVersion, RequestMeta, SessionId};
pub use input::closed::ClosedInput;
pub use input::depth::MAX_INPUT_DEPTH;
pub use input::hints::closest;
pub use input::json_kind::json_kind;
pub use input::{JsonArguments, ToolInput};
pub use meta::{
    DefinedAt, FreeformGrammarDecl, GrammarSyntax, Stability, TaskSupport, ToolAnnotations,
    ToolMeta, Visibility,
};
pub use registry::{Registry, RegistryError};
pub use result::error::{ToolError, ToolErrorKind, error_chain};
pub use result::output::{IntoToolOutput, ToolOutput};
pub use result::structured::Structured;
pub use result::{
    ApprovalRequired, Artifact, ContentBlock, Deferral, ResultExtras, ToolResult, ToolStatus,
};
pub use spec::{FreeformGrammar, ToolDefinition, ToolSpec};
/// The token behind a [`Cancellation`], re-exported so that a host needs no
/// `tokio-util` dependency of its own.
pub use tokio_util::sync::CancellationToken;
pub use tool::{CallFuture, FromFreeform, Tool, ToolArgs, ToolRegistration, registered_tools};

/// Checks a freeform grammar the way the registry does.
pub use grammar::check as check_grammar;

/// What a tool author needs in scope: `use holon_core::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Cancellation, ClosedInput, ContentBlock, FromFreeform, Progress, ToolArgs, ToolContext,
        ToolError, ToolErrorKind, ToolOutput, ToolResult, holon_tool,
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
    pub use crate::declared::DeclaredTool;
    pub use crate::expected_crates::ExpectedToolCrate;
    pub use crate::params::{
        ArgumentsInfo, AtMostOneArguments, Probe, ToolHandlerParameter, ViaArgumentsByRef,
        ViaArgumentsByValue, ViaExtractor, ViaPlainValue, ViaUnresolved, at_most_one_arguments,
    };
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    use schemars::{Schema, SchemaGenerator};

    use crate::{ToolError, ToolOutput};

    // Each `assert_*` helper is the one place where the code `#[holon_tool]` generates
    // requires a bound of a user's type; the macro spans the call at that type in the
    // handler's signature. The helpers return what the tool needs of the type as plain
    // function pointers, so the rest of the generated code requires no bound and a
    // missing derive is reported once, at the user's token, not once per use.
    //
    // Where a bound has several parts (`Serialize + JsonSchema`, `Send + Sync`), rustc
    // would report each unmet part as its own error. The check traits below avoid that:
    // each has a second impl, for the `Unchecked` marker, that no type can satisfy. With
    // two candidate impls rustc must pick one, and when neither applies it reports the
    // check trait itself, once, with its own message.

    /// Marks the impl of a check trait that applies when the bound holds.
    pub enum Checked {}

    /// Marks the impl of a check trait that never applies (see [`Unsatisfiable`]).
    pub enum Unchecked {}

    mod sealed {
        pub trait Sealed {}
    }

    /// Implemented by no type (it is sealed): the bound of the `Unchecked` impls.
    pub trait Unsatisfiable: sealed::Sealed {}

    const NEVER: &str = "an `Unchecked` impl is never selected: `Unsatisfiable` has no impl";

    // A success type is checked twice, for `Serialize` and for `JsonSchema`, so that
    // the error says which one is missing. Each trait has an impl for a plain type
    // and one for a `ToolOutput<T>` (which is neither itself).

    /// Marks the impl for a `ToolOutput<T>`.
    pub enum Wrapped {}

    /// A handler's success type must serialize (itself, or the `T` of a `ToolOutput<T>`).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's result: it does not implement `Serialize`",
        label = "not `Serialize`",
        note = "add `Serialize` to the result type's derives: `#[derive(Serialize, JsonSchema)]`; the structured result is its JSON (for a `ToolOutput<T>`, derive it on `T`)"
    )]
    pub trait ToolResultSerialize<M>: Sized {
        /// The output of a handler that returned `self`.
        fn output(self) -> Result<ToolOutput, ToolError>;
    }

    impl<T: serde::Serialize> ToolResultSerialize<Checked> for T {
        fn output(self) -> Result<ToolOutput, ToolError> {
            crate::result::output::plain_output(&self)
        }
    }

    impl<T: serde::Serialize> ToolResultSerialize<Wrapped> for ToolOutput<T> {
        fn output(self) -> Result<ToolOutput, ToolError> {
            crate::result::output::wrapped_output(self)
        }
    }

    /// A handler's success type must have a schema (itself, or the `T` of a `ToolOutput<T>`).
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's result: it does not implement `JsonSchema`",
        label = "not `JsonSchema`",
        note = "add `JsonSchema` to the result type's derives: `#[derive(Serialize, JsonSchema)]`; the tool's result schema is derived from it (for a `ToolOutput<T>`, derive it on `T`)"
    )]
    pub trait ToolResultSchema<M> {
        /// The result schema.
        fn schema(generator: &mut SchemaGenerator) -> Schema;
    }

    impl<T: schemars::JsonSchema> ToolResultSchema<Checked> for T {
        fn schema(generator: &mut SchemaGenerator) -> Schema {
            crate::result::output::result_schema::<T>(generator)
        }
    }

    impl<T: schemars::JsonSchema> ToolResultSchema<Wrapped> for ToolOutput<T> {
        fn schema(generator: &mut SchemaGenerator) -> Schema {
            crate::result::output::result_schema::<T>(generator)
        }
    }

    /// A handler's error type: `ToolError`, or one that converts into it.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's error: it must convert into `ToolError`",
        label = "`ToolError` does not implement `From<{Self}>`",
        note = "return `Result<T, ToolError>` and convert other errors with `.map_err(...)`, or implement `From<{Self}>` for `ToolError` if `{Self}` is your own type; an `anyhow::Error` or a `Box<dyn Error>` converts with `.map_err(|e| ToolError::internal(&*e))`"
    )]
    pub trait ToolErrorType<M>: Sized {
        /// Converts the error.
        fn into_tool_error(self) -> ToolError;
    }

    impl<E: Into<ToolError>> ToolErrorType<Checked> for E {
        fn into_tool_error(self) -> ToolError {
            self.into()
        }
    }

    impl<E: Unsatisfiable> ToolErrorType<Unchecked> for E {
        fn into_tool_error(self) -> ToolError {
            unreachable!("{NEVER}")
        }
    }
}
