//! `ListModelProviders`.

use holon_core::prelude::*;

use holon_runtime::Runtime;

/// Arguments of ListModelProviders.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ListModelProvidersArgs {
    /// Also list providers whose credential is not set, with what to configure.
    #[serde(default)]
    pub include_unavailable: bool,
}

/// One provider.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProviderSummary {
    /// Provider id, to pass to ListProviderModels.
    pub id: String,
    /// Human name.
    pub display_name: String,
    /// The wire API it speaks.
    pub api: String,
    /// Base URL of the API.
    pub base_url: String,
    /// Whether its credential is set, so that calls can be made.
    pub configured: bool,
    /// The environment variable that configures it.
    pub credential_env: String,
    /// How many models the catalog lists for it (retired ones included).
    pub model_count: usize,
}

/// The providers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProviderList {
    /// Providers, sorted by id.
    pub providers: Vec<ProviderSummary>,
    /// How many providers were left out because they are not configured.
    pub unconfigured_hidden: usize,
}

/// List the model providers this runtime knows, from its model catalog.
///
/// By default only configured providers are listed (those whose credential
/// environment variable is set). Set `include_unavailable` to see every provider in
/// the catalog, each with `configured` and the `credential_env` to set. Use a
/// provider's `id` with ListProviderModels to see its models.
#[holon_tool(
    family = CoreAgent,
    keywords = ["llm vendors", "ai providers", "openai", "anthropic", "api keys"],
    annotations(read_only, idempotent, open_world = false)
)]
fn list_model_providers(rt: &Runtime, args: ListModelProvidersArgs) -> ToolOutput<ProviderList> {
    let mut providers = Vec::new();
    let mut unconfigured_hidden = 0;
    for provider in rt.catalog().providers() {
        let configured = rt.credentials().is_set(&provider.credential_env);
        if !configured && !args.include_unavailable {
            unconfigured_hidden += 1;
            continue;
        }
        providers.push(ProviderSummary {
            id: provider.id.clone(),
            display_name: provider.display_name.clone(),
            api: provider.api.clone(),
            base_url: provider.base_url.clone(),
            configured,
            credential_env: provider.credential_env.clone(),
            model_count: provider.models.len(),
        });
    }
    let summary = match (providers.len(), unconfigured_hidden) {
        (0, 0) => "the model catalog lists no providers".to_string(),
        (0, hidden) => format!(
            "no provider is configured ({hidden} known); call again with include_unavailable=true to see what to set"
        ),
        (shown, 0) => format!("{shown} provider(s)"),
        (shown, hidden) => format!("{shown} provider(s); {hidden} unconfigured not shown"),
    };
    ToolOutput::new(ProviderList {
        providers,
        unconfigured_hidden,
    })
    .with_summary(summary)
}
