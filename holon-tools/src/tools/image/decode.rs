//! Image formats, sizes and downscaling, on the `image` crate with only the formats
//! the tools read and write (PNG, JPEG, GIF, WebP).

use std::borrow::Cow;
use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use tokio::sync::{Semaphore, SemaphorePermit};

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

/// The most pixels of a decoded image: a few bytes of header can declare a
/// 16,000 x 16,000 canvas that costs a gigabyte to decode, so a larger one is refused
/// from its header (40 megapixels: a 48 MP phone photo is refused, a 24 MP camera's
/// is not).
pub const MAX_DECODE_PIXELS: u64 = 40_000_000;

/// Memory the decoder may allocate at most (the decoded pixels of the largest image
/// allowed, at 4 bytes a pixel, plus room).
pub const MAX_DECODE_ALLOC: u64 = 256 * 1024 * 1024;

/// The most images decoded at once in this process: each may take up to
/// [`MAX_DECODE_ALLOC`] and more in the decoder's own buffers.
pub const MAX_CONCURRENT_DECODES: usize = 2;

static DECODE_SLOTS: Semaphore = Semaphore::const_new(MAX_CONCURRENT_DECODES);

/// Waits for one of the [`MAX_CONCURRENT_DECODES`] slots; decode while holding it
/// (move it into the blocking task, so that a cancelled call frees it only when
/// the decoding ends).
pub async fn decode_slot() -> SemaphorePermit<'static> {
    // The semaphore is never closed.
    DECODE_SLOTS
        .acquire()
        .await
        .expect("the decode semaphore is never closed")
}

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
    /// Its header declares more pixels than are ever decoded.
    TooManyPixels {
        /// Width in pixels, from the header.
        width: u32,
        /// Height in pixels, from the header.
        height: u32,
    },
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
            Self::TooManyPixels { width, height } => write!(
                f,
                "it is {width}x{height} pixels, more than is decoded (at most {MAX_DECODE_SIDE} pixels a side and {} megapixels)",
                MAX_DECODE_PIXELS / 1_000_000
            ),
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

/// A reader of `bytes` with the decoder's limits; `sides` also bounds the sides (the
/// header is read without that bound, to name the sides of an image too large).
fn reader(bytes: &[u8], format: ImageFormat, sides: bool) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    if sides {
        limits.max_image_width = Some(MAX_DECODE_SIDE);
        limits.max_image_height = Some(MAX_DECODE_SIDE);
    }
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    reader.limits(limits);
    reader
}

/// Detects the format from the content and reads the size from the header; an
/// image with a side over [`MAX_DECODE_SIDE`] or more than [`MAX_DECODE_PIXELS`] is
/// refused here, before anything is decoded.
pub fn probe(bytes: &[u8]) -> Result<Probe, ImageProblem> {
    let format = image::guess_format(bytes).map_err(|_| ImageProblem::NotAnImage)?;
    if !SUPPORTED.contains(&format) {
        return Err(ImageProblem::Unsupported(format_name(format)));
    }
    let (width, height) = reader(bytes, format, false)
        .into_dimensions()
        .map_err(problem)?;
    if width.max(height) > MAX_DECODE_SIDE
        || u64::from(width) * u64::from(height) > MAX_DECODE_PIXELS
    {
        return Err(ImageProblem::TooManyPixels { width, height });
    }
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
/// halving the size until it fits. Animated images keep their first frame. `probe`
/// is [`probe`]'s of `bytes`, which refused an image with too many pixels; hold a
/// [`decode_slot`] while this runs.
pub fn fit(
    bytes: &[u8],
    probe: Probe,
    max_side: u32,
    max_bytes: usize,
) -> Result<Fitted, ImageProblem> {
    let decoded = reader(bytes, probe.format, true)
        .decode()
        .map_err(problem)?;
    let mut side = max_side.min(probe.width.max(probe.height)).max(1);
    loop {
        // Area sampling (`thumbnail`) writes the small image directly; a filtered
        // resize first makes a float copy as wide as the source (16 bytes a pixel).
        let image = if decoded.width().max(decoded.height()) > side {
            Cow::Owned(decoded.thumbnail(side, side))
        } else {
            Cow::Borrowed(&decoded)
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
