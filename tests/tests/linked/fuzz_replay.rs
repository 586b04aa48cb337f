//! Replays the minimised corpus of the `dispatch` fuzz target (`fuzz/corpus/dispatch`)
//! through the same harness, so every input the fuzzer found interesting is checked on
//! every CI run. Run the fuzzer itself with `cargo fuzz run dispatch` in `fuzz/` (see
//! `fuzz/README.md`).

use std::path::Path;

use holon_integration_tests::fuzz_dispatch::run_one;

#[test]
fn the_fuzz_corpus_replays_without_findings() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/dispatch");
    let mut inputs: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap_or_else(|error| panic!("{}: {error}", corpus.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 10, "the corpus is missing");
    for path in &inputs {
        let data = std::fs::read(path).expect("a corpus file");
        // A finding panics with the tool, the input and what went wrong.
        run_one(&data);
    }
}
