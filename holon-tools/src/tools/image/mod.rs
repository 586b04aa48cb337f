//! The image plane: look at images in the workspace (ViewImage) and generate new ones
//! with an image provider (GenerateImage).

pub mod decode;
mod generate_image;
mod provider;
mod view_image;

use std::path::{Path, PathBuf};

use holon_core::prelude::*;

use crate::runtime::Runtime;
use decode::ImageProblem;

pub use generate_image::{
    GenerateImageArgs, GeneratedImage, ImageBackground, ImageFileFormat, ImageSize,
};
pub use view_image::{ImageView, ViewImageArgs};

/// Resolves `path` (relative to the workspace root, or absolute) inside the workspace
/// or the media directory, where GenerateImage saves its files.
fn resolve_image_path(rt: &Runtime, path: &str, field: &str) -> Result<PathBuf, ToolError> {
    let requested = Path::new(path);
    let escape = match rt.workspace_roots().resolve(requested, true) {
        Ok(resolved) => return Ok(resolved),
        Err(escape) => escape,
    };
    if requested.is_absolute()
        && let Ok(canonical) = requested.canonicalize()
        && rt.media().contains(&canonical)
    {
        return Ok(canonical);
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
        ImageProblem::TooLarge(_) => (
            "image_too_large",
            "scale the image down first (for example with ImageMagick's `convert -resize`)",
        ),
    };
    let error =
        ToolError::new(ToolErrorKind::new(kind), format!("{what}: {problem}")).with_hint(hint);
    match field {
        Some(field) => error.with_field(field),
        None => error,
    }
}
