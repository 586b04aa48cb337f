//! ViewImage through `registry.dispatch`, on real image files in a temporary
//! workspace.

use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_runtime::{Runtime, RuntimeConfig};
use holon_tools::tools::image::decode;
use image::{DynamicImage, ImageFormat, RgbImage, RgbaImage};
use serde_json::{Value, json};

fn workspace() -> (tempfile::TempDir, Arc<Runtime>) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = Runtime::open(RuntimeConfig::in_memory(dir.path())).unwrap();
    (dir, runtime)
}

fn encoded(image: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut bytes), format)
        .unwrap();
    bytes
}

fn gradient(width: u32, height: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
    }))
}

async fn view(runtime: &Arc<Runtime>, input: Value) -> Value {
    let context = runtime.context(FamilyPolicy::all());
    let result = Registry::global()
        .dispatch(&context, ToolCall::new("ViewImage", input))
        .await;
    serde_json::to_value(&result).unwrap()
}

fn error_kind(envelope: &Value) -> &str {
    envelope["error"]["kind"].as_str().unwrap_or("")
}

fn image_block(envelope: &Value) -> (String, Vec<u8>) {
    let block = envelope["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|block| block["type"] == "image")
        .unwrap_or_else(|| panic!("no image block: {envelope}"));
    let data = base64::engine::general_purpose::STANDARD
        .decode(block["data"].as_str().unwrap())
        .unwrap();
    (block["mime_type"].as_str().unwrap().to_string(), data)
}

#[tokio::test]
async fn an_image_comes_back_as_an_image_block_with_its_metadata() {
    let (dir, runtime) = workspace();
    std::fs::create_dir(dir.path().join("img")).unwrap();
    let png = encoded(gradient(64, 32), ImageFormat::Png);
    std::fs::write(dir.path().join("img/chart.png"), &png).unwrap();
    let envelope = view(
        &runtime,
        json!({ "path": "img/chart.png", "prompt": "what does the chart show?" }),
    )
    .await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    let shown = &envelope["structured"];
    assert_eq!(shown["file"], "img/chart.png");
    assert_eq!(shown["format"], "png");
    assert_eq!(
        (shown["width"].as_u64(), shown["height"].as_u64()),
        (Some(64), Some(32))
    );
    assert_eq!(shown["file_bytes"], png.len());
    assert_eq!(shown["downscaled"], false);
    let (mime, data) = image_block(&envelope);
    assert_eq!(mime, "image/png");
    assert_eq!(data, png, "a small image is sent unchanged");
    let receipt = envelope["receipt"].as_str().unwrap();
    assert!(receipt.contains("what does the chart show?"), "{receipt}");

    // Absolute paths inside the workspace work too; the prompt is optional.
    let absolute = dir.path().join("img/chart.png");
    let envelope = view(&runtime, json!({ "path": absolute })).await;
    assert_eq!(envelope["status"], "success", "{envelope}");
}

#[tokio::test]
async fn the_format_comes_from_the_content_not_the_name() {
    let (dir, runtime) = workspace();
    let jpeg = encoded(gradient(40, 30), ImageFormat::Jpeg);
    std::fs::write(dir.path().join("photo.png"), &jpeg).unwrap();
    let gif = encoded(gradient(10, 10), ImageFormat::Gif);
    std::fs::write(dir.path().join("anim"), &gif).unwrap();
    let webp = encoded(
        DynamicImage::ImageRgba8(RgbaImage::from_pixel(12, 8, image::Rgba([1, 2, 3, 255]))),
        ImageFormat::WebP,
    );
    std::fs::write(dir.path().join("pic.webp"), &webp).unwrap();
    for (path, format, mime) in [
        ("photo.png", "jpeg", "image/jpeg"),
        ("anim", "gif", "image/gif"),
        ("pic.webp", "webp", "image/webp"),
    ] {
        let envelope = view(&runtime, json!({ "path": path })).await;
        assert_eq!(envelope["structured"]["format"], format, "{envelope}");
        assert_eq!(image_block(&envelope).0, mime);
    }
}

#[tokio::test]
async fn large_images_are_downscaled_to_the_cap() {
    let (dir, runtime) = workspace();
    std::fs::write(
        dir.path().join("wide.png"),
        encoded(gradient(2600, 400), ImageFormat::Png),
    )
    .unwrap();
    let envelope = view(&runtime, json!({ "path": "wide.png" })).await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    let shown = &envelope["structured"];
    assert_eq!(shown["width"], 2600);
    assert_eq!(shown["downscaled"], true);
    assert_eq!(shown["sent_width"], 2048);
    assert_eq!(shown["sent_height"], 315);
    let (mime, data) = image_block(&envelope);
    assert_eq!(mime, shown["sent_mime_type"].as_str().unwrap());
    let sent = decode::probe(&data).unwrap();
    assert_eq!((sent.width, sent.height), (2048, 315));
}

#[test]
fn fit_reencodes_until_the_byte_cap_holds() {
    // Noise compresses badly: PNG is far over the cap, so it is made smaller (area
    // sampling smooths it, so the smaller PNG may already fit).
    let mut state = 0x2545_f491_u32;
    let noise = RgbImage::from_fn(300, 300, |_, _| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let [a, b, c, _] = state.to_le_bytes();
        image::Rgb([a, b, c])
    });
    let png = encoded(DynamicImage::ImageRgb8(noise), ImageFormat::Png);
    let probe = decode::probe(&png).unwrap();
    let fitted = decode::fit(&png, probe, 2048, 20_000).unwrap();
    assert!(fitted.bytes.len() <= 20_000, "{}", fitted.bytes.len());
    assert!(matches!(
        fitted.format,
        ImageFormat::Jpeg | ImageFormat::Png
    ));
    assert!(fitted.width < 300);
    let sent = decode::probe(&fitted.bytes).unwrap();
    assert_eq!((sent.width, sent.height), (fitted.width, fitted.height));
}

#[tokio::test]
async fn files_that_are_not_images_get_typed_errors() {
    let (dir, runtime) = workspace();
    std::fs::write(
        dir.path().join("notes.png"),
        "just text, named like an image\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("empty.png"), "").unwrap();
    let mut bmp = b"BM".to_vec();
    bmp.resize(64, 0);
    std::fs::write(dir.path().join("old.bmp"), bmp).unwrap();
    let mut broken = encoded(gradient(50, 50), ImageFormat::Png);
    broken.truncate(40);
    broken.extend_from_slice(b"garbage");
    std::fs::write(dir.path().join("broken.png"), broken).unwrap();
    std::fs::create_dir(dir.path().join("folder")).unwrap();
    for (path, kind) in [
        ("notes.png", "not_an_image"),
        ("empty.png", "not_an_image"),
        ("old.bmp", "unsupported_image_format"),
        ("broken.png", "invalid_image"),
        ("missing.png", "file_not_found"),
        ("folder", "not_a_file"),
    ] {
        let envelope = view(&runtime, json!({ "path": path })).await;
        assert_eq!(error_kind(&envelope), kind, "{path}: {envelope}");
        assert_eq!(envelope["error"]["field"], "path");
        assert!(envelope["error"]["recovery_hint"].is_string());
    }
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let (dir, runtime) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let png = encoded(gradient(8, 8), ImageFormat::Png);
    std::fs::write(outside.path().join("secret.png"), &png).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        outside.path().join("secret.png"),
        dir.path().join("link.png"),
    )
    .unwrap();
    let outside_absolute = outside.path().join("secret.png");
    let mut cases = vec![
        json!("../secret.png"),
        json!(outside_absolute),
        json!(Path::new("sub/../../x.png")),
    ];
    if cfg!(unix) {
        cases.push(json!("link.png"));
    }
    for path in cases {
        let envelope = view(&runtime, json!({ "path": path })).await;
        assert_eq!(
            error_kind(&envelope),
            "path_outside_workspace",
            "{path}: {envelope}"
        );
        assert_eq!(envelope["error"]["field"], "path");
    }
}

#[tokio::test]
async fn bad_inputs_are_refused_before_the_handler() {
    let (_dir, runtime) = workspace();
    for (input, kind) in [
        (json!({}), "invalid_tool_input"),
        (json!({ "path": "" }), "invalid_tool_input"),
        (json!({ "path": 5 }), "invalid_tool_input"),
        (
            json!({ "path": "a.png", "detail": "high" }),
            "unknown_field",
        ),
    ] {
        let envelope = view(&runtime, input.clone()).await;
        assert_eq!(error_kind(&envelope), kind, "{input}: {envelope}");
    }
}
