//! Image formats, sizes and downscaling, on the `image` crate with only the formats
//! the tools read and write (PNG, JPEG, GIF, WebP).

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};

/// The formats ViewImage and GenerateImage accept.
pub const SUPPORTED: [ImageFormat; 4] = [
    ImageFormat::Png,
    ImageFormat::Jpeg,
    ImageFormat::Gif,
    ImageFormat::WebP,
];

/// The longest side of a decoded image, in pixels; larger files are refused before
/// their pixels are allocated.
pub const MAX_DECODE_SIDE: u32 = 20_000;

/// Memory the decoder may allocate at most.
pub const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;

/// JPEG quality of re-encoded images.
const JPEG_QUALITY: u8 = 85;

/// What an image file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The format, from the file's content (not its name).
    pub format: ImageFormat,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Why bytes are not a usable image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageProblem {
    /// No known image signature.
    NotAnImage,
    /// An image format the tools do not read.
    Unsupported(&'static str),
    /// The signature is an image's, but the data does not decode.
    Invalid(String),
    /// It is larger than the decoder limits.
    TooLarge(String),
}

impl std::fmt::Display for ImageProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotAnImage => f.write_str("its content is not a PNG, JPEG, GIF or WebP image"),
            Self::Unsupported(name) => write!(
                f,
                "it is a {name} image; only PNG, JPEG, GIF and WebP are supported"
            ),
            Self::Invalid(error) => write!(f, "it is damaged or truncated: {error}"),
            Self::TooLarge(error) => write!(f, "it is too large to decode: {error}"),
        }
    }
}

/// A short lowercase name of a format (`png`, `jpeg`, ...).
pub fn format_name(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Jpeg => "jpeg",
        ImageFormat::WebP => "webp",
        other => other.extensions_str().first().copied().unwrap_or("image"),
    }
}

/// The file extension for a format (`png`, `jpg`, ...).
pub fn extension(format: ImageFormat) -> &'static str {
    format.extensions_str().first().copied().unwrap_or("img")
}

fn problem(error: image::ImageError) -> ImageProblem {
    match error {
        image::ImageError::Limits(error) => ImageProblem::TooLarge(error.to_string()),
        other => ImageProblem::Invalid(other.to_string()),
    }
}

fn reader(bytes: &[u8], format: ImageFormat) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DECODE_SIDE);
    limits.max_image_height = Some(MAX_DECODE_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    reader.limits(limits);
    reader
}

/// Detects the format from the content and reads the size from the header.
pub fn probe(bytes: &[u8]) -> Result<Probe, ImageProblem> {
    let format = image::guess_format(bytes).map_err(|_| ImageProblem::NotAnImage)?;
    if !SUPPORTED.contains(&format) {
        return Err(ImageProblem::Unsupported(format_name(format)));
    }
    let (width, height) = reader(bytes, format).into_dimensions().map_err(problem)?;
    Ok(Probe {
        format,
        width,
        height,
    })
}

/// An image re-encoded to fit.
#[derive(Debug, Clone)]
pub struct Fitted {
    /// The encoded bytes.
    pub bytes: Vec<u8>,
    /// Their format.
    pub format: ImageFormat,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Decodes the image and re-encodes it with its longest side at most `max_side` and
/// at most `max_bytes`: PNG when that fits and the source is not a JPEG, else JPEG,
/// halving the size until it fits. Animated images keep their first frame.
pub fn fit(
    bytes: &[u8],
    probe: Probe,
    max_side: u32,
    max_bytes: usize,
) -> Result<Fitted, ImageProblem> {
    let decoded = reader(bytes, probe.format).decode().map_err(problem)?;
    let mut side = max_side.min(probe.width.max(probe.height)).max(1);
    loop {
        let image = if decoded.width().max(decoded.height()) > side {
            decoded.resize(side, side, FilterType::Triangle)
        } else {
            decoded.clone()
        };
        if probe.format != ImageFormat::Jpeg {
            let png = encode(&image, ImageFormat::Png)?;
            if png.len() <= max_bytes {
                return Ok(fitted(png, ImageFormat::Png, &image));
            }
        }
        let jpeg = encode(&image, ImageFormat::Jpeg)?;
        if jpeg.len() <= max_bytes || side <= 64 {
            return Ok(fitted(jpeg, ImageFormat::Jpeg, &image));
        }
        side /= 2;
    }
}

fn fitted(bytes: Vec<u8>, format: ImageFormat, image: &DynamicImage) -> Fitted {
    Fitted {
        bytes,
        format,
        width: image.width(),
        height: image.height(),
    }
}

/// Encodes `image` as PNG or JPEG (JPEG drops the alpha channel).
pub fn encode(image: &DynamicImage, format: ImageFormat) -> Result<Vec<u8>, ImageProblem> {
    let mut out = Vec::new();
    let result = if format == ImageFormat::Jpeg {
        JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY).encode_image(&image.to_rgb8())
    } else {
        image.write_to(&mut Cursor::new(&mut out), format)
    };
    result.map_err(|error| ImageProblem::Invalid(format!("re-encoding failed: {error}")))?;
    Ok(out)
}
