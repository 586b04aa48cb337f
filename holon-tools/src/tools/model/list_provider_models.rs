//! `ListProviderModels`, with cursor paging.

use holon_core::closest;
use holon_core::prelude::*;

use holon_runtime::Runtime;
use holon_runtime::catalog::{ModelEntry, ModelStatus};

/// Models returned per page when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 20;

/// Arguments of ListProviderModels.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ListProviderModelsArgs {
    /// Provider id, as ListModelProviders returns it (for example `openai`).
    #[schemars(length(min = 1))]
    pub provider: String,
    /// The `next_cursor` of the previous page; omit for the first page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Models per page, 1 to 100. Defaults to 20.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// Also list retired models, which can no longer be called.
    #[serde(default)]
    pub include_unavailable: bool,
}

/// One page of models.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ModelPage {
    /// The provider listed.
    pub provider_id: String,
    /// Whether the provider's credential is set.
    pub configured: bool,
    /// This page's models, in catalog order.
    pub models: Vec<ModelEntry>,
    /// Pass as `cursor` to get the next page; absent on the last page.
    pub next_cursor: Option<String>,
    /// How many models match in all pages.
    pub total_count: usize,
}

/// List the models of one provider from the runtime's model catalog, a page at a time.
///
/// Each model comes with its context window, output limit, input modalities, tool
/// support and status. Retired models are left out unless `include_unavailable` is
/// true. When `next_cursor` is present, call again with it as `cursor` for the next
/// page; `limit` sets the page size (1 to 100, default 20).
#[holon_tool(
    family = CoreAgent,
    keywords = ["llm", "gpt", "claude", "context window", "token limit"],
    annotations(read_only, idempotent, open_world = false)
)]
fn list_provider_models(
    rt: &Runtime,
    args: ListProviderModelsArgs,
) -> Result<ToolOutput<ModelPage>, ToolError> {
    let catalog = rt.catalog();
    let Some(provider) = catalog.provider(&args.provider) else {
        let ids = catalog.providers().iter().map(|p| p.id.as_str());
        let known: Vec<&str> = ids.clone().collect();
        let mut error = ToolError::new(
            ToolErrorKind::new("unknown_provider"),
            format!("the model catalog has no provider `{}`", args.provider),
        )
        .with_field("provider");
        error.recovery_hint = Some(match closest(&args.provider, ids) {
            Some(best) => format!("did you mean `{best}`?"),
            None => format!("known providers: {}", known.join(", ")),
        });
        return Err(error);
    };
    let matching: Vec<_> = provider
        .models
        .iter()
        .filter(|model| args.include_unavailable || model.status != ModelStatus::Retired)
        .collect();
    let start = match &args.cursor {
        None => 0,
        Some(cursor) => cursor_position(cursor, &matching)?,
    };
    let limit = args.limit.map_or(DEFAULT_LIMIT, |l| l as usize);
    let page: Vec<ModelEntry> = matching
        .iter()
        .skip(start)
        .take(limit)
        .map(|model| (*model).clone())
        .collect();
    let end = start + page.len();
    let next_cursor = (end < matching.len())
        .then(|| page.last().map(|last| format!("after:{}", last.id)))
        .flatten();
    let summary = format!(
        "{} model(s) of {} ({}-{} of {})",
        page.len(),
        provider.id,
        if page.is_empty() { start } else { start + 1 },
        end,
        matching.len()
    );
    Ok(ToolOutput::new(ModelPage {
        provider_id: provider.id.clone(),
        configured: rt.credentials().is_set(&provider.credential_env),
        models: page,
        next_cursor,
        total_count: matching.len(),
    })
    .with_summary(summary))
}

/// Where the page after `cursor` starts. Cursors name the last model of the previous
/// page, so they stay valid when the catalog grows.
fn cursor_position(cursor: &str, models: &[&ModelEntry]) -> Result<usize, ToolError> {
    let invalid = |why: &str| {
        ToolError::new(
            ToolErrorKind::new("invalid_cursor"),
            format!("the cursor `{cursor}` {why}"),
        )
        .with_field("cursor")
        .with_hint(
            "pass the `next_cursor` of the previous page unchanged, or omit `cursor` to start over",
        )
    };
    let Some(after) = cursor.strip_prefix("after:") else {
        return Err(invalid("was not returned by this tool"));
    };
    models
        .iter()
        .position(|model| model.id == after)
        .map(|index| index + 1)
        .ok_or_else(|| invalid("names a model that is not in this listing"))
}
