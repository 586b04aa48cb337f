//! `GenerateImage`: have the configured image provider draw an image, and save it.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use holon_core::prelude::*;

use super::provider::{self, Options};
use super::{decode, display_path, image_error};
use holon_runtime::Runtime;

/// The size of the image, in pixels (width x height).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
pub enum ImageSize {
    /// The provider chooses.
    #[serde(rename = "auto")]
    Auto,
    /// Square.
    #[serde(rename = "1024x1024")]
    Square1024,
    /// Landscape.
    #[serde(rename = "1536x1024")]
    Landscape1536x1024,
    /// Portrait.
    #[serde(rename = "1024x1536")]
    Portrait1024x1536,
}

/// The background of the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum ImageBackground {
    /// The provider chooses.
    Auto,
    /// Transparent (needs `png` or `webp`).
    Transparent,
    /// Opaque.
    Opaque,
}

/// The file format of the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
pub enum ImageFileFormat {
    /// PNG (lossless; supports transparency).
    Png,
    /// JPEG (smaller; no transparency).
    Jpeg,
    /// WebP (supports transparency).
    Webp,
}

fn wire<T: Serialize>(value: Option<T>) -> Option<String> {
    value.and_then(|v| serde_json::to_value(v).ok()?.as_str().map(str::to_string))
}

/// Arguments of GenerateImage.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct GenerateImageArgs {
    /// What the image should show: subject, composition, style, colours, any text in it.
    #[schemars(length(min = 1, max = 32000))]
    pub prompt: String,
    /// Width x height in pixels. Defaults to the provider's choice.
    #[serde(default)]
    pub size: Option<ImageSize>,
    /// Transparent or opaque background. Defaults to the provider's choice.
    #[serde(default)]
    pub background: Option<ImageBackground>,
    /// The file format. Defaults to the provider's (PNG for OpenAI).
    #[serde(default)]
    pub output_format: Option<ImageFileFormat>,
    /// A short file name for the image, without extension: letters, digits, `-` and
    /// `_`. A timestamp is added so nothing is overwritten. Defaults to `image`.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64), pattern(r"^[A-Za-z0-9][A-Za-z0-9_-]*$"))]
    pub name: Option<String>,
}

/// The saved image.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GeneratedImage {
    /// Where the image was saved: relative to the workspace root when inside it,
    /// else absolute. Pass it to ViewImage to look at it.
    pub file: String,
    /// The image's format, from its content: `png`, `jpeg` or `webp`.
    pub format: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Size of the file in bytes.
    pub file_bytes: usize,
    /// The model that drew it.
    pub model: String,
    /// The prompt as the provider rewrote it, when it says.
    pub revised_prompt: Option<String>,
}

/// Generate an image from a text prompt with the configured image provider and save
/// it as a file.
///
/// Describe the image in `prompt`; optionally choose `size` (`1024x1024`,
/// `1536x1024`, `1024x1536` or `auto`), `background` (`transparent` needs `png` or
/// `webp`) and `output_format`, and a `name` for the file. The image is saved in the
/// runtime's media directory and the result gives its path as an artifact, with its
/// format and size; call ViewImage on that path to look at it. Generation can take a
/// minute. Without a configured provider the call fails with
/// `image_provider_not_configured`, saying what the operator must set.
#[holon_tool(
    family = LocalEnvironment,
    keywords = ["draw", "picture", "illustration", "text to image", "logo", "artwork", "render"],
    annotations(open_world)
)]
async fn generate_image(
    rt: &Runtime,
    args: GenerateImageArgs,
) -> Result<ToolOutput<GeneratedImage>, ToolError> {
    if args.background == Some(ImageBackground::Transparent)
        && args.output_format == Some(ImageFileFormat::Jpeg)
    {
        return Err(ToolError::invalid_input(
            "a transparent background needs `output_format` png or webp; JPEG has no transparency",
        )
        .with_field("background")
        .with_hint("set output_format to png or webp, or background to opaque"));
    }
    if rt.images().api_base.is_none() {
        return Err(provider::not_configured());
    }
    let size = wire(args.size);
    let background = wire(args.background);
    let output_format = wire(args.output_format);
    let options = Options {
        size: size.as_deref(),
        background: background.as_deref(),
        output_format: output_format.as_deref(),
    };
    let generation = provider::generate(
        rt.images(),
        rt.net(),
        &rt.web().private_addresses,
        &args.prompt,
        &options,
    )
    .await?;
    let probe = decode::probe(&generation.bytes).map_err(|problem| {
        let error = image_error(problem, "the image provider's file is unusable", None);
        provider::bad_response(error.message)
    })?;
    let format = decode::format_name(probe.format);
    let saved = save(
        rt,
        args.name.as_deref(),
        decode::extension(probe.format),
        &generation.bytes,
    )?;
    let file = display_path(rt, &saved);
    let result = GeneratedImage {
        file: file.clone(),
        format: format.to_string(),
        mime_type: probe.format.to_mime_type().to_string(),
        width: probe.width,
        height: probe.height,
        file_bytes: generation.bytes.len(),
        model: rt.images().model.clone(),
        revised_prompt: generation.revised_prompt,
    };
    let summary = format!(
        "image saved to {file} ({format}, {}x{} px)",
        probe.width, probe.height
    );
    Ok(ToolOutput::new(result)
        .with_artifact(saved.to_string_lossy(), "image")
        .with_summary(summary))
}

/// Writes the image under the media directory with a new name; never overwrites.
fn save(
    rt: &Runtime,
    name: Option<&str>,
    extension: &str,
    bytes: &[u8],
) -> Result<PathBuf, ToolError> {
    let io_error = |path: &Path, error: std::io::Error| {
        ToolError::new(
            ToolErrorKind::new("image_save_failed"),
            format!("saving the image to {} failed: {error}", path.display()),
        )
        .with_hint("ask the operator to check the media directory (--media-dir) and free space")
    };
    let stem: String = name
        .unwrap_or("image")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(64)
        .collect();
    let stem = if stem.is_empty() {
        "image".to_string()
    } else {
        stem
    };
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    for attempt in 0..100u32 {
        let suffix = if attempt == 0 {
            String::new()
        } else {
            format!("-{attempt}")
        };
        let file = format!("{stem}-{stamp}{suffix}.{extension}");
        match rt.media().write_new(file.as_ref(), bytes) {
            Ok(path) => return Ok(path),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => {
                let dir = rt
                    .media()
                    .open_existing()
                    .map(|dir| dir.path().to_path_buf())
                    .unwrap_or_default();
                return Err(io_error(&dir.join(&file), error));
            }
        }
    }
    Err(io_error(
        Path::new("the media directory"),
        std::io::Error::other("no free file name after 100 attempts"),
    ))
}
