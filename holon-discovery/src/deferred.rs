//! Deferred exports: a registry of thousands of tools, exported so that the model
//! starts with a few and finds the rest when it needs them.
//!
//! | provider | what the model gets up front | how it finds the rest |
//! |---|---|---|
//! | Anthropic | every tool, the unpinned ones with `defer_loading: true`, and the tool search tool (`tool_search_tool_bm25_20251119` or the regex one) | Anthropic's tool search loads the definitions it finds |
//! | OpenAI Responses | every tool, the unpinned ones with `defer_loading: true` (grouped in a `namespace` per family or per crate, if asked), and `{"type": "tool_search"}` | OpenAI's hosted tool search |
//! | OpenAI Chat, Gemini, MCP | the pinned tools and the meta-tools `SearchTools` and `DescribeTool` | the meta-tools; the host adds a described tool to the next request ([`DeferOptions::with_pinned`]); over MCP every tool stays callable by name |
//!
//! The meta-tools are declared in the `holon-discovery` crate: for Chat, Gemini and MCP
//! the registry must have them (`holon_discovery::registry`). With a provider's own
//! search they are left out: its search replaces them.
//!
//! Sources: Anthropic, "Tool search tool"
//! (<https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/tool-search-tool>);
//! OpenAI, "Tool search" (<https://platform.openai.com/docs/guides/tools-tool-search>):
//! `defer_loading` applies to the functions inside a namespace, not to the namespace.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use holon_core::{Registry, ToolCapabilityFamily, ToolDefinition, closest};

use crate::discovery::{META_TOOLS, is_meta_tool};
use holon_export::{ExportOptions, ExportWarning, ExportedTool, Provider, export_tool};

/// How OpenAI Responses groups deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Namespaces {
    /// No namespaces: each deferred function stands alone.
    #[default]
    None,
    /// One namespace per capability family (`core_agent`, `web`, ...).
    ByFamily,
    /// One namespace per crate that declares tools (the first segment of the module
    /// path).
    ByCrate,
}

/// Which of Anthropic's tool search tools the export adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnthropicSearch {
    /// `tool_search_tool_bm25_20251119`: the model searches in natural language.
    #[default]
    Bm25,
    /// `tool_search_tool_regex_20251119`: the model searches with regular expressions.
    Regex,
}

impl AnthropicSearch {
    /// The tool search tool as Anthropic's `tools` array takes it.
    pub fn wire(self) -> Value {
        match self {
            Self::Bm25 => json!({
                "type": "tool_search_tool_bm25_20251119",
                "name": "tool_search_tool_bm25",
            }),
            Self::Regex => json!({
                "type": "tool_search_tool_regex_20251119",
                "name": "tool_search_tool_regex",
            }),
        }
    }
}

/// What a deferred export keeps loaded and how it groups the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeferOptions {
    /// Tools loaded up front, by name (or alias): the ones every conversation needs,
    /// and, for Chat, Gemini and MCP, the ones the model has described since.
    pub pinned: Vec<String>,
    /// How OpenAI Responses groups deferred tools.
    pub namespaces: Namespaces,
    /// Which tool search tool Anthropic gets.
    pub anthropic_search: AnthropicSearch,
}

impl DeferOptions {
    /// Everything deferred, no namespaces, Anthropic's BM25 search.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps `names` loaded.
    pub fn with_pinned<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.pinned.extend(names.into_iter().map(Into::into));
        self
    }

    /// Groups OpenAI Responses' deferred tools.
    pub fn with_namespaces(mut self, namespaces: Namespaces) -> Self {
        self.namespaces = namespaces;
        self
    }

    /// Chooses Anthropic's tool search tool.
    pub fn with_anthropic_search(mut self, search: AnthropicSearch) -> Self {
        self.anthropic_search = search;
        self
    }
}

/// One tool of a deferred export.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeferredTool {
    /// The tool as the export wrote it (`wire` carries `defer_loading` when deferred).
    pub tool: ExportedTool,
    /// Whether the model gets it only through search.
    pub deferred: bool,
    /// The OpenAI Responses namespace it is in, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// A registry exported for one provider with most tools deferred.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeferredExport {
    /// The provider.
    pub provider: Provider,
    /// Every tool the model can reach through this export, loaded or deferred, sorted
    /// by name. For Chat, Gemini and MCP only the listed ones.
    pub tools: Vec<DeferredTool>,
    /// The entries of the request's `tools` (or of `tools/list`), in order: tools,
    /// namespaces and the provider's search tool.
    pub entries: Vec<Value>,
    /// What could not be exported as asked.
    pub warnings: Vec<ExportWarning>,
}

impl DeferredExport {
    /// What the provider's API takes, as [`Export::payload`](holon_export::Export::payload).
    pub fn payload(&self) -> Value {
        let entries = Value::Array(self.entries.clone());
        match self.provider {
            Provider::Gemini => json!([{ "functionDeclarations": entries }]),
            Provider::Mcp => json!({ "tools": entries }),
            Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Anthropic => entries,
        }
    }

    /// The names of the tools loaded up front.
    pub fn loaded(&self) -> impl Iterator<Item = &str> {
        self.tools
            .iter()
            .filter(|tool| !tool.deferred)
            .map(|tool| &*tool.tool.name)
    }

    /// Whether the provider's own search finds the deferred tools (Anthropic, OpenAI
    /// Responses) rather than the meta-tools.
    pub fn uses_provider_search(&self) -> bool {
        uses_provider_search(self.provider)
    }
}

fn uses_provider_search(provider: Provider) -> bool {
    matches!(provider, Provider::Anthropic | Provider::OpenAiResponses)
}

/// Why a deferred export could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot defer the tools: {}", .problems.join("; "))]
pub struct DeferError {
    /// One sentence per problem.
    pub problems: Vec<String>,
}

/// Exports the model-facing tools of `registry` that `options.policy` allows, with
/// every tool not in `defer.pinned` deferred.
pub fn export_deferred(
    registry: &Registry,
    provider: Provider,
    options: ExportOptions,
    defer: &DeferOptions,
) -> Result<DeferredExport, DeferError> {
    let visible: Vec<&ToolDefinition> = registry.model_definitions(options.policy).collect();
    let pinned = pinned_names(&visible, &defer.pinned)?;
    let provider_search = uses_provider_search(provider);
    if !provider_search {
        let missing: Vec<&str> = META_TOOLS
            .into_iter()
            .filter(|name| !visible.iter().any(|d| d.name() == *name))
            .collect();
        if !missing.is_empty() {
            return Err(DeferError {
                problems: vec![format!(
                    "{provider} has no tool search of its own, so the registry must have the meta-tools, and {} {} missing (or outside the policy): build it with `holon_discovery::registry`",
                    missing.join(" and "),
                    if missing.len() == 1 { "is" } else { "are" }
                )],
            });
        }
    }

    let mut tools = Vec::new();
    let mut warnings = Vec::new();
    for definition in visible {
        let name = definition.name();
        let loaded = pinned.contains(&name);
        if provider_search && is_meta_tool(name) && !loaded {
            continue;
        }
        if !provider_search && !loaded && !is_meta_tool(name) {
            continue;
        }
        let (mut tool, tool_warnings) = export_tool(definition, provider, options);
        warnings.extend(tool_warnings);
        if !loaded && provider_search {
            tool.wire["defer_loading"] = Value::Bool(true);
        }
        let namespace = (provider == Provider::OpenAiResponses && !loaded)
            .then(|| namespace_of(definition, defer.namespaces))
            .flatten();
        tools.push(DeferredTool {
            tool,
            deferred: !loaded && provider_search,
            namespace,
        });
    }
    warnings.extend(holon_export::rules::count_warning(provider, tools.len()));
    let entries = entries(provider, &tools, defer);
    Ok(DeferredExport {
        provider,
        tools,
        entries,
        warnings,
    })
}

/// The canonical names of `wanted`, each checked against the visible tools.
fn pinned_names<'r>(
    visible: &[&'r ToolDefinition],
    wanted: &[String],
) -> Result<Vec<&'r str>, DeferError> {
    let mut names = Vec::new();
    let mut problems = Vec::new();
    for name in wanted {
        let found = visible
            .iter()
            .find(|d| d.name() == name || d.aliases.contains(&name.as_str()));
        match found {
            Some(definition) => names.push(definition.name()),
            None => problems.push(
                match closest(name, visible.iter().map(|d| d.name())) {
                    Some(best) => format!(
                        "the pinned tool `{name}` is not among the exported tools; did you mean `{best}`?"
                    ),
                    None => format!(
                        "the pinned tool `{name}` is not among the exported tools (unknown, runtime-only or outside the policy)"
                    ),
                },
            ),
        }
    }
    if problems.is_empty() {
        Ok(names)
    } else {
        Err(DeferError { problems })
    }
}

fn namespace_of(definition: &ToolDefinition, namespaces: Namespaces) -> Option<String> {
    match namespaces {
        Namespaces::None => None,
        Namespaces::ByFamily => Some(definition.family.as_str().to_string()),
        Namespaces::ByCrate => {
            let module = definition.defined_at.module;
            Some(module.split("::").next().unwrap_or(module).to_string())
        }
    }
}

/// The request's entries: the provider's search tool first, then the tools, with
/// namespaced ones gathered into their namespace where the first of them stood.
fn entries(provider: Provider, tools: &[DeferredTool], defer: &DeferOptions) -> Vec<Value> {
    let any_deferred = tools.iter().any(|tool| tool.deferred);
    let mut entries = Vec::new();
    match provider {
        Provider::Anthropic if any_deferred => entries.push(defer.anthropic_search.wire()),
        Provider::OpenAiResponses if any_deferred => entries.push(json!({ "type": "tool_search" })),
        _ => {}
    }
    let mut groups: BTreeMap<&str, Vec<&DeferredTool>> = BTreeMap::new();
    for tool in tools {
        match &tool.namespace {
            Some(namespace) => groups.entry(namespace).or_default().push(tool),
            None => entries.push(tool.tool.wire.clone()),
        }
    }
    for (namespace, members) in groups {
        entries.push(json!({
            "type": "namespace",
            "name": namespace,
            "description": namespace_description(namespace, &members, defer.namespaces),
            "tools": members.iter().map(|tool| tool.tool.wire.clone()).collect::<Vec<_>>(),
        }));
    }
    entries
}

/// How many tool names a crate namespace's description lists.
const LISTED_NAMES: usize = 12;

/// What the model reads of a namespace before it searches it.
fn namespace_description(
    namespace: &str,
    members: &[&DeferredTool],
    namespaces: Namespaces,
) -> String {
    let names: Vec<&str> = members.iter().map(|tool| &*tool.tool.name).collect();
    let listed = names
        .iter()
        .take(LISTED_NAMES)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let more = names.len().saturating_sub(LISTED_NAMES);
    let tail = if more > 0 {
        format!("{listed} and {more} more")
    } else {
        listed
    };
    let family = ToolCapabilityFamily::ALL
        .into_iter()
        .find(|family| family.as_str() == namespace);
    match (namespaces, family) {
        (Namespaces::ByFamily, Some(family)) => {
            format!("{} Tools: {tail}.", family_summary(family))
        }
        _ => format!("Tools of the `{namespace}` crate: {tail}."),
    }
}

/// What the tools of a family do, for a model deciding where to search.
pub fn family_summary(family: ToolCapabilityFamily) -> &'static str {
    match family {
        ToolCapabilityFamily::CoreAgent => {
            "The agent's own bookkeeping: work items, tasks, waiting, timers, models and memory."
        }
        ToolCapabilityFamily::LocalEnvironment => {
            "Acting on the local machine: commands, files, patches and images."
        }
        ToolCapabilityFamily::AuthorityExpanding => {
            "Widening what the agent can reach: attaching workspaces, removing worktrees."
        }
        ToolCapabilityFamily::Web => "Reaching the network: fetching pages and searching.",
        ToolCapabilityFamily::AgentCreation => "Creating other agents.",
        ToolCapabilityFamily::ExternalTrigger => {
            "Registering triggers that wake the agent from outside."
        }
    }
}
