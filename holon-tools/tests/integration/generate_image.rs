//! GenerateImage through `registry.dispatch`, against a local server that plays an
//! OpenAI-compatible image provider and returns a real PNG.

use std::io::Cursor;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_gates::net::PrivateAddresses;
use holon_runtime::{ApiKey, ImageConfig, Runtime, RuntimeConfig};
use holon_tool_fixtures::web_server::{Reply, Server, serve};
use image::{DynamicImage, ImageFormat, RgbaImage};
use serde_json::{Value, json};

fn png(width: u32, height: u32) -> Vec<u8> {
    let image = RgbaImage::from_fn(width, height, |x, y| {
        image::Rgba([
            (x * 4) as u8,
            (y * 4) as u8,
            200,
            if x < 4 { 0 } else { 255 },
        ])
    });
    let mut bytes = Vec::new();
    DynamicImage::ImageRgba8(image)
        .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
        .unwrap();
    bytes
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A runtime whose state (and so media) directory is inside the workspace.
fn runtime(images: ImageConfig) -> (tempfile::TempDir, Arc<Runtime>) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = holon_tool_fixtures::runtime::config_with_state_in(dir.path());
    config.images = images;
    (dir, Runtime::open(config).unwrap())
}

fn provider(base: String) -> ImageConfig {
    ImageConfig {
        api_base: Some(base),
        api_key: Some(ApiKey("test-key".to_string())),
        model: "test-image-model".to_string(),
        ..ImageConfig::default()
    }
}

async fn call(runtime: &Arc<Runtime>, name: &str, input: Value) -> Value {
    let context = runtime.context(FamilyPolicy::all());
    let result = Registry::global()
        .dispatch(&context, ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).unwrap()
}

fn error_kind(envelope: &Value) -> &str {
    envelope["error"]["kind"].as_str().unwrap_or("")
}

#[tokio::test]
async fn generates_an_image_and_saves_it_under_the_media_directory() {
    let image = png(48, 32);
    let reply_image = image.clone();
    let server = serve(move |seen, _| {
        if seen.method != "POST" || seen.path() != "/v1/images/generations" {
            return Reply::new(404, "text/plain", "no such endpoint");
        }
        Reply::json(
            200,
            &json!({
                "created": 1,
                "data": [{ "b64_json": b64(&reply_image), "revised_prompt": "a small gradient" }],
            }),
        )
    })
    .await;
    let (dir, runtime) = runtime(provider(server.url("/v1/")));
    let envelope = call(
        &runtime,
        "GenerateImage",
        json!({
            "prompt": "a gradient",
            "size": "1024x1024",
            "background": "transparent",
            "output_format": "png",
            "name": "hero_banner",
        }),
    )
    .await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    let generated = &envelope["structured"];
    assert_eq!(generated["format"], "png");
    assert_eq!(generated["mime_type"], "image/png");
    assert_eq!(
        (generated["width"].as_u64(), generated["height"].as_u64()),
        (Some(48), Some(32))
    );
    assert_eq!(generated["model"], "test-image-model");
    assert_eq!(generated["revised_prompt"], "a small gradient");
    let file = generated["file"].as_str().unwrap();
    assert!(
        file.starts_with(".holon/media/hero_banner-") && file.ends_with(".png"),
        "{file}"
    );
    assert_eq!(std::fs::read(dir.path().join(file)).unwrap(), image);

    let artifact = &envelope["artifacts"][0];
    assert_eq!(artifact["role"], "image");
    assert_eq!(
        std::fs::read(artifact["path"].as_str().unwrap()).unwrap(),
        image
    );

    let seen = server.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].header("authorization"), Some("Bearer test-key"));
    let sent: Value = serde_json::from_slice(&seen[0].body).unwrap();
    assert_eq!(
        sent,
        json!({
            "model": "test-image-model",
            "prompt": "a gradient",
            "n": 1,
            "size": "1024x1024",
            "background": "transparent",
            "output_format": "png",
        })
    );

    // The saved file is viewable.
    let viewed = call(&runtime, "ViewImage", json!({ "path": file })).await;
    assert_eq!(viewed["status"], "success", "{viewed}");
    assert_eq!(viewed["structured"]["width"], 48);
}

#[tokio::test]
async fn an_in_memory_runtime_saves_to_a_scratch_directory_viewimage_can_read() {
    let image = png(16, 16);
    let server =
        serve(move |_, _| Reply::json(200, &json!({ "data": [{ "b64_json": b64(&image) }] })))
            .await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = RuntimeConfig::in_memory(dir.path());
    config.images = ImageConfig {
        api_key: None,
        ..provider(server.url("/v1"))
    };
    let runtime = Runtime::open(config).unwrap();
    let envelope = call(&runtime, "GenerateImage", json!({ "prompt": "a dot" })).await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    let path = envelope["artifacts"][0]["path"].as_str().unwrap();
    assert!(!path.starts_with(dir.path().to_str().unwrap()), "{path}");
    assert!(path.contains("/image-"), "{path}");
    let sent: Value = serde_json::from_slice(&server.requests()[0].body).unwrap();
    assert_eq!(
        sent,
        json!({ "model": "test-image-model", "prompt": "a dot", "n": 1 })
    );
    assert_eq!(server.requests()[0].header("authorization"), None);

    let viewed = call(&runtime, "ViewImage", json!({ "path": path })).await;
    assert_eq!(viewed["status"], "success", "{viewed}");
}

/// A provider that gives its image by a URL on its own origin, `/files/out.png`,
/// which `file` answers.
async fn giving_a_url(file: impl Fn() -> Reply + Send + Sync + 'static) -> Server {
    serve(move |seen, addr| match seen.path() {
        "/files/out.png" => file(),
        _ => Reply::json(
            200,
            &json!({ "data": [{ "url": format!("http://{addr}/files/out.png") }] }),
        ),
    })
    .await
}

#[tokio::test]
async fn an_image_given_by_url_is_downloaded() {
    let image = png(20, 10);
    let server = giving_a_url(move || Reply::new(200, "image/png", image.clone())).await;
    let (_dir, runtime) = runtime(provider(server.url("/v1")));
    let envelope = call(&runtime, "GenerateImage", json!({ "prompt": "x" })).await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    assert_eq!(envelope["structured"]["width"], 20);
}

#[tokio::test]
async fn an_image_url_off_the_providers_origin_is_held_to_the_web_policy() {
    let image = png(20, 10);
    let elsewhere = serve(move |_, _| Reply::new(200, "image/png", image.clone())).await;
    let url = elsewhere.url("/out.png");
    let server = serve(move |_, _| Reply::json(200, &json!({ "data": [{ "url": url }] }))).await;

    // Another loopback server, as a metadata service would be: refused under the
    // default policy, and never asked.
    let (_dir, runtime) = runtime(provider(server.url("/v1")));
    let envelope = call(&runtime, "GenerateImage", json!({ "prompt": "x" })).await;
    assert_eq!(
        error_kind(&envelope),
        "image_download_refused",
        "{envelope}"
    );
    let hint = envelope["error"]["recovery_hint"].as_str().unwrap_or("");
    assert!(hint.contains("HOLON_WEB_ALLOW_PRIVATE"), "{envelope}");
    assert_eq!(envelope["error"]["retryable"], false);
    assert!(elsewhere.requests().is_empty());

    // The operator lets the web tools reach private addresses: then this one too.
    let dir = tempfile::tempdir().unwrap();
    let mut config = holon_tool_fixtures::runtime::config_with_state_in(dir.path());
    config.images = provider(server.url("/v1"));
    config.web.private_addresses = PrivateAddresses::Allow;
    let allowed = Runtime::open(config).unwrap();
    let envelope = call(&allowed, "GenerateImage", json!({ "prompt": "x" })).await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    assert_eq!(envelope["structured"]["width"], 20);
    assert_eq!(elsewhere.requests().len(), 1);
}

#[tokio::test]
async fn a_redirect_from_the_providers_own_origin_is_not_followed() {
    let image = png(20, 10);
    let elsewhere = serve(move |_, _| Reply::new(200, "image/png", image.clone())).await;
    let target = elsewhere.url("/out.png");
    let server = giving_a_url(move || Reply::redirect(302, &target)).await;
    let (_dir, runtime) = runtime(provider(server.url("/v1")));
    let envelope = call(&runtime, "GenerateImage", json!({ "prompt": "x" })).await;
    assert_eq!(
        error_kind(&envelope),
        "image_provider_bad_response",
        "{envelope}"
    );
    let message = envelope["error"]["message"].as_str().unwrap();
    assert!(message.contains("HTTP 302 (a redirect"), "{message}");
    assert!(elsewhere.requests().is_empty());
}

#[tokio::test]
async fn without_a_provider_it_says_exactly_what_to_configure() {
    let (_dir, runtime) = runtime(ImageConfig::default());
    let envelope = call(&runtime, "GenerateImage", json!({ "prompt": "a cat" })).await;
    assert_eq!(
        error_kind(&envelope),
        "image_provider_not_configured",
        "{envelope}"
    );
    let message = envelope["error"]["message"].as_str().unwrap();
    for name in [
        "HOLON_IMAGE_API_BASE",
        "HOLON_IMAGE_API_KEY",
        "HOLON_IMAGE_MODEL",
        "--image-api-base",
    ] {
        assert!(message.contains(name), "{name} missing from: {message}");
    }
    assert_eq!(envelope["error"]["retryable"], false);
}

#[tokio::test]
async fn a_down_slow_or_failing_provider_is_a_typed_error() {
    let down = format!(
        "http://127.0.0.1:{}/v1",
        holon_tool_fixtures::web_server::closed_port()
    );
    let (_down_dir, down_runtime) = runtime(provider(down));
    let envelope = call(&down_runtime, "GenerateImage", json!({ "prompt": "x" })).await;
    assert_eq!(
        error_kind(&envelope),
        "image_provider_unreachable",
        "{envelope}"
    );
    assert_eq!(envelope["error"]["retryable"], true);

    let server = serve(|seen, _| match seen.path() {
        "/slow/images/generations" => {
            Reply::json(200, &json!({ "data": [] })).delayed(Duration::from_secs(30))
        }
        "/refused/images/generations" => Reply::json(
            400,
            &json!({ "error": { "message": "Your request was rejected by the safety system." } }),
        ),
        "/overloaded/images/generations" => Reply::new(503, "text/plain", "overloaded"),
        "/unauthorized/images/generations" => {
            Reply::json(401, &json!({ "error": { "message": "Incorrect API key" } }))
        }
        "/text/images/generations" => Reply::json(
            200,
            &json!({ "data": [{ "b64_json": b64(b"not an image at all") }] }),
        ),
        _ => Reply::json(200, &json!({ "data": [{}] })),
    })
    .await;
    for (path, kind, retryable) in [
        ("slow", "image_provider_timeout", true),
        ("refused", "image_provider_error", false),
        ("overloaded", "image_provider_error", true),
        ("unauthorized", "image_provider_error", false),
        ("text", "image_provider_bad_response", true),
        ("empty", "image_provider_bad_response", true),
    ] {
        let (_dir, runtime) = runtime(ImageConfig {
            timeout: Duration::from_millis(200),
            ..provider(server.url(&format!("/{path}")))
        });
        let envelope = call(&runtime, "GenerateImage", json!({ "prompt": "x" })).await;
        assert_eq!(error_kind(&envelope), kind, "{path}: {envelope}");
        assert_eq!(
            envelope["error"]["retryable"], retryable,
            "{path}: {envelope}"
        );
        if path == "refused" {
            let message = envelope["error"]["message"].as_str().unwrap();
            assert!(message.contains("safety system"), "{message}");
        }
        if path == "unauthorized" {
            let hint = envelope["error"]["recovery_hint"].as_str().unwrap();
            assert!(hint.contains("HOLON_IMAGE_API_KEY"), "{hint}");
        }
    }
}

#[tokio::test]
async fn enums_and_names_are_checked_before_the_provider_is_called() {
    let server = serve(|_, _| Reply::json(500, &json!({}))).await;
    let (_dir, runtime) = runtime(provider(server.url("/v1")));
    for (input, field) in [
        (json!({ "prompt": "x", "size": "999x999" }), "size"),
        (
            json!({ "prompt": "x", "background": "glass" }),
            "background",
        ),
        (
            json!({ "prompt": "x", "output_format": "gif" }),
            "output_format",
        ),
        (json!({ "prompt": "x", "name": "../escape" }), "name"),
        (json!({ "prompt": "" }), "prompt"),
        (
            json!({ "prompt": "x", "background": "transparent", "output_format": "jpeg" }),
            "background",
        ),
    ] {
        let envelope = call(&runtime, "GenerateImage", input.clone()).await;
        assert_eq!(
            error_kind(&envelope),
            "invalid_tool_input",
            "{input}: {envelope}"
        );
        assert_eq!(envelope["error"]["field"], field, "{input}: {envelope}");
    }
    assert!(server.requests().is_empty(), "the provider was called");
}
