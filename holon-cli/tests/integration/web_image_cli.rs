//! The web and image settings reach the tools from the CLI's flags and environment.

use std::process::Output;

use holon_tool_fixtures::web_server::{Reply, serve};
use serde_json::{Value, json};

const SETTINGS: [&str; 17] = [
    "HOLON_SEARCH_URL",
    "HOLON_WEB_ALLOW_PRIVATE",
    "HOLON_WEB_PROXY_FROM_ENV",
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "HOLON_IMAGE_API_BASE",
    "HOLON_IMAGE_API_KEY",
    "HOLON_IMAGE_MODEL",
    "HOLON_MEDIA_DIR",
    "HOLON_XAI_API_BASE",
    "HOLON_XAI_API_KEY",
    "HOLON_XAI_MODEL",
    "HOLON_CA_FILE",
];

/// Runs `holon-tools` in a fresh workspace with only `env` of the settings set.
async fn holon(args: Vec<String>, env: Vec<(&'static str, String)>) -> (Output, Value) {
    let output = tokio::task::spawn_blocking(move || {
        let workspace = tempfile::tempdir().unwrap();
        let mut command = crate::cli_support::holon_command(workspace.path());
        for name in SETTINGS {
            command.env_remove(name);
        }
        command.envs(env).args(args);
        command.output().unwrap()
    })
    .await
    .unwrap();
    let envelope = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output, envelope)
}

fn call(name: &str, input: Value) -> Vec<String> {
    vec![
        "call".into(),
        name.into(),
        input.to_string(),
        "--json".into(),
    ]
}

#[tokio::test]
async fn the_private_address_switch_comes_from_flag_or_environment() {
    let server = serve(|_, _| Reply::html("<h1>local page</h1>")).await;
    let input = json!({ "url": server.url("/") });
    let (output, refused) = holon(call("WebFetch", input.clone()), vec![]).await;
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(refused["error"]["kind"], "address_refused", "{refused}");

    let mut args = vec!["--web-allow-private".to_string(), "true".to_string()];
    args.extend(call("WebFetch", input.clone()));
    let (output, fetched) = holon(args, vec![]).await;
    assert_eq!(output.status.code(), Some(0), "{fetched}");
    assert!(
        fetched["structured"]["content"]
            .as_str()
            .unwrap()
            .contains("local page")
    );

    let env = vec![("HOLON_WEB_ALLOW_PRIVATE", "127.0.0.1".to_string())];
    let (output, fetched) = holon(call("WebFetch", input), env).await;
    assert_eq!(output.status.code(), Some(0), "{fetched}");

    let mut bad = vec!["--web-allow-private".to_string(), "maybe".to_string()];
    bad.extend(call("WebFetch", json!({ "url": "http://127.0.0.1/" })));
    let (output, _) = holon(bad, vec![]).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("neither true/false"));
}

#[tokio::test]
async fn search_and_image_providers_come_from_the_environment() {
    let png = {
        let mut bytes = Vec::new();
        image::DynamicImage::ImageRgb8(image::RgbImage::new(4, 4))
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )
            .unwrap();
        bytes
    };
    let server = serve(move |seen, _| match seen.path() {
        "/search" => Reply::json(
            200,
            &json!({ "results": [{ "url": "https://example.org/", "title": "Example", "content": "x" }] }),
        ),
        _ => {
            use base64::Engine as _;
            let data = base64::engine::general_purpose::STANDARD.encode(&png);
            Reply::json(200, &json!({ "data": [{ "b64_json": data }] }))
        }
    })
    .await;

    let (output, missing) = holon(call("WebSearch", json!({ "query": "x" })), vec![]).await;
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(missing["error"]["kind"], "search_provider_not_configured");
    let env = vec![(
        "HOLON_SEARCH_URL",
        format!("local={}", server.url("/search")),
    )];
    let (output, found) = holon(call("WebSearch", json!({ "query": "x" })), env).await;
    assert_eq!(output.status.code(), Some(0), "{found}");
    assert_eq!(found["structured"]["searched_with"], "local");

    let (output, missing) = holon(call("GenerateImage", json!({ "prompt": "x" })), vec![]).await;
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(missing["error"]["kind"], "image_provider_not_configured");
    let env = vec![
        ("HOLON_IMAGE_API_BASE", server.url("/v1")),
        ("HOLON_IMAGE_API_KEY", "cli-key".to_string()),
        ("HOLON_IMAGE_MODEL", "cli-model".to_string()),
    ];
    let (output, generated) = holon(call("GenerateImage", json!({ "prompt": "x" })), env).await;
    assert_eq!(output.status.code(), Some(0), "{generated}");
    assert_eq!(generated["structured"]["model"], "cli-model");
    assert!(
        generated["structured"]["file"]
            .as_str()
            .unwrap()
            .starts_with(".holon/media/")
    );
    let seen = server.requests();
    let request = seen
        .iter()
        .find(|s| s.path() == "/v1/images/generations")
        .unwrap();
    assert_eq!(request.header("authorization"), Some("Bearer cli-key"));
}

#[tokio::test]
async fn the_environments_proxy_is_used_only_when_the_operator_opts_in() {
    let target = serve(|_, _| Reply::html("<p>direct page</p>")).await;
    // A forward proxy gets the absolute URL as its request target.
    let proxy = serve(|_, _| Reply::html("<p>via proxy</p>")).await;
    let proxy_env = || {
        vec![
            ("HTTP_PROXY", format!("http://{}", proxy.addr)),
            ("HOLON_WEB_ALLOW_PRIVATE", "true".to_string()),
        ]
    };
    let input = json!({ "url": target.url("/page") });
    let content = |envelope: &Value| {
        envelope["structured"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };

    let (output, direct) = holon(call("WebFetch", input.clone()), proxy_env()).await;
    assert_eq!(output.status.code(), Some(0), "{direct}");
    assert!(content(&direct).contains("direct page"), "{direct}");
    assert!(
        proxy.requests().is_empty(),
        "the proxy was used without the opt-in"
    );

    let mut args = vec!["--web-proxy-from-env".to_string()];
    args.extend(call("WebFetch", input.clone()));
    let (output, proxied) = holon(args, proxy_env()).await;
    assert_eq!(output.status.code(), Some(0), "{proxied}");
    assert!(content(&proxied).contains("via proxy"), "{proxied}");
    assert_eq!(proxy.requests()[0].target, target.url("/page"));
    assert_eq!(
        target.requests().len(),
        1,
        "only the direct fetch reached the target"
    );

    // Through a proxy the gate still checks a name before handing it over.
    let env = vec![
        ("HTTP_PROXY", format!("http://{}", proxy.addr)),
        ("HOLON_WEB_PROXY_FROM_ENV", "true".to_string()),
    ];
    let named = json!({ "url": format!("http://localhost:{}/", target.addr.port()) });
    let (output, refused) = holon(call("WebFetch", named), env).await;
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(refused["error"]["kind"], "address_refused", "{refused}");
    assert_eq!(
        proxy.requests().len(),
        1,
        "the refused name went to the proxy"
    );
}
