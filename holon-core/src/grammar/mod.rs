//! Checks that a freeform grammar is well formed before any model is shown it.

mod lark;

use crate::meta::{FreeformGrammarDecl, GrammarSyntax};

/// Checks `grammar`; the error says what is wrong and where.
pub fn check(grammar: &FreeformGrammarDecl) -> Result<(), String> {
    if grammar.definition.trim().is_empty() {
        return Err("the grammar is empty".to_string());
    }
    match grammar.syntax {
        GrammarSyntax::Lark => lark::check(grammar.definition),
        GrammarSyntax::Regex => regex_syntax::Parser::new()
            .parse(grammar.definition)
            .map(|_| ())
            .map_err(|error| format!("the regular expression does not parse: {error}")),
    }
}
