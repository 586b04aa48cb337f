//! Procedural macros of the holon tool framework.
//!
//! Tool authors do not depend on this crate directly: `holon_core` re-exports
//! [`macro@holon_tool`] and [`macro@ToolArgs`] (see `holon_core::prelude`), and the
//! generated code only names items under `::holon_core`: under the name the calling
//! crate's manifest gives holon-core with the `find-crate` feature (default on, and
//! through holon-core's feature of the same name), `::holon_core` without it, or the
//! path given by `crate = ...`.
//!
//! Each macro follows the same discipline: parse into typed structures, validate all
//! of it and report every error (not only the first), then expand. On error the
//! macro emits `compile_error!` plus a fallback (the untouched function, or the trait
//! impl) so that one mistake does not cascade into twenty.

mod attrs;
mod closed_input;
mod crate_path;
mod derive_args;
mod doc_text;
mod errors;
mod examples;
mod handler;
mod impl_context;
mod naming;
mod options;

use proc_macro::TokenStream;

/// Declares a tool: the handler function stays as written, and the macro emits its
/// `ToolSpec`, compile-time checks and a link-time registration.
///
/// See `holon_core`'s crate documentation for the options and handler rules.
#[proc_macro_attribute]
pub fn holon_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    handler::expand(attr.into(), item.into()).into()
}

/// Marks a struct as a tool's argument type.
///
/// Fails to compile unless the struct has named fields and
/// `#[serde(deny_unknown_fields)]`, refuses borrowed fields and `#[serde(alias)]`, and
/// requires every field's type, a `#[serde(flatten)]` one included, to be closed
/// (`ClosedInput`). Records the wire names of the fields.
#[proc_macro_derive(ToolArgs, attributes(tool_args))]
pub fn derive_tool_args(input: TokenStream) -> TokenStream {
    derive_args::expand(input.into()).into()
}

/// Marks a struct or enum nested in tool arguments as closed: its JSON rejects
/// unknown fields at every depth.
///
/// Fails to compile unless a type with named fields has `#[serde(deny_unknown_fields)]`,
/// and requires every field's type to be closed too (`String`, numbers, `Option`,
/// `Vec`, maps and the like are). A field whose type is another crate's is marked
/// `#[tool_args(foreign)]`; the registry checks its schema when it is built.
#[proc_macro_derive(ClosedInput, attributes(tool_args))]
pub fn derive_closed_input(input: TokenStream) -> TokenStream {
    closed_input::expand(input.into()).into()
}
