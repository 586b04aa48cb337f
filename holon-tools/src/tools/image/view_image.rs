//! `ViewImage`: put an image file in front of the model.

use base64::Engine as _;
use holon_core::prelude::*;

use super::decode::{self, Probe};
use super::{display_path, image_error, locate_image};
use holon_gates::fs::{FsError, RelPath, RootDir};
use holon_runtime::Runtime;

/// The longest side of an image as the model receives it, in pixels; larger images
/// are downscaled.
pub const MAX_VIEW_SIDE: u32 = 2048;

/// The largest image sent to the model, in bytes (about 5 MB once base64-encoded);
/// larger images are re-encoded smaller.
pub const MAX_VIEW_BYTES: usize = 3_750_000;

/// The largest file ViewImage reads, in bytes; larger files are refused.
pub const MAX_IMAGE_FILE_BYTES: u64 = 50 * 1024 * 1024;

/// Arguments of ViewImage.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct ViewImageArgs {
    /// The image file: relative to the workspace root, or absolute inside the
    /// workspace (files GenerateImage saved are accepted too). PNG, JPEG, GIF or WebP,
    /// recognized by content, not by name.
    #[schemars(length(min = 1))]
    pub path: String,
    /// What to look for in the image. It is shown next to the image so the question
    /// stays attached to it.
    #[serde(default)]
    pub prompt: Option<String>,
}

/// What was shown.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ImageView {
    /// The file, relative to the workspace root when inside it.
    pub file: String,
    /// The file's format, from its content: `png`, `jpeg`, `gif` or `webp`.
    pub format: String,
    /// The file's width in pixels.
    pub width: u32,
    /// The file's height in pixels.
    pub height: u32,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// Whether the image was downscaled or re-encoded before sending.
    pub downscaled: bool,
    /// The MIME type of the image block sent.
    pub sent_mime_type: String,
    /// Width of the image sent, in pixels.
    pub sent_width: u32,
    /// Height of the image sent, in pixels.
    pub sent_height: u32,
    /// Size of the image sent, in bytes (before base64).
    pub sent_bytes: usize,
}

/// Look at an image file: the result carries the image itself, so you see it.
///
/// Give the `path` of a PNG, JPEG, GIF or WebP file inside the workspace, and
/// optionally a `prompt` saying what to look for. The format is recognized from the
/// file's content. The result has the image (base64 with its MIME type) plus its
/// format, size in pixels and bytes. Images larger than 2048 pixels on a side or
/// about 3.7 MB are downscaled (and re-encoded as PNG, or JPEG for photos) before
/// sending; `downscaled` says so. Files over 50 MB are refused, and so are images of
/// more than 40 megapixels or 20000 pixels a side (`image_too_large`), files that are
/// not images (`not_an_image`) and paths outside the workspace.
#[holon_tool(
    family = LocalEnvironment,
    keywords = ["screenshot", "photo", "picture", "look at", "png", "jpeg", "vision"],
    stability = experimental,
    annotations(read_only, idempotent, open_world = false)
)]
async fn view_image(rt: &Runtime, args: ViewImageArgs) -> Result<ToolOutput<ImageView>, ToolError> {
    let (root, rel) = locate_image(rt, &args.path, "path")?;
    let file = display_path(rt, &root.path().join(rel.to_path_buf()));
    let path = args.path.clone();
    // The slot goes into the blocking task: a cancelled call frees it only when the
    // decoding it started has ended.
    let slot = decode::decode_slot().await;
    let loaded = tokio::task::spawn_blocking(move || {
        let loaded = load(&root, &rel, &path);
        drop(slot);
        loaded
    })
    .await
    .map_err(|error| {
        ToolError::new(
            ToolErrorKind::new("image_io_error"),
            format!("reading the image failed: {error}"),
        )
        .retryable()
    })??;
    let Loaded {
        probe,
        file_bytes,
        sent,
    } = loaded;
    let view = ImageView {
        file,
        format: decode::format_name(probe.format).to_string(),
        width: probe.width,
        height: probe.height,
        file_bytes,
        downscaled: sent.downscaled,
        sent_mime_type: sent.format.to_mime_type().to_string(),
        sent_width: sent.width,
        sent_height: sent.height,
        sent_bytes: sent.bytes.len(),
    };
    let mut receipt = format!(
        "Image {} ({}, {}x{} px, {} bytes)",
        view.file, view.format, view.width, view.height, view.file_bytes
    );
    if view.downscaled {
        receipt.push_str(&format!(
            "; sent downscaled to {}x{} px {} ({} bytes)",
            view.sent_width, view.sent_height, view.sent_mime_type, view.sent_bytes
        ));
    }
    if let Some(prompt) = args.prompt.as_deref().filter(|p| !p.trim().is_empty()) {
        receipt.push_str(&format!("\nLook for: {prompt}"));
    }
    let summary = format!("image {} attached", view.file);
    let block = ContentBlock::Image {
        mime_type: view.sent_mime_type.clone(),
        data: base64::engine::general_purpose::STANDARD.encode(&sent.bytes),
    };
    Ok(ToolOutput::new(view)
        .with_content(block)
        .with_summary(summary)
        .with_receipt(receipt))
}

/// The image as sent.
struct Sent {
    bytes: Vec<u8>,
    format: image::ImageFormat,
    width: u32,
    height: u32,
    downscaled: bool,
}

struct Loaded {
    probe: Probe,
    file_bytes: u64,
    sent: Sent,
}

fn load(root: &RootDir, rel: &RelPath, path: &str) -> Result<Loaded, ToolError> {
    let file = root
        .read_beneath(rel, MAX_IMAGE_FILE_BYTES)
        .map_err(|error| match error {
            FsError::TooLarge { size, .. } => ToolError::new(
                ToolErrorKind::new("image_too_large"),
                format!("`{path}` has {size} bytes; ViewImage reads files of at most {MAX_IMAGE_FILE_BYTES} bytes"),
            )
            .with_hint("scale the image down first (for example with ImageMagick's `convert -resize 2048x2048`)"),
            FsError::Io { source, .. } => ToolError::new(
                ToolErrorKind::new("image_io_error"),
                format!("cannot read `{path}`: {source}"),
            )
            .with_hint("check the file's permissions"),
            error => {
                let mut refused = ToolError::from(error);
                refused.message = format!("`{path}` cannot be viewed: {}", refused.message);
                refused
            }
        })
        .map_err(|error| error.with_field("path"))?;
    let file_bytes = file.bytes.len() as u64;
    let bytes = file.bytes;
    let what = format!("`{path}` cannot be viewed");
    let probe =
        decode::probe(&bytes).map_err(|problem| image_error(problem, &what, Some("path")))?;
    let fits = probe.width.max(probe.height) <= MAX_VIEW_SIDE && bytes.len() <= MAX_VIEW_BYTES;
    let sent = if fits {
        Sent {
            format: probe.format,
            width: probe.width,
            height: probe.height,
            downscaled: false,
            bytes,
        }
    } else {
        let fitted = decode::fit(&bytes, probe, MAX_VIEW_SIDE, MAX_VIEW_BYTES)
            .map_err(|problem| image_error(problem, &what, Some("path")))?;
        Sent {
            format: fitted.format,
            width: fitted.width,
            height: fitted.height,
            downscaled: true,
            bytes: fitted.bytes,
        }
    };
    Ok(Loaded {
        probe,
        file_bytes,
        sent,
    })
}
