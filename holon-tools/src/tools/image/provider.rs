//! The image provider: an OpenAI-compatible `POST {api_base}/images/generations`.

use base64::Engine as _;
use holon_core::prelude::*;
use serde_json::{Value, json};

use crate::tools::web::net_errors::{RATE_LIMITED_HINT, provider_status_error};
use holon_gates::net::{HttpClient, HttpRequest, NetError, NetGate, PrivateAddresses};
use holon_runtime::ImageConfig;
use holon_runtime::services::{
    IMAGE_API_BASE_ENV, IMAGE_API_KEY_ENV, IMAGE_MODEL_ENV, WEB_ALLOW_PRIVATE_ENV,
};

/// The largest provider response read, in bytes (base64 images are large).
const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// Options sent along with the prompt, as the API spells them.
#[derive(Debug, Default)]
pub struct Options<'a> {
    /// `size`, such as `1024x1024`.
    pub size: Option<&'a str>,
    /// `background`: `transparent`, `opaque` or `auto`.
    pub background: Option<&'a str>,
    /// `output_format`: `png`, `jpeg` or `webp`.
    pub output_format: Option<&'a str>,
}

/// What the provider returned.
#[derive(Debug)]
pub struct Generation {
    /// The image file's bytes.
    pub bytes: Vec<u8>,
    /// The prompt as the provider rewrote it, if it says.
    pub revised_prompt: Option<String>,
}

fn kind(name: &'static str) -> ToolErrorKind {
    ToolErrorKind::new(name)
}

/// The error of a GenerateImage call with no provider configured.
pub fn not_configured() -> ToolError {
    ToolError::new(
        kind("image_provider_not_configured"),
        format!(
            "GenerateImage has no image provider configured: set {IMAGE_API_BASE_ENV} (or --image-api-base) to an OpenAI-compatible images API such as https://api.openai.com/v1, and {IMAGE_API_KEY_ENV} to its API key; {IMAGE_MODEL_ENV} (or --image-model) picks the model"
        ),
    )
    .with_hint("ask the operator to configure an image provider; retrying will not help until then")
}

/// Asks the provider for one image. `web_policy` is the operator's private-address
/// policy for URLs that do not come from the operator (WebFetch's): an image the
/// provider gives by URL is downloaded under it, unless the URL is on the provider's
/// own origin.
pub async fn generate(
    config: &ImageConfig,
    gate: &NetGate,
    web_policy: &PrivateAddresses,
    prompt: &str,
    options: &Options<'_>,
) -> Result<Generation, ToolError> {
    let base = config.api_base.as_deref().ok_or_else(not_configured)?;
    let url = format!("{}/images/generations", base.trim_end_matches('/'));
    let mut body = json!({ "model": config.model, "prompt": prompt, "n": 1 });
    for (key, value) in [
        ("size", options.size),
        ("background", options.background),
        ("output_format", options.output_format),
    ] {
        if let Some(value) = value {
            body[key] = json!(value);
        }
    }
    let request = HttpRequest::post_json(&url, &body)
        .bearer(config.api_key.as_ref().map(|key| key.0.as_str()));
    let client = HttpClient::for_provider(config.timeout, MAX_RESPONSE_BYTES, 0, gate.clone());
    let response = client.send(request).await.map_err(net_error)?;
    if !(200..300).contains(&response.status) {
        return Err(status_error(response.status, &response.body));
    }
    if response.truncated {
        return Err(bad_response(format!(
            "the response is larger than {MAX_RESPONSE_BYTES} bytes"
        )));
    }
    let value: Value = serde_json::from_slice(&response.body)
        .map_err(|error| bad_response(format!("the response is not JSON: {error}")))?;
    let item = &value["data"][0];
    let revised_prompt = item["revised_prompt"].as_str().map(str::to_string);
    let bytes = if let Some(b64) = item["b64_json"].as_str() {
        base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .map_err(|error| bad_response(format!("`b64_json` is not base64: {error}")))?
    } else if let Some(image_url) = item["url"].as_str() {
        download(&client, base, web_policy, image_url).await?
    } else {
        return Err(bad_response(
            "`data[0]` has neither `b64_json` nor `url`".to_string(),
        ));
    };
    Ok(Generation {
        bytes,
        revised_prompt,
    })
}

/// Downloads an image the provider gave by URL. The URL is the provider's answer, not
/// the operator's choice: only the provider's own origin (scheme, host and port of
/// the configured API base) is exempt from `web_policy`, and a redirect from it is not
/// followed (it could lead anywhere); any other URL, and each of up to 3 redirects
/// from it, is checked against `web_policy` by the client, as WebFetch's are.
async fn download(
    client: &HttpClient,
    base: &str,
    web_policy: &PrivateAddresses,
    url: &str,
) -> Result<Vec<u8>, ToolError> {
    let (private_addresses, max_redirects) = if same_origin(base, url) {
        (client.private_addresses.clone(), 0)
    } else {
        (web_policy.clone(), 3)
    };
    let client = HttpClient {
        max_redirects,
        private_addresses,
        ..client.clone()
    };
    let response = client
        .send(HttpRequest::get(url))
        .await
        .map_err(download_error)?;
    if !(200..300).contains(&response.status) || response.truncated {
        let why = if response.truncated {
            " (too large)"
        } else if (300..400).contains(&response.status) && max_redirects == 0 {
            " (a redirect, which is not followed from the provider's own address)"
        } else {
            ""
        };
        return Err(bad_response(format!(
            "downloading the image from {url} answered HTTP {}{why}",
            response.status,
        )));
    }
    Ok(response.body)
}

/// Whether `url` has the origin of the API base `base`.
fn same_origin(base: &str, url: &str) -> bool {
    match (url::Url::parse(base), url::Url::parse(url)) {
        (Ok(base), Ok(url)) => base.origin() == url.origin(),
        _ => false,
    }
}

/// Why the image the provider gave by URL could not be downloaded.
fn download_error(error: NetError) -> ToolError {
    match error {
        NetError::InvalidUrl { .. } | NetError::UnsupportedScheme { .. } => {
            bad_response(format!("its image URL is unusable: {error}"))
        }
        NetError::AddressRefused { .. } => ToolError::new(
            kind("image_download_refused"),
            format!(
                "the image provider gave its image by a URL GenerateImage may not download: {error}; images are downloaded from the provider's own address and from public ones"
            ),
        )
        .with_hint(format!(
            "ask the operator to allow private addresses with {WEB_ALLOW_PRIVATE_ENV} (or --web-allow-private), or to configure a provider that answers with `b64_json`"
        )),
        other => net_error(other),
    }
}

/// A provider answer that is not what the API promises.
pub fn bad_response(detail: String) -> ToolError {
    ToolError::new(
        kind("image_provider_bad_response"),
        format!("the image provider's answer is unusable: {detail}"),
    )
    .with_hint("check that the configured provider speaks the OpenAI images API")
    .retryable()
}

fn net_error(error: NetError) -> ToolError {
    match error {
        NetError::InvalidUrl { .. } | NetError::UnsupportedScheme { .. } => ToolError::new(
            kind("image_provider_not_configured"),
            format!("the image provider address is wrong: {error}"),
        )
        .with_hint(format!(
            "ask the operator to set {IMAGE_API_BASE_ENV} to an http(s) URL"
        )),
        NetError::Timeout { .. } => ToolError::new(
            kind("image_provider_timeout"),
            format!("the image provider did not answer in time: {error}"),
        )
        .with_hint("try again, perhaps with a simpler prompt or a smaller size")
        .retryable(),
        other => ToolError::new(
            kind("image_provider_unreachable"),
            format!("the image provider cannot be reached: {other}"),
        )
        .with_hint("the provider may be down; try again later")
        .retryable(),
    }
}

fn status_error(status: u16, body: &[u8]) -> ToolError {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let detail = parsed
        .as_ref()
        .and_then(|v| v["error"]["message"].as_str().or(v["error"].as_str()))
        .map(str::to_string)
        .unwrap_or_else(|| {
            let text = String::from_utf8_lossy(body);
            text.chars().take(300).collect()
        });
    let hint = match status {
        401 | 403 => format!(
            "the provider refused the credentials; ask the operator to check {IMAGE_API_KEY_ENV}"
        ),
        400 | 422 => {
            "the provider refused the request; change the prompt or the options".to_string()
        }
        429 => RATE_LIMITED_HINT.to_string(),
        _ => "try again later".to_string(),
    };
    provider_status_error(
        kind("image_provider_error"),
        format!("the image provider answered HTTP {status}: {detail}"),
        status,
        hint,
    )
}
