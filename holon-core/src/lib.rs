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
//! | `crate = path` | where `holon-core` is, for a crate that reaches it through a facade re-exporting it (`#[tool_args(crate = "path")]` on the arguments) | the name in the calling crate's manifest, renamed or not |
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

/// The README's quickstart, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeQuickstart;

mod arguments;
mod context;
mod dispatch;
mod envelope;
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
mod value_de;

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

    use schemars::{Schema, SchemaGenerator};

    use crate::{
        FromFreeform, IntoToolOutput, ToolArgs, ToolContext, ToolError, ToolInput, ToolOutput,
    };

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

    fn unreachable_schema(_: &mut SchemaGenerator) -> Schema {
        unreachable!("{NEVER}")
    }

    fn unreachable_convert<T, R>(_: T) -> R {
        unreachable!("{NEVER}")
    }

    fn unreachable_state<T>(_: &ToolContext) -> Result<&T, ToolError> {
        unreachable!("{NEVER}")
    }

    /// What a tool needs of its argument type.
    pub struct ArgumentsFns<T> {
        /// The wire names of the fields.
        pub fields: &'static [&'static str],
        /// The input schema.
        pub schema: fn(&mut SchemaGenerator) -> Schema,
        /// Parses a JSON input.
        pub parse: fn(ToolInput) -> Result<T, ToolError>,
    }

    /// The handler's argument type must implement `ToolArgs`.
    pub const fn assert_tool_args<T: ToolArgs>() -> ArgumentsFns<T> {
        ArgumentsFns {
            fields: T::FIELDS,
            schema: crate::arguments::arguments_schema::<T>,
            parse: crate::arguments::parse_arguments::<T>,
        }
    }

    /// Builds the arguments from the raw text of a freeform call.
    pub type FreeformFn<T> = fn(String) -> Result<T, ToolError>;

    /// A freeform tool's argument type must implement `FromFreeform`.
    pub const fn assert_freeform_args<T: FromFreeform>() -> FreeformFn<T> {
        T::from_freeform
    }

    /// Reads a state parameter out of the context.
    pub type StateFn<T> = for<'a> fn(&'a ToolContext) -> Result<&'a T, ToolError>;

    /// A state parameter's type: shared across the threads that dispatch calls.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's state: it must be `Send + Sync + 'static`",
        label = "a state parameter's type must be `Send + Sync`",
        note = "the dispatcher shares the context's states across threads; wrap interior mutability in a `Mutex` or an atomic"
    )]
    pub trait ToolStateType<M> {
        /// Reads the state out of the context.
        const STATE: StateFn<Self>;
    }

    impl<T: Send + Sync + 'static> ToolStateType<Checked> for T {
        const STATE: StateFn<T> = state_or_context::<T>;
    }

    /// The macro recognises `&ToolContext` by its name; under another name (`use
    /// holon_core::ToolContext as Ctx;`) it arrives here, and gets the context itself.
    fn state_or_context<T: Send + Sync + 'static>(context: &ToolContext) -> Result<&T, ToolError> {
        match (context as &dyn std::any::Any).downcast_ref::<T>() {
            Some(context) => Ok(context),
            None => context.state::<T>(),
        }
    }

    impl<T: Unsatisfiable> ToolStateType<Unchecked> for T {
        const STATE: StateFn<T> = unreachable_state::<T>;
    }

    /// A state parameter's type must be shareable across threads.
    pub const fn assert_state<T: ToolStateType<M>, M>() -> StateFn<T> {
        T::STATE
    }

    /// What a tool needs of its success type.
    pub struct ResultFns<T> {
        /// The result schema.
        pub schema: fn(&mut SchemaGenerator) -> Schema,
        /// Converts the handler's success value into the erased output.
        pub convert: fn(T) -> Result<ToolOutput, ToolError>,
    }

    /// A handler's success type: `Serialize + JsonSchema`, or a `ToolOutput` of one.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's result: a result is a `Serialize + JsonSchema` type, or a `ToolOutput` of one",
        label = "not `Serialize + JsonSchema`",
        note = "derive them on the result type: `#[derive(Serialize, JsonSchema)]`; the tool's result schema is derived from it"
    )]
    pub trait ToolResultType<M>: Sized {
        /// What the tool needs of the type.
        const FNS: ResultFns<Self>;
    }

    impl<T: IntoToolOutput> ToolResultType<Checked> for T {
        const FNS: ResultFns<T> = ResultFns {
            schema: T::result_schema,
            convert: T::into_tool_output,
        };
    }

    impl<T: Unsatisfiable> ToolResultType<Unchecked> for T {
        const FNS: ResultFns<T> = ResultFns {
            schema: unreachable_schema,
            convert: unreachable_convert::<T, Result<ToolOutput, ToolError>>,
        };
    }

    /// The handler's success type must be a tool result.
    pub const fn assert_tool_result<T: ToolResultType<M>, M>() -> ResultFns<T> {
        T::FNS
    }

    /// A handler's error type: `ToolError`, or one that converts into it.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool's error: it must convert into `ToolError`",
        label = "`ToolError` does not implement `From<{Self}>`",
        note = "return `Result<T, ToolError>` and convert other errors with `.map_err(...)`, or implement `From<{Self}>` for `ToolError` if `{Self}` is your own type"
    )]
    pub trait ToolErrorType<M>: Sized {
        /// Converts the error.
        const INTO: fn(Self) -> ToolError;
    }

    impl<E: Into<ToolError>> ToolErrorType<Checked> for E {
        const INTO: fn(E) -> ToolError = E::into;
    }

    impl<E: Unsatisfiable> ToolErrorType<Unchecked> for E {
        const INTO: fn(E) -> ToolError = unreachable_convert::<E, ToolError>;
    }

    /// The handler's error type must convert into a `ToolError`.
    pub const fn assert_tool_error<E: ToolErrorType<M>, M>() -> fn(E) -> ToolError {
        E::INTO
    }
}
