//! Checking a tool's search keywords: each must add a word search would not find
//! otherwise. The macro refuses blank and duplicate keywords at compile time; a
//! hand-written `ToolMeta` can still carry them, so they are checked here too.

use holon_core::ToolDefinition;

use crate::{Finding, FindingKind};

/// The problems of `definition`'s keywords, one finding each.
pub(crate) fn check(definition: &ToolDefinition, out: &mut Vec<Finding>) {
    let name = definition.name();
    let name_words = words(&split_identifier(name));
    let mut seen: Vec<Vec<String>> = Vec::new();
    for (index, keyword) in definition.keywords.iter().enumerate() {
        let own = words(keyword);
        let problem = if own.is_empty() {
            Some("the keyword is blank: remove it".to_string())
        } else if seen.contains(&own) {
            Some(format!(
                "the keyword {keyword:?} is given twice: remove one"
            ))
        } else if own.iter().all(|word| name_words.contains(word)) {
            Some(format!(
                "the keyword {keyword:?} only repeats the tool's name {name}, which search \
                 already weighs: give a word a user would search for that the name does not have"
            ))
        } else {
            None
        };
        if let Some(message) = problem {
            out.push(Finding {
                file: format!("tool:{name}#keywords[{index}]"),
                line: 1,
                kind: FindingKind::WeakKeyword,
                message,
            });
        }
        seen.push(own);
    }
}

/// The lowercase words of `text`: runs of letters and digits.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// `ExecCommandBatch` as `Exec Command Batch`: a name's words, split where the case
/// changes from lower to upper.
fn split_identifier(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_uppercase() && previous_lower {
            out.push(' ');
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_splits_into_its_words() {
        assert_eq!(
            words(&split_identifier("ExecCommandBatch")),
            ["exec", "command", "batch"]
        );
        assert_eq!(words(&split_identifier("list_tasks")), ["list", "tasks"]);
    }
}
