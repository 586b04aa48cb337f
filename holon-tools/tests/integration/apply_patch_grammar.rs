//! The ApplyPatch freeform grammar, run by llguidance (the engine that constrains a
//! model's custom-tool input at OpenAI), accepts every patch of the corpus that the
//! patch parser accepts and refuses every one it refuses (`apply_patch.rs` checks the
//! parser's side; CI also feeds the corpus to Python's `lark`).

use std::path::Path;

use holon_core::Registry;
use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::{ApproximateTokEnv, TokEnv};
use llguidance::{Matcher, ParserFactory};

fn apply_patch_grammar() -> String {
    let definition = Registry::global()
        .get("ApplyPatch")
        .expect("ApplyPatch is registered");
    let grammar = definition
        .spec
        .freeform_grammar
        .as_ref()
        .expect("ApplyPatch has a freeform grammar");
    grammar.definition.to_string()
}

/// Whether the grammar admits `text` whole: every byte is one token of a single-byte
/// tokenizer, and the parser must be in an accepting state after the last one.
fn admits(factory: &ParserFactory, env: &TokEnv, grammar: &str, text: &str) -> bool {
    let parser = factory
        .create_parser(TopLevelGrammar::from_lark(grammar.to_string()))
        .expect("llguidance compiles the ApplyPatch grammar");
    let mut matcher = Matcher::new(Ok(parser));
    let tokens = env.tokenize_bytes(text.as_bytes());
    matcher.consume_tokens(&tokens).is_ok() && matcher.is_accepting().unwrap_or(false)
}

#[test]
fn llguidance_accepts_exactly_the_corpus_the_parser_accepts() {
    let grammar = apply_patch_grammar();
    let env = ApproximateTokEnv::single_byte_env();
    let mut factory = ParserFactory::new_simple(&env).expect("a parser factory");
    factory.quiet();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/apply_patch_corpus");
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (folder, valid) in [("valid", true), ("invalid", false)] {
        for entry in std::fs::read_dir(corpus.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            if admits(&factory, &env, &grammar, &text) != valid {
                wrong.push(format!(
                    "{folder}/{}",
                    path.file_name().unwrap().to_string_lossy()
                ));
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked} corpus files");
    assert!(
        wrong.is_empty(),
        "llguidance disagrees with the parser on: {wrong:?}"
    );
}
