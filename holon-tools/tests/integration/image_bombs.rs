//! Decompression bombs for ViewImage: files of a few bytes whose headers declare a
//! canvas that costs a gigabyte and minutes to decode. Each is refused from its
//! header with `image_too_large` naming its size, before a pixel is allocated.

use std::sync::Arc;
use std::task::{Context, Waker};

use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_runtime::{Runtime, RuntimeConfig};
use holon_tools::tools::image::decode;
use serde_json::{Value, json};

/// Bits written least significant first, as WebP lossless reads them.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    used: u32,
}

impl Bits {
    fn put(&mut self, value: u32, count: u32) {
        for bit in 0..count {
            if self.used.is_multiple_of(8) {
                self.bytes.push(0);
            }
            let last = self.bytes.len() - 1;
            self.bytes[last] |= (((value >> bit) & 1) as u8) << (self.used % 8);
            self.used += 1;
        }
    }
}

/// A lossless WebP of `width` x `height` whose five prefix codes each have one
/// symbol: every pixel decodes from zero bits, so the whole canvas is real work.
fn webp_bomb(width: u32, height: u32) -> Vec<u8> {
    let mut bits = Bits::default();
    bits.put(0x2f, 8);
    bits.put(width - 1, 14);
    bits.put(height - 1, 14);
    // No alpha, version 0, no transform, no colour cache, no meta prefix codes.
    bits.put(0, 1 + 3 + 1 + 1 + 1);
    for _ in 0..5 {
        // A simple code of one 1-bit symbol: 0.
        bits.put(0b0001, 4);
    }
    let mut payload = bits.bytes;
    if payload.len() % 2 == 1 {
        payload.push(0);
    }
    let mut chunk = b"VP8L".to_vec();
    chunk.extend((payload.len() as u32).to_le_bytes());
    chunk.extend(payload);
    let mut file = b"RIFF".to_vec();
    file.extend((4 + chunk.len() as u32).to_le_bytes());
    file.extend(b"WEBP");
    file.extend(chunk);
    file
}

fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    chunk.extend(kind);
    chunk.extend(data);
    chunk.extend(crc.sum().to_be_bytes());
    chunk
}

/// An RGB PNG of `width` x `height` whose data is one row of zeros, compressed.
fn png_bomb(width: u32, height: u32) -> Vec<u8> {
    use std::io::Write as _;
    let mut header = width.to_be_bytes().to_vec();
    header.extend(height.to_be_bytes());
    header.extend([8, 2, 0, 0, 0]);
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    zlib.write_all(&vec![0; 1 + 3 * width as usize]).unwrap();
    let mut file = b"\x89PNG\r\n\x1a\n".to_vec();
    file.extend(png_chunk(b"IHDR", &header));
    file.extend(png_chunk(b"IDAT", &zlib.finish().unwrap()));
    file.extend(png_chunk(b"IEND", b""));
    file
}

fn jpeg_segment(marker: u8, body: &[u8]) -> Vec<u8> {
    let mut segment = vec![0xff, marker];
    segment.extend((body.len() as u16 + 2).to_be_bytes());
    segment.extend(body);
    segment
}

/// A three-component JPEG of `width` x `height` (baseline, or progressive: whose
/// decoder keeps every coefficient of the canvas) with Huffman tables of one symbol
/// and 16 bytes of scan: the decoder reads zeros to the end of the canvas.
fn jpeg_bomb(width: u16, height: u16, progressive: bool) -> Vec<u8> {
    let mut file = vec![0xff, 0xd8];
    let mut table = vec![0x00];
    table.extend([1; 64]);
    file.extend(jpeg_segment(0xdb, &table));
    let mut frame = vec![8];
    frame.extend(height.to_be_bytes());
    frame.extend(width.to_be_bytes());
    frame.push(3);
    for component in 1..=3 {
        frame.extend([component, 0x11, 0]);
    }
    file.extend(jpeg_segment(if progressive { 0xc2 } else { 0xc0 }, &frame));
    let mut one_symbol = vec![1];
    one_symbol.extend([0; 15]);
    one_symbol.push(0);
    let mut dc = vec![0x00];
    dc.extend(&one_symbol);
    file.extend(jpeg_segment(0xc4, &dc));
    if !progressive {
        let mut ac = vec![0x10];
        ac.extend(&one_symbol);
        file.extend(jpeg_segment(0xc4, &ac));
    }
    let end = if progressive { 0 } else { 63 };
    file.extend(jpeg_segment(0xda, &[3, 1, 0, 2, 0, 3, 0, 0, end, 0]));
    file.extend([0; 16]);
    file.extend([0xff, 0xd9]);
    file
}

async fn view(runtime: &Arc<Runtime>, path: &str) -> Value {
    let context = runtime.context(FamilyPolicy::all());
    let result = Registry::global()
        .dispatch(
            &context,
            ToolCall::new("ViewImage", json!({ "path": path })),
        )
        .await;
    serde_json::to_value(&result).unwrap()
}

#[tokio::test]
async fn bombs_are_refused_from_their_header_naming_their_size() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = Runtime::open(RuntimeConfig::in_memory(dir.path())).unwrap();
    // Under the old limit of 20000 pixels a side, each decoded (or tried to) a
    // 169-megapixel canvas: about a gigabyte and a minute or more per call.
    let bombs = [
        ("bomb.webp", webp_bomb(13_000, 13_000), (13_000, 13_000)),
        ("bomb.png", png_bomb(13_000, 13_000), (13_000, 13_000)),
        (
            "bomb.jpg",
            jpeg_bomb(13_000, 13_000, false),
            (13_000, 13_000),
        ),
        (
            "bomb-progressive.jpg",
            jpeg_bomb(13_000, 13_000, true),
            (13_000, 13_000),
        ),
        ("wide.png", png_bomb(30_000, 10), (30_000, 10)),
    ];
    for (name, bytes, (width, height)) in bombs {
        assert!(bytes.len() < 1_000, "{name} has {} bytes", bytes.len());
        std::fs::write(dir.path().join(name), &bytes).unwrap();
        let envelope = view(&runtime, name).await;
        let error = &envelope["error"];
        assert_eq!(error["kind"], "image_too_large", "{name}: {envelope}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("{width}x{height} pixels")),
            "{name}: {message}"
        );
        assert_eq!(error["details"]["width"], width, "{name}");
        assert_eq!(error["details"]["height"], height, "{name}");
        assert_eq!(error["details"]["max_pixels"], decode::MAX_DECODE_PIXELS);
    }
}

#[test]
fn a_bomb_probe_names_its_size_and_the_limit() {
    let problem = decode::probe(&webp_bomb(16_000, 16_000)).unwrap_err();
    assert_eq!(
        problem,
        decode::ImageProblem::TooManyPixels {
            width: 16_000,
            height: 16_000
        }
    );
    // Just under the limit, the header is accepted.
    let probe = decode::probe(&webp_bomb(8_000, 5_000)).unwrap();
    assert_eq!((probe.width, probe.height), (8_000, 5_000));
}

#[tokio::test]
async fn at_most_two_images_decode_at_once() {
    // Other tests of this binary may hold a slot for a while: wait for two, then the
    // next must wait for one of them.
    let first = decode::decode_slot().await;
    let second = decode::decode_slot().await;
    let mut third = std::pin::pin!(decode::decode_slot());
    let mut context = Context::from_waker(Waker::noop());
    assert!(third.as_mut().poll(&mut context).is_pending());
    assert_eq!(decode::MAX_CONCURRENT_DECODES, 2);
    drop(first);
    let third = third.await;
    drop((second, third));
}
