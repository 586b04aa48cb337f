//! The model plane: which providers and models the runtime knows, read from the
//! model catalog.

mod list_model_providers;
mod list_provider_models;

pub use list_model_providers::{ListModelProvidersArgs, ProviderList, ProviderSummary};
pub use list_provider_models::{ListProviderModelsArgs, ModelPage};
