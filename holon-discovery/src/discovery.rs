//! Progressive discovery: what the meta-tools `SearchTools` and `DescribeTool` work on.
//!
//! The meta-tools themselves are declared with `#[holon_tool]` in the `holon-discovery`
//! crate, so that a program has them only when it links that crate and asks for them
//! (they are in no registry by default). Their handlers take a [`Discovery`] from the
//! call's context: the registry they search, and the provider whose form
//! `DescribeTool` answers in. A host enables them for one export or one server by
//! building that registry with them and putting a [`Discovery`] in its context:
//!
//! ```ignore
//! let registry = holon_discovery::with_meta_tools(Registry::of_module("my_tools"))?;
//! let context = ToolContext::new(policy)
//!     .with_state(Discovery::new(registry.clone(), Provider::OpenAiChat));
//! ```

use std::ops::Deref;
use std::sync::Arc;

use holon_core::{Registry, ToolContext, ToolDefinition, ToolError, ToolErrorKind, closest};

use crate::search::{SearchHit, SearchIndex, SearchScope};
use holon_export::{ExportOptions, ExportedTool, Provider, export_tool};

/// The name of the meta-tool that searches the tools.
pub const SEARCH_TOOLS: &str = "SearchTools";
/// The name of the meta-tool that returns one tool's full definition.
pub const DESCRIBE_TOOL: &str = "DescribeTool";
/// Both meta-tools.
pub const META_TOOLS: [&str; 2] = [SEARCH_TOOLS, DESCRIBE_TOOL];

/// Whether `name` is one of the meta-tools.
pub fn is_meta_tool(name: &str) -> bool {
    META_TOOLS.contains(&name)
}

/// A registry that lives as long as the program, or one shared with the host.
#[derive(Clone)]
enum Shared {
    Static(&'static Registry),
    Owned(Arc<Registry>),
}

impl Deref for Shared {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        match self {
            Self::Static(registry) => registry,
            Self::Owned(registry) => registry,
        }
    }
}

/// What the discovery meta-tools search and how they describe a tool: put one into
/// the context of the calls ([`ToolContext::with_state`]).
#[derive(Clone)]
pub struct Discovery {
    registry: Shared,
    provider: Provider,
    options: ExportOptions,
}

impl Discovery {
    /// Discovery over `registry`, describing tools as `provider` takes them.
    pub fn new(registry: Arc<Registry>, provider: Provider) -> Self {
        Self::of(Shared::Owned(registry), provider)
    }

    /// Discovery over a registry that lives as long as the program.
    pub fn new_static(registry: &'static Registry, provider: Provider) -> Self {
        Self::of(Shared::Static(registry), provider)
    }

    fn of(registry: Shared, provider: Provider) -> Self {
        Self {
            registry,
            provider,
            options: ExportOptions::default(),
        }
    }

    /// Describes tools with OpenAI's strict schemas (for the OpenAI providers).
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.options.strict = strict;
        self
    }

    /// The registry searched.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The provider whose form [`Discovery::describe`] answers in.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The `limit` tools that best match `query` among those the caller of `context`
    /// may call, the meta-tools left out.
    pub fn search(&self, context: &ToolContext, query: &str, limit: usize) -> Vec<SearchHit> {
        let scope = scope_of(context);
        let mut hits = SearchIndex::of(&self.registry).search(
            query,
            limit.saturating_add(META_TOOLS.len()),
            scope,
        );
        hits.retain(|hit| !is_meta_tool(&hit.name));
        hits.truncate(limit);
        hits
    }

    /// The tool `name` (or an alias of it) as the provider takes it, if the caller of
    /// `context` may call it; otherwise an `unknown_tool` error that suggests the
    /// closest name the caller may call.
    pub fn describe(&self, context: &ToolContext, name: &str) -> Result<ExportedTool, ToolError> {
        let scope = scope_of(context);
        let visible = |definition: &&ToolDefinition| {
            scope.policy.allows(definition.family)
                && (definition.is_model_facing() || scope.runtime_access)
        };
        match self.registry.get(name).filter(visible) {
            Some(definition) => Ok(export_tool(definition, self.provider, self.options).0),
            None => {
                let names = self.registry.definitions().filter(visible);
                let suggestion = closest(name, names.map(ToolDefinition::name));
                let error = ToolError::new(
                    ToolErrorKind::UNKNOWN_TOOL,
                    format!("no tool you may call is named `{name}`"),
                );
                Err(match suggestion {
                    Some(best) => error.with_hint(format!("did you mean `{best}`?")),
                    None => error.with_hint(format!(
                        "call {SEARCH_TOOLS} with what you want to do to find the tool's name"
                    )),
                })
            }
        }
    }
}

fn scope_of(context: &ToolContext) -> SearchScope {
    SearchScope {
        policy: context.policy(),
        runtime_access: context.has_runtime_access(),
    }
}
