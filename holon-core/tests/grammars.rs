//! Freeform grammars are judged as the provider judges them: every grammar of the
//! corpus in `grammar_corpus/` gets from `check_grammar` the verdict its file name
//! states (`*.refused.*` must be refused, the rest accepted), and that verdict is the
//! one llguidance itself gives, for Lark and for regex grammars alike. The one
//! exception is marked `.documented.` in the file name: OpenAI documents regex
//! grammars without lazy quantifiers, which llguidance's engine would read as greedy
//! ones; we refuse them as the documentation says.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::Path;

use holon_core::{FreeformGrammarDecl, GrammarSyntax, check_grammar};
use llguidance::api::{GrammarInit, ParserLimits, TopLevelGrammar};
use llguidance::earley::ValidationResult;

struct Case {
    name: String,
    syntax: GrammarSyntax,
    text: &'static str,
    accepted: bool,
    /// The verdict comes from the provider's documentation, not from llguidance.
    documented: bool,
}

fn corpus() -> Vec<Case> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grammar_corpus");
    let mut cases: Vec<Case> = std::fs::read_dir(&folder)
        .expect("the grammar corpus is readable")
        .map(|entry| {
            let path = entry.expect("a corpus entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let syntax = match path.extension().and_then(|e| e.to_str()) {
                Some("lark") => GrammarSyntax::Lark,
                Some("regex") => GrammarSyntax::Regex,
                other => panic!("{name}: unknown grammar extension {other:?}"),
            };
            let text: &'static str = std::fs::read_to_string(&path).unwrap().leak();
            Case {
                accepted: !name.contains(".refused."),
                documented: name.contains(".documented."),
                name,
                syntax,
                text,
            }
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

/// llguidance's own verdict, through its public API, for either syntax.
fn llguidance_accepts(case: &Case) -> Result<(), String> {
    let grammar = match case.syntax {
        GrammarSyntax::Lark => TopLevelGrammar::from_lark(case.text.to_string()),
        GrammarSyntax::Regex => TopLevelGrammar::from_regex(case.text),
    };
    match GrammarInit::Serialized(grammar).validate(None, ParserLimits::default()) {
        ValidationResult::Valid | ValidationResult::Warnings(_) => Ok(()),
        ValidationResult::Error(error) => Err(error),
    }
}

#[test]
fn the_corpus_is_large_and_has_both_verdicts() {
    let cases = corpus();
    let refused = cases.iter().filter(|case| !case.accepted).count();
    assert!(cases.len() >= 40, "{} grammars", cases.len());
    assert!(
        refused >= 15 && cases.len() - refused >= 15,
        "{refused} refused of {}",
        cases.len()
    );
}

#[test]
fn every_grammar_gets_the_verdict_llguidance_gives() {
    let mut wrong = Vec::new();
    for case in corpus() {
        let ours = check_grammar(&FreeformGrammarDecl {
            syntax: case.syntax,
            definition: case.text,
        });
        let theirs = llguidance_accepts(&case);
        let theirs_agree = case.documented || theirs.is_ok() == case.accepted;
        if ours.is_ok() != case.accepted || !theirs_agree {
            wrong.push(format!(
                "{}: expected {}, check_grammar says {:?}, llguidance says {:?}",
                case.name,
                if case.accepted { "accepted" } else { "refused" },
                ours,
                theirs
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn a_refusal_says_why() {
    let decl = FreeformGrammarDecl {
        syntax: GrammarSyntax::Lark,
        definition: "start: foo\n",
    };
    let error = check_grammar(&decl).unwrap_err();
    assert!(
        error.contains("llguidance") && error.contains("foo"),
        "{error}"
    );
    let decl = FreeformGrammarDecl {
        syntax: GrammarSyntax::Regex,
        definition: "a+?",
    };
    let error = check_grammar(&decl).unwrap_err();
    assert!(error.contains("lazy"), "{error}");
}
