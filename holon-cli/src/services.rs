//! Global options that configure the tools talking to the outside: the web tools'
//! private-address switch and search providers, GenerateImage's provider, and the
//! certificate authorities trusted for https.

use std::path::PathBuf;

use clap::Args;

use holon_gates::net::PrivateAddresses;
use holon_runtime::services::{IMAGE_API_KEY_ENV, SearchProvider, XAI_API_KEY_ENV};
use holon_runtime::{ApiKey, RuntimeConfig};

/// The search providers of `--search-url`.
#[derive(Debug, Clone)]
pub struct SearchProviders(pub Vec<SearchProvider>);

fn parse_search(text: &str) -> Result<SearchProviders, String> {
    SearchProvider::parse_list(text).map(SearchProviders)
}

/// Options of the web and image tools.
#[derive(Debug, Clone, Args)]
pub struct ServiceOptions {
    /// WebSearch's provider: a SearXNG-compatible JSON endpoint such as
    /// http://127.0.0.1:8888/search, or several as NAME=URL,NAME=URL (the first is
    /// the default) [default: none, WebSearch says what to set].
    #[arg(long, value_name = "URLS", env = "HOLON_SEARCH_URL", value_parser = parse_search)]
    pub search_url: Option<SearchProviders>,

    /// Let WebFetch reach loopback, private and link-local addresses: `true`, `false`,
    /// or a comma-separated list of the only IP addresses allowed [default: false].
    #[arg(long, value_name = "SWITCH", env = "HOLON_WEB_ALLOW_PRIVATE", value_parser = PrivateAddresses::parse)]
    pub web_allow_private: Option<PrivateAddresses>,

    /// Send web and provider requests through the proxies HTTP_PROXY, HTTPS_PROXY and
    /// ALL_PROXY name (minus NO_PROXY). Without it the environment's proxies are
    /// ignored [default: false].
    #[arg(long, env = "HOLON_WEB_PROXY_FROM_ENV")]
    pub web_proxy_from_env: bool,

    /// GenerateImage's provider: the base of an OpenAI-compatible images API, such as
    /// `https://api.openai.com/v1`. Its API key is read from HOLON_IMAGE_API_KEY
    /// [default: none, GenerateImage says what to set].
    #[arg(long, value_name = "URL", env = "HOLON_IMAGE_API_BASE")]
    pub image_api_base: Option<String>,

    /// The image model GenerateImage asks for [default: gpt-image-1].
    #[arg(long, value_name = "MODEL", env = "HOLON_IMAGE_MODEL")]
    pub image_model: Option<String>,

    /// Where GenerateImage saves images [default: STATE_DIR/media].
    #[arg(long, value_name = "DIR", env = "HOLON_MEDIA_DIR")]
    pub media_dir: Option<PathBuf>,

    /// XSearch's provider: the base of xAI's API (`https://api.x.ai/v1`) or a compatible
    /// one. Its API key is read from HOLON_XAI_API_KEY [default: none, XSearch says
    /// what to set].
    #[arg(long, value_name = "URL", env = "HOLON_XAI_API_BASE")]
    pub xai_api_base: Option<String>,

    /// The model XSearch asks [default: grok-4-1-fast].
    #[arg(long, value_name = "MODEL", env = "HOLON_XAI_MODEL")]
    pub xai_model: Option<String>,

    /// A PEM file of certificate authorities to trust for https besides Mozilla's
    /// roots (an internal CA, a TLS-inspecting proxy's), for WebFetch, WebSearch,
    /// GenerateImage and the OTLP collector [default: none].
    #[arg(long, value_name = "FILE", env = "HOLON_CA_FILE")]
    pub ca_file: Option<PathBuf>,
}

impl ServiceOptions {
    /// Writes the options (and the image API key from the environment) into `config`.
    pub fn apply(&self, config: &mut RuntimeConfig) {
        if let Some(SearchProviders(providers)) = &self.search_url {
            config.web.search_providers = providers.clone();
        }
        if let Some(switch) = &self.web_allow_private {
            config.web.private_addresses = switch.clone();
        }
        config.web.proxy_from_env = self.web_proxy_from_env;
        config.images.api_base = self.image_api_base.clone().filter(|s| !s.is_empty());
        if let Some(model) = self.image_model.clone().filter(|s| !s.is_empty()) {
            config.images.model = model;
        }
        config.images.media_dir = self.media_dir.clone();
        config.ca_file = self
            .ca_file
            .clone()
            .filter(|path| !path.as_os_str().is_empty());
        config.images.api_key = api_key(IMAGE_API_KEY_ENV);
        config.web.x_search.api_base = self.xai_api_base.clone().filter(|s| !s.is_empty());
        if let Some(model) = self.xai_model.clone().filter(|s| !s.is_empty()) {
            config.web.x_search.model = model;
        }
        config.web.x_search.api_key = api_key(XAI_API_KEY_ENV);
    }
}

/// An API key from the environment variable `name`, unless it is unset or empty.
fn api_key(name: &str) -> Option<ApiKey> {
    std::env::var(name)
        .ok()
        .filter(|key| !key.is_empty())
        .map(ApiKey)
}
