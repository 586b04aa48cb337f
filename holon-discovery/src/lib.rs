//! # holon-discovery
//!
//! The discovery meta-tools, declared with `#[holon_tool]`: [`SearchTools`](search_tools)
//! finds tools by what a model wants to do, [`DescribeTool`](describe_tool) returns one
//! tool's full definition in the form the caller's provider takes. A host that defers
//! its tools (holon-export's deferred exports, or an MCP server that lists only these)
//! gives the model these two and lets it find the rest.
//!
//! They live in a crate of their own so that they are in no registry by default: a
//! program has them only when it links this crate, and a host puts them where it
//! wants them with [`registry`] (its own tools plus these) or [`meta_tools`]. Their
//! handlers take a [`Discovery`] from the call's context: the registry they search and
//! the provider they describe for.
//!
//! ```
//! use std::sync::Arc;
//! use holon_core::{FamilyPolicy, ToolCall, ToolContext};
//! use holon_export::Provider;
//! use holon_discovery::Discovery;
//!
//! // Every linked tool plus the meta-tools (here: only the meta-tools are linked).
//! let registry = Arc::new(holon_discovery::registry(|_| true).unwrap());
//! let context = ToolContext::new(FamilyPolicy::all())
//!     .with_state(Discovery::new(registry.clone(), Provider::OpenAiChat));
//! let call = ToolCall::new("SearchTools", serde_json::json!({ "query": "describe a tool" }));
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let result = registry.dispatch(&context, call).await;
//! assert!(result.structured.is_some());
//! # });
//! ```

pub mod deferred;
mod discovery;
pub mod search;
mod tools;

pub use deferred::{DeferOptions, DeferredExport, Namespaces, export_deferred};
pub use discovery::{DESCRIBE_TOOL, Discovery, META_TOOLS, SEARCH_TOOLS};
use holon_core::{Registry, RegistryError, ToolMeta};
pub use tools::{
    DescribeToolArgs, DescribedTool, FoundTool, SearchToolsArgs, SearchToolsResult, describe_tool,
    search_tools,
};

/// The module path the meta-tools are declared in.
const MODULE: &str = module_path!();

/// Whether `meta` is one of the meta-tools of this crate.
pub fn is_meta_tool(meta: &ToolMeta) -> bool {
    meta.defined_at.module.split("::").next() == Some(MODULE)
}

/// A registry of the linked tools `keep` accepts, plus the meta-tools.
pub fn registry(mut keep: impl FnMut(&ToolMeta) -> bool) -> Result<Registry, RegistryError> {
    Registry::filtered(|meta| is_meta_tool(meta) || keep(meta))
}

/// A filter of tool names for an MCP server's `tools/list` (`McpServer::with_listed`):
/// the meta-tools and the `pinned` tools, while every tool stays callable by name.
pub fn listed<S: Into<String>>(
    pinned: impl IntoIterator<Item = S>,
) -> impl Fn(&str) -> bool + Send + Sync + 'static {
    let pinned: Vec<String> = pinned.into_iter().map(Into::into).collect();
    move |name: &str| META_TOOLS.contains(&name) || pinned.iter().any(|p| p == name)
}

/// A registry of the meta-tools alone.
pub fn meta_tools() -> Result<Registry, RegistryError> {
    Registry::of_module(MODULE)
}
