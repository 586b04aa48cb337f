//! One model API over HTTP: where a request goes, how it is authenticated, the first
//! request's body, the final answer's text, and what a failed exchange tells the user.
//!
//! The model API is this host's own traffic, not a tool's: it goes out directly, not
//! through holon-gates' network gate (which this example does not link).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::fmt;
use std::sync::Arc;

use holon_export::{ExportOptions, export};
use holon_provider::{Provider, SendError};
use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::{Value, json};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, crypto};

/// The Anthropic API version this agent speaks.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A model API reached at `base_url` with a key.
pub struct Endpoint {
    /// Which API it speaks.
    pub provider: Provider,
    /// The request URL: the base URL and the API's path.
    pub url: String,
    /// The environment variable the key came from, named in errors (never the key).
    pub key_var: String,
    client: reqwest::Client,
}

/// The environment variables of a provider's key and base URL, and its default base
/// URL, as the providers' own SDKs read them.
pub fn defaults(provider: Provider) -> (&'static str, &'static str, &'static str) {
    match provider {
        Provider::Anthropic => (
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "https://api.anthropic.com",
        ),
        _ => (
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "https://api.openai.com/v1",
        ),
    }
}

impl Endpoint {
    /// An endpoint of `provider` at `base_url`, authenticated with `key` (read from
    /// the environment variable `key_var`).
    pub fn new(
        provider: Provider,
        base_url: &str,
        key: &str,
        key_var: &str,
    ) -> Result<Self, String> {
        let base = base_url.trim_end_matches('/');
        let url = match provider {
            Provider::OpenAiChat => format!("{base}/chat/completions"),
            Provider::OpenAiResponses => format!("{base}/responses"),
            Provider::Anthropic => format!("{base}/v1/messages"),
            other => return Err(format!("`{other}` is not served by this agent")),
        };
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let secret = |value: String| {
            let mut value = HeaderValue::from_str(&value)
                .map_err(|_| format!("{key_var} holds characters an HTTP header cannot"))?;
            value.set_sensitive(true);
            Ok::<_, String>(value)
        };
        if provider == Provider::Anthropic {
            headers.insert("x-api-key", secret(key.to_string())?);
            headers.insert(
                "anthropic-version",
                HeaderValue::from_static(ANTHROPIC_VERSION),
            );
        } else {
            headers.insert("authorization", secret(format!("Bearer {key}"))?);
        }
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls())
            .default_headers(headers)
            .build()
            .map_err(|error| format!("the HTTP client cannot be built: {error}"))?;
        Ok(Self {
            provider,
            url,
            key_var: key_var.to_string(),
            client,
        })
    }

    /// The first request: the user's prompt and this program's tools.
    pub fn first_request(&self, model: &str, prompt: &str) -> Value {
        let tools = export(
            holon_core::Registry::global(),
            self.provider,
            ExportOptions::default(),
        )
        .payload();
        let user = json!([{ "role": "user", "content": prompt }]);
        match self.provider {
            Provider::OpenAiResponses => json!({ "model": model, "tools": tools, "input": user }),
            Provider::Anthropic => {
                json!({ "model": model, "max_tokens": 4096, "tools": tools, "messages": user })
            }
            _ => json!({ "model": model, "tools": tools, "messages": user }),
        }
    }

    /// Sends `request` and returns the response body; an HTTP error status, a body
    /// that is not JSON or a failed connection is an error saying which.
    pub async fn send(&self, request: Value) -> Result<Value, SendError> {
        let body = serde_json::to_vec(&request)?;
        let response = self
            .client
            .post(&self.url)
            .body(body)
            .send()
            .await
            .map_err(|error| ExchangeError::Connect {
                url: self.url.clone(),
                reason: chain(&error),
            })?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|error| ExchangeError::Connect {
                url: self.url.clone(),
                reason: chain(&error),
            })?;
        if !status.is_success() {
            return Err(ExchangeError::Status {
                status,
                url: self.url.clone(),
                message: api_message(&text),
                key_var: self.key_var.clone(),
            }
            .into());
        }
        serde_json::from_str(&text).map_err(|error| {
            ExchangeError::NotJson {
                url: self.url.clone(),
                reason: error.to_string(),
            }
            .into()
        })
    }
}

/// rustls on ring, trusting Mozilla's roots, as holon-gates' network gate.
fn tls() -> ClientConfig {
    let roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let mut config =
        ClientConfig::builder_with_provider(Arc::new(crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("ring supports the default TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
    // reqwest is built without HTTP/2 here.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config
}

/// A reqwest error with its causes ("connection refused" is a cause, not the error).
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The message of an API error body (`{"error": {"message"}}`, both OpenAI's and
/// Anthropic's form), or the start of the body when it has none.
fn api_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    match parsed
        .as_ref()
        .and_then(|value| value["error"]["message"].as_str())
    {
        Some(message) => message.to_string(),
        None => body.chars().take(200).collect(),
    }
}

/// Why one exchange with the endpoint failed.
#[derive(Debug)]
pub enum ExchangeError {
    /// No HTTP response: the connection was refused, the name did not resolve, TLS failed.
    Connect {
        /// The request URL.
        url: String,
        /// What failed, with its causes.
        reason: String,
    },
    /// The endpoint answered with an error status.
    Status {
        /// The status.
        status: StatusCode,
        /// The request URL.
        url: String,
        /// The API's error message.
        message: String,
        /// The key's environment variable.
        key_var: String,
    },
    /// The endpoint answered 2xx with a body that is not JSON.
    NotJson {
        /// The request URL.
        url: String,
        /// The parser's complaint.
        reason: String,
    },
}

impl fmt::Display for ExchangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Connect { url, reason } => write!(
                f,
                "cannot reach {url}: {reason}; check --base-url and that the server is up"
            ),
            Self::Status {
                status,
                url,
                message,
                key_var,
            } => {
                let hint = match status.as_u16() {
                    401 | 403 => format!("check the key in {key_var}"),
                    404 => "check --base-url and --model".to_string(),
                    429 => "rate limited or out of quota: wait, or check the account".to_string(),
                    500..=599 => "the provider failed: try again later".to_string(),
                    _ => "the request was refused".to_string(),
                };
                write!(f, "{url} answered HTTP {status}: {message} ({hint})")
            }
            Self::NotJson { url, reason } => {
                write!(f, "{url} answered with a body that is not JSON: {reason}")
            }
        }
    }
}

impl std::error::Error for ExchangeError {}
