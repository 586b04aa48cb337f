//! The configuration of the tools that talk to the outside: the web tools
//! (WebFetch, WebSearch) and the image provider of GenerateImage, plus the media
//! directory generated files are saved in.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use holon_gates::fs::{RelPath, RootDir};

use holon_gates::net::PrivateAddresses;

/// The environment variable (and `--web-allow-private`) of the private-address switch.
pub const WEB_ALLOW_PRIVATE_ENV: &str = "HOLON_WEB_ALLOW_PRIVATE";

/// The environment variable (and `--search-url`) naming the search providers.
pub const SEARCH_URL_ENV: &str = "HOLON_SEARCH_URL";
/// The environment variable (and `--web-proxy-from-env`) of the proxy opt-in.
pub const WEB_PROXY_FROM_ENV_ENV: &str = "HOLON_WEB_PROXY_FROM_ENV";
/// The environment variable (and `--image-api-base`) of the image provider's address.
pub const IMAGE_API_BASE_ENV: &str = "HOLON_IMAGE_API_BASE";
/// The environment variable holding the image provider's API key.
pub const IMAGE_API_KEY_ENV: &str = "HOLON_IMAGE_API_KEY";
/// The environment variable (and `--image-model`) of the image model.
pub const IMAGE_MODEL_ENV: &str = "HOLON_IMAGE_MODEL";
/// The image model used when none is configured.
pub const DEFAULT_IMAGE_MODEL: &str = "gpt-image-1";
/// The environment variable (and `--xai-api-base`) of XSearch's provider address.
pub const XAI_API_BASE_ENV: &str = "HOLON_XAI_API_BASE";
/// The environment variable holding XSearch's provider API key.
pub const XAI_API_KEY_ENV: &str = "HOLON_XAI_API_KEY";
/// The environment variable (and `--xai-model`) of the model XSearch asks.
pub const XAI_MODEL_ENV: &str = "HOLON_XAI_MODEL";
/// The model XSearch asks when none is configured.
pub const DEFAULT_XAI_MODEL: &str = "grok-4-1-fast";
/// The folder under the state directory generated media go to by default.
pub const MEDIA_DIR_NAME: &str = "media";

/// One search provider: a SearXNG-compatible JSON endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchProvider {
    /// The name WebSearch's `provider` selects it by.
    pub name: String,
    /// The endpoint, such as `http://127.0.0.1:8888/search`; `q` and `format=json`
    /// are added to its query.
    pub url: String,
}

impl SearchProvider {
    /// Parses `URL` (named `default`) or a comma-separated list of `NAME=URL`.
    pub fn parse_list(text: &str) -> Result<Vec<Self>, String> {
        text.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                let (name, url) = match item.split_once('=') {
                    Some((name, url)) if !name.contains("://") && !name.contains('/') => {
                        (name.trim(), url.trim())
                    }
                    _ => ("default", item),
                };
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(format!(
                        "search provider `{name}`: `{url}` is not an http(s) URL"
                    ));
                }
                Ok(Self {
                    name: name.to_string(),
                    url: url.to_string(),
                })
            })
            .collect()
    }
}

/// How WebFetch and WebSearch reach the network.
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// Which loopback, private and link-local addresses WebFetch may reach
    /// (default: none). Search providers are configured by the operator and exempt.
    pub private_addresses: PrivateAddresses,
    /// The time limit of one request, redirects and body included (default 30 s).
    pub timeout: Duration,
    /// Body bytes read at most (default 5 MiB); past it, reading stops.
    pub max_response_bytes: usize,
    /// Redirects WebFetch follows at most (default 5).
    pub max_redirects: usize,
    /// Send every request (web and providers) through the proxies `HTTP_PROXY`,
    /// `HTTPS_PROXY` and `ALL_PROXY` name, minus `NO_PROXY` (default: never, whatever
    /// the environment says).
    pub proxy_from_env: bool,
    /// The search providers; the first is the default.
    pub search_providers: Vec<SearchProvider>,
    /// XSearch's provider: xAI's Responses API with its `x_search` tool.
    pub x_search: XSearchConfig,
}

/// XSearch's provider: an xAI-compatible Responses API (`POST <api_base>/responses`)
/// whose model searches X with the server-side `x_search` tool.
#[derive(Debug, Clone)]
pub struct XSearchConfig {
    /// The API base, such as `https://api.x.ai/v1`. `None`: XSearch is not configured.
    pub api_base: Option<String>,
    /// The bearer token.
    pub api_key: Option<ApiKey>,
    /// The model to ask (default `grok-4-1-fast`).
    pub model: String,
    /// The time limit of one search (default 120 s: the model searches and reads).
    pub timeout: Duration,
}

impl Default for XSearchConfig {
    fn default() -> Self {
        Self {
            api_base: None,
            api_key: None,
            model: DEFAULT_XAI_MODEL.to_string(),
            timeout: Duration::from_secs(120),
        }
    }
}

impl Default for WebConfig {
    fn default() -> Self {
        Self {
            private_addresses: PrivateAddresses::Refuse,
            timeout: Duration::from_secs(30),
            max_response_bytes: 5 * 1024 * 1024,
            max_redirects: 5,
            proxy_from_env: false,
            search_providers: Vec::new(),
            x_search: XSearchConfig::default(),
        }
    }
}

/// An API key; `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(pub String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(..)")
    }
}

/// The image-generation provider of GenerateImage: an OpenAI-compatible images API.
#[derive(Debug, Clone)]
pub struct ImageConfig {
    /// The API base, such as `https://api.openai.com/v1`; `/images/generations` is
    /// appended. `None`: GenerateImage is not configured.
    pub api_base: Option<String>,
    /// The bearer token, if the provider needs one.
    pub api_key: Option<ApiKey>,
    /// The model to ask for (default `gpt-image-1`).
    pub model: String,
    /// The time limit of one generation (default 180 s).
    pub timeout: Duration,
    /// Where generated files go (default `<state dir>/media`, or a scratch directory
    /// for an in-memory runtime).
    pub media_dir: Option<PathBuf>,
}

impl Default for ImageConfig {
    fn default() -> Self {
        Self {
            api_base: None,
            api_key: None,
            model: DEFAULT_IMAGE_MODEL.to_string(),
            timeout: Duration::from_secs(180),
            media_dir: None,
        }
    }
}

/// The media directory, created on first use; a scratch directory removed with the
/// runtime when there is no state directory.
#[derive(Debug)]
pub struct MediaDir {
    configured: Option<PathBuf>,
    scratch: Mutex<Option<tempfile::TempDir>>,
}

impl MediaDir {
    /// A media directory at `configured`, or a scratch one when `None`.
    pub fn new(configured: Option<PathBuf>) -> Self {
        Self {
            configured,
            scratch: Mutex::new(None),
        }
    }

    /// The directory's handle, the directory created if needed.
    fn open_or_create(&self) -> std::io::Result<RootDir> {
        if let Some(dir) = &self.configured {
            return RootDir::open(&crate::state_dir::ensure_dir(dir)?);
        }
        let mut scratch = self
            .scratch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = match scratch.as_ref() {
            Some(dir) => dir,
            None => scratch.insert(tempfile::Builder::new().prefix("holon-media-").tempdir()?),
        };
        RootDir::open(dir.path())
    }

    /// The directory's handle if it exists already (its path canonical).
    pub fn open_existing(&self) -> Option<RootDir> {
        match &self.configured {
            Some(dir) => RootDir::open(dir).ok(),
            None => self
                .scratch
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .as_ref()
                .and_then(|dir| RootDir::open(dir.path()).ok()),
        }
    }

    /// Writes `bytes` to the new file `name` (one component) in the media directory,
    /// created if needed, through the filesystem gate: staged in the directory's
    /// handle, then renamed to `name` only if nothing has that name
    /// (`AlreadyExists` otherwise). Its path.
    pub fn write_new(&self, name: &OsStr, bytes: &[u8]) -> std::io::Result<PathBuf> {
        let root = self.open_or_create()?;
        let top = root
            .open_dir_nofollow(&RelPath::default(), None)
            .map_err(std::io::Error::other)?;
        top.stage(bytes, 0o666, |mode| mode)?.commit_new(name)?;
        Ok(root.path().join(name))
    }

    /// Whether `path` (canonical) lies inside the media directory.
    pub fn contains(&self, path: &Path) -> bool {
        self.open_existing()
            .is_some_and(|dir| path.starts_with(dir.path()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_search_provider_lists() {
        let one = SearchProvider::parse_list("http://127.0.0.1:8888/search").unwrap();
        assert_eq!(one[0].name, "default");
        let two =
            SearchProvider::parse_list("searx=https://s.example/search, b=http://b/x?k=1").unwrap();
        assert_eq!(
            two.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["searx", "b"]
        );
        assert_eq!(two[1].url, "http://b/x?k=1");
        assert!(SearchProvider::parse_list("x=ftp://nope").is_err());
        assert!(SearchProvider::parse_list("").unwrap().is_empty());
    }
}
