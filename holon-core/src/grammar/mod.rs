//! Checks that a freeform grammar is one the provider's engine accepts, before any
//! model is shown it: Lark grammars with llguidance (the engine OpenAI constrains
//! custom-tool input with), regular expressions with the `regex` crate's parser and the
//! subset OpenAI documents (no lookaround, no lazy quantifiers).

use regex_syntax::ast::{self, Ast, Visitor};

use crate::meta::{FreeformGrammarDecl, GrammarSyntax};

/// Checks `grammar`; the error says what is wrong and where.
pub fn check(grammar: &FreeformGrammarDecl) -> Result<(), String> {
    if grammar.definition.trim().is_empty() {
        return Err("the grammar is empty".to_string());
    }
    match grammar.syntax {
        GrammarSyntax::Lark => check_lark(grammar.definition),
        GrammarSyntax::Regex => check_regex(grammar.definition),
    }
}

#[cfg(feature = "lark")]
fn check_lark(definition: &str) -> Result<(), String> {
    use llguidance::api::{GrammarInit, ParserLimits, TopLevelGrammar};
    use llguidance::earley::ValidationResult;

    let grammar = TopLevelGrammar::from_lark(definition.to_string());
    // llguidance is a parser of text we did not write: a panic in it is a refusal of
    // the grammar, never a crash of the host that builds its registry.
    let verdict = std::panic::catch_unwind(|| {
        GrammarInit::Serialized(grammar).validate(None, ParserLimits::default())
    })
    .map_err(|_| "llguidance panicked while reading the grammar".to_string())?;
    match verdict {
        // Warnings (an unused rule, say) do not make the provider refuse the tool.
        ValidationResult::Valid | ValidationResult::Warnings(_) => Ok(()),
        ValidationResult::Error(error) => Err(format!("llguidance refuses it: {error}")),
    }
}

#[cfg(not(feature = "lark"))]
fn check_lark(_definition: &str) -> Result<(), String> {
    Err(
        "Lark grammars are checked with llguidance before any model sees them: \
         enable holon-core's `lark` feature"
            .to_string(),
    )
}

fn check_regex(definition: &str) -> Result<(), String> {
    let parsed = ast::parse::Parser::new()
        .parse(definition)
        .map_err(|error| format!("the regular expression does not parse: {error}"))?;
    ast::visit(&parsed, OpenAiSubset)?;
    // The AST parser accepts some patterns the translator refuses (an invalid class
    // range, a Unicode class it does not know): run both, as the `regex` crate does.
    regex_syntax::hir::translate::Translator::new()
        .translate(definition, &parsed)
        .map(|_| ())
        .map_err(|error| format!("the regular expression does not parse: {error}"))
}

/// Refuses what the `regex` crate parses but OpenAI's regex grammars do not allow.
struct OpenAiSubset;

impl Visitor for OpenAiSubset {
    type Output = ();
    type Err = String;

    fn finish(self) -> Result<(), String> {
        Ok(())
    }

    fn visit_pre(&mut self, node: &Ast) -> Result<(), String> {
        let lazy = match node {
            Ast::Repetition(repetition) => (!repetition.greedy).then_some(repetition.span),
            Ast::Flags(flags) => swaps_greed(&flags.flags).then_some(flags.span),
            Ast::Group(group) => match &group.kind {
                ast::GroupKind::NonCapturing(flags) if swaps_greed(flags) => Some(group.span),
                _ => None,
            },
            _ => None,
        };
        match lazy {
            Some(span) => Err(format!(
                "lazy quantifiers are not allowed in regex grammars (at offset {}); \
                 write the pattern with greedy ones",
                span.start.offset
            )),
            None => Ok(()),
        }
    }
}

/// Whether the flags turn `U` on (which makes every quantifier after it lazy);
/// `(?-U)` turns it off and is fine.
fn swaps_greed(flags: &ast::Flags) -> bool {
    let mut negated = false;
    flags.items.iter().any(|item| match item.kind {
        ast::FlagsItemKind::Negation => {
            negated = true;
            false
        }
        ast::FlagsItemKind::Flag(ast::Flag::SwapGreed) => !negated,
        _ => false,
    })
}
