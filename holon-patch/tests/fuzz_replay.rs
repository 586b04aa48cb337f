//! Replays the corpora of the `patch_envelope` and `patch_unified` fuzz targets
//! (`fuzz/corpus/`) through the same harness, so every input the fuzzer found
//! interesting is checked on every `cargo test`. Run the fuzzer itself with
//! `cargo fuzz run` in `fuzz/` (see `fuzz/README.md`).

// The test reads its corpus with std::fs.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut inputs: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap_or_else(|error| panic!("{}: {error}", corpus.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 10, "the {target} corpus is missing");
    for path in &inputs {
        let data = std::fs::read(path).expect("a corpus file");
        // A finding panics.
        run(&data);
    }
}

#[test]
fn the_envelope_corpus_replays_without_panics() {
    replay("patch_envelope", holon_patch::fuzz::envelope);
}

#[test]
fn the_unified_corpus_replays_without_panics() {
    replay("patch_unified", holon_patch::fuzz::unified);
}
