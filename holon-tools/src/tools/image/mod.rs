//! The image plane: look at images in the workspace (ViewImage) and generate new ones
//! with an image provider (GenerateImage).

pub mod decode;
mod generate_image;
mod provider;
mod view_image;

use std::path::Path;

use holon_core::prelude::*;

use decode::ImageProblem;
use holon_gates::fs::{RelPath, RootDir};
use holon_runtime::Runtime;

pub use generate_image::{
    GenerateImageArgs, GeneratedImage, ImageBackground, ImageFileFormat, ImageSize,
};
pub use view_image::{ImageView, ViewImageArgs};

/// The root handle and the path beneath it that `path` (relative to the workspace
/// root, or absolute) names inside the workspace or the media directory, where
/// GenerateImage saves its files. Nothing is opened yet: the gate reads beneath the
/// handle.
fn locate_image(rt: &Runtime, path: &str, field: &str) -> Result<(RootDir, RelPath), ToolError> {
    let requested = Path::new(path);
    let roots = rt.workspace_roots();
    let escape = match roots.locate(requested, true) {
        Ok((index, rel)) => return Ok((roots.dirs()[index].clone(), rel)),
        Err(escape) => escape,
    };
    if requested.is_absolute()
        && let Some(root) = rt.media().open_existing()
        && let Some(rel) = requested
            .strip_prefix(root.path())
            .ok()
            .and_then(RelPath::normalize)
    {
        return Ok((root, rel));
    }
    Err(ToolError::new(
        ToolErrorKind::new("path_outside_workspace"),
        format!("`{path}` is refused: {escape}"),
    )
    .with_field(field)
    .with_hint("give a path relative to the workspace root that stays inside it, or a file GenerateImage saved"))
}

/// A path as the result shows it: relative to the workspace root when inside it.
fn display_path(rt: &Runtime, path: &Path) -> String {
    let roots = rt.workspace_roots();
    path.strip_prefix(roots.active())
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// The typed error for bytes that are not a usable image.
fn image_error(problem: ImageProblem, what: &str, field: Option<&str>) -> ToolError {
    let (kind, hint) = match &problem {
        ImageProblem::NotAnImage => (
            "not_an_image",
            "give the path of a PNG, JPEG, GIF or WebP file; read text files with a text tool",
        ),
        ImageProblem::Unsupported(_) => (
            "unsupported_image_format",
            "convert it to PNG or JPEG first (for example with ImageMagick's `convert`)",
        ),
        ImageProblem::Invalid(_) => (
            "invalid_image",
            "the file is damaged or still being written; check it or produce it again",
        ),
        ImageProblem::TooLarge(_) | ImageProblem::TooManyPixels { .. } => (
            "image_too_large",
            "scale the image down first (for example with ImageMagick's `convert -resize`)",
        ),
    };
    let mut error =
        ToolError::new(ToolErrorKind::new(kind), format!("{what}: {problem}")).with_hint(hint);
    if let ImageProblem::TooManyPixels { width, height } = problem {
        error = error.with_details(serde_json::json!({
            "width": width,
            "height": height,
            "max_side": decode::MAX_DECODE_SIDE,
            "max_pixels": decode::MAX_DECODE_PIXELS,
        }));
    }
    match field {
        Some(field) => error.with_field(field),
        None => error,
    }
}
