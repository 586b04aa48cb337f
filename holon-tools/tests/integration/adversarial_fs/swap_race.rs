//! A directory of the workspace exchanged with a symlink to the outside, in a loop,
//! while ViewImage, MemoryGet and ApplyPatch name files under it: not one call may
//! read the outside file or create a file outside.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, RgbImage};
use serde_json::json;

use super::{Swapper, tree};
use holon_tool_fixtures::workspace::Fixture;

/// Calls per tool.
const CALLS: usize = 2_000;

const OUTSIDE_MARKER: &str = "outside-secret-7f3a";

fn png(shade: u8) -> Vec<u8> {
    let image = DynamicImage::ImageRgb8(RgbImage::from_pixel(8, 8, image::Rgb([shade; 3])));
    let mut bytes = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
        .unwrap();
    bytes
}

/// `home/d` is a directory and `home/l` a symlink to `outside/`; both hold the same
/// names with different contents.
fn fixture() -> Fixture {
    let fx = Fixture::new();
    fx.mkdir("home/d");
    fx.mkdir("outside");
    std::fs::write(fx.path("home/d/img.png"), png(10)).unwrap();
    std::fs::write(fx.path("outside/img.png"), png(250)).unwrap();
    fx.write("home/d/note.md", "# Inside\n\ninside text\n");
    fx.write(
        "outside/note.md",
        &format!("# Outside\n\n{OUTSIDE_MARKER}\n"),
    );
    std::os::unix::fs::symlink(fx.path("outside"), fx.path("home/l")).unwrap();
    fx
}

fn image_data(envelope: &serde_json::Value) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let block = envelope["content"]
        .as_array()?
        .iter()
        .find(|block| block["type"] == "image")?;
    base64::engine::general_purpose::STANDARD
        .decode(block["data"].as_str()?)
        .ok()
}

#[tokio::test]
async fn view_image_never_reads_through_a_swapped_symlink() {
    let fx = fixture();
    let outside = png(250);
    let swapper = Swapper::start(&fx.home(), "d", "l");
    let (mut leaked, mut read) = (0, 0);
    for _ in 0..CALLS {
        let envelope = fx.call("ViewImage", json!({ "path": "d/img.png" })).await;
        if let Some(data) = image_data(&envelope) {
            read += 1;
            leaked += usize::from(data == outside);
        }
    }
    let swaps = swapper.finish();
    assert_eq!(
        leaked, 0,
        "ViewImage returned the outside file in {leaked} of {CALLS} calls ({swaps} swaps)"
    );
    assert!(read > 0, "no call read the inside file ({swaps} swaps)");
}

#[tokio::test]
async fn memory_get_never_reads_through_a_swapped_symlink() {
    let fx = fixture();
    let swapper = Swapper::start(&fx.home(), "d", "l");
    let (mut leaked, mut read) = (0, 0);
    for _ in 0..CALLS {
        let envelope = fx
            .call(
                "MemoryGet",
                json!({ "source_ref": "workspace:home:d/note.md" }),
            )
            .await;
        if envelope["status"] == "success" {
            read += 1;
            let text = envelope["structured"]["text"].as_str().unwrap_or_default();
            leaked += usize::from(text.contains(OUTSIDE_MARKER));
        }
    }
    let swaps = swapper.finish();
    assert_eq!(
        leaked, 0,
        "MemoryGet returned the outside file in {leaked} of {CALLS} calls ({swaps} swaps)"
    );
    assert!(read > 0, "no call read the inside file ({swaps} swaps)");
}

#[tokio::test]
async fn memory_search_never_indexes_through_a_swapped_symlink() {
    let fx = fixture();
    let swapper = Swapper::start(&fx.home(), "d", "l");
    let mut leaked = 0;
    // Each search walks and re-reads what changed; the swap makes `d/note.md` change
    // between the two files' contents.
    for _ in 0..CALLS / 4 {
        let envelope = fx
            .call("MemorySearch", json!({ "query": OUTSIDE_MARKER }))
            .await;
        let hits = envelope["structured"]["hits"]
            .as_array()
            .map_or(0, Vec::len);
        leaked += usize::from(hits > 0);
    }
    let swaps = swapper.finish();
    assert_eq!(
        leaked,
        0,
        "MemorySearch found the outside file in {leaked} of {} calls ({swaps} swaps)",
        CALLS / 4
    );
}

#[tokio::test]
async fn apply_patch_never_creates_a_file_through_a_swapped_symlink() {
    let fx = fixture();
    let before = tree(&fx.path("outside"));
    let swapper = Swapper::start(&fx.home(), "d", "l");
    let mut applied = 0;
    for n in 0..CALLS {
        let patch = format!("*** Begin Patch\n*** Add File: d/new-{n}.txt\n+{n}\n*** End Patch\n");
        let envelope = fx.call("ApplyPatch", json!({ "patch": patch })).await;
        applied += usize::from(envelope["status"] == "success");
    }
    let swaps = swapper.finish();
    let created: Vec<_> = tree(&fx.path("outside"))
        .into_iter()
        .filter(|path| !before.contains(path))
        .collect();
    assert!(
        created.is_empty(),
        "ApplyPatch created {} file(s) outside in {CALLS} calls ({swaps} swaps), first {:?}",
        created.len(),
        created.first()
    );
    assert!(applied > 0, "no patch applied ({swaps} swaps)");
}
