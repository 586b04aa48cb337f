//! The provider and model catalog: a file that ships with the crate, optionally
//! overridden by a user file (providers are replaced by id, new ones added).

use std::collections::BTreeSet;
use std::path::Path;

use holon_core::prelude::*;

/// The catalog embedded in the binary.
pub const EMBEDDED_CATALOG: &str = include_str!("../data/model-catalog.json");

/// The catalog file format's version.
pub const CATALOG_VERSION: u32 = 1;

/// A catalog file.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogFile {
    /// Format version; must be 1.
    pub version: u32,
    /// The providers.
    pub providers: Vec<ProviderEntry>,
}

/// A model provider.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderEntry {
    /// Stable id, such as `openai`.
    pub id: String,
    /// Human name.
    pub display_name: String,
    /// The wire API it speaks, such as `openai-responses` or `anthropic-messages`.
    pub api: String,
    /// Base URL of the API.
    pub base_url: String,
    /// The environment variable whose presence makes the provider configured.
    pub credential_env: String,
    /// Its models.
    pub models: Vec<ModelEntry>,
}

/// Whether a model can still be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModelStatus {
    /// Served.
    Available,
    /// Served, with a retirement announced.
    Deprecated,
    /// No longer served.
    Retired,
}

/// A model.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    /// The id to send to the provider.
    pub id: String,
    /// Human name.
    pub display_name: String,
    /// Context window, in tokens.
    pub context_window_tokens: u64,
    /// Most output tokens per response.
    pub max_output_tokens: u64,
    /// Accepted input kinds: `text`, `image`, `audio`, `video`.
    pub input_modalities: Vec<String>,
    /// Whether it can call tools.
    pub supports_tools: bool,
    /// Availability.
    pub status: ModelStatus,
}

/// The catalog could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("model catalog {source_name}: {message}")]
pub struct CatalogError {
    /// The file (or `embedded catalog`).
    pub source_name: String,
    /// What is wrong.
    pub message: String,
}

/// The loaded catalog, providers sorted by id.
#[derive(Debug, Clone)]
pub struct ModelCatalog {
    providers: Vec<ProviderEntry>,
}

impl ModelCatalog {
    /// Loads the embedded catalog, then the override file if given.
    pub fn load(override_file: Option<&Path>) -> Result<Self, CatalogError> {
        let mut providers = parse(EMBEDDED_CATALOG, "embedded catalog")?.providers;
        if let Some(path) = override_file {
            let name = path.display().to_string();
            let text = crate::state_dir::read_config(path).map_err(|error| CatalogError {
                source_name: name.clone(),
                message: format!("cannot read it: {error}"),
            })?;
            for provider in parse(&text, &name)?.providers {
                providers.retain(|existing| existing.id != provider.id);
                providers.push(provider);
            }
        }
        providers.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Self { providers })
    }

    /// Every provider, sorted by id.
    pub fn providers(&self) -> &[ProviderEntry] {
        &self.providers
    }

    /// The provider with `id`.
    pub fn provider(&self, id: &str) -> Option<&ProviderEntry> {
        self.providers.iter().find(|provider| provider.id == id)
    }
}

fn parse(text: &str, source_name: &str) -> Result<CatalogFile, CatalogError> {
    let error = |message: String| CatalogError {
        source_name: source_name.to_string(),
        message,
    };
    let file: CatalogFile = serde_json::from_str(text).map_err(|e| error(e.to_string()))?;
    if file.version != CATALOG_VERSION {
        return Err(error(format!(
            "version {} is not supported; this build reads version {CATALOG_VERSION}",
            file.version
        )));
    }
    let mut provider_ids = BTreeSet::new();
    for provider in &file.providers {
        if provider.id.trim().is_empty() {
            return Err(error("a provider has an empty id".to_string()));
        }
        if !provider_ids.insert(provider.id.as_str()) {
            return Err(error(format!("provider `{}` is listed twice", provider.id)));
        }
        let mut model_ids = BTreeSet::new();
        for model in &provider.models {
            if model.id.trim().is_empty() {
                return Err(error(format!(
                    "provider `{}` has a model with an empty id",
                    provider.id
                )));
            }
            if !model_ids.insert(model.id.as_str()) {
                return Err(error(format!(
                    "model `{}` of provider `{}` is listed twice",
                    model.id, provider.id
                )));
            }
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_catalog_loads() {
        let catalog = ModelCatalog::load(None).unwrap();
        assert!(catalog.provider("openai").is_some());
        let ids: Vec<&str> = catalog.providers().iter().map(|p| p.id.as_str()).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(ids, sorted);
    }

    #[test]
    fn override_replaces_and_adds_providers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.json");
        std::fs::write(
            &path,
            r#"{"version": 1, "providers": [
                {"id": "openai", "display_name": "OpenAI via proxy", "api": "openai-chat",
                 "base_url": "http://127.0.0.1:9/v1", "credential_env": "PROXY_KEY", "models": []},
                {"id": "local", "display_name": "Local", "api": "openai-chat",
                 "base_url": "http://127.0.0.1:8080/v1", "credential_env": "LOCAL_KEY", "models": []}
            ]}"#,
        )
        .unwrap();
        let catalog = ModelCatalog::load(Some(&path)).unwrap();
        assert_eq!(
            catalog.provider("openai").unwrap().display_name,
            "OpenAI via proxy"
        );
        assert!(catalog.provider("local").is_some());
        assert!(catalog.provider("anthropic").is_some());
    }

    #[test]
    fn bad_override_files_are_typed_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.json");
        std::fs::write(&path, r#"{"version": 1, "providers": [], "extra": 1}"#).unwrap();
        let error = ModelCatalog::load(Some(&path)).unwrap_err();
        assert!(error.message.contains("unknown field `extra`"), "{error}");

        std::fs::write(&path, r#"{"version": 2, "providers": []}"#).unwrap();
        let error = ModelCatalog::load(Some(&path)).unwrap_err();
        assert!(error.message.contains("version 2"), "{error}");

        let missing = dir.path().join("missing.json");
        let error = ModelCatalog::load(Some(&missing)).unwrap_err();
        assert!(error.message.contains("cannot read"), "{error}");
    }
}
