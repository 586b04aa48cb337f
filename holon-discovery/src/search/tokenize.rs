//! Words of tool text and of queries: identifiers split where their case changes
//! (`ExecCommand`, `work_item`, `HTTPServer`), lowercased, common English words
//! dropped, stemmed (Snowball English), so that "running commands" meets `run` and
//! `ExecCommand` meets "exec command" and "execcommand".

use rust_stemmers::{Algorithm, Stemmer};

/// Words too common to tell tools apart; a query phrased as a request is mostly these.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but",
    "by", "can", "could", "do", "does", "for", "from", "get", "had", "has", "have", "how", "i",
    "if", "in", "into", "is", "it", "its", "just", "let", "me", "my", "need", "of", "on", "one",
    "or", "our", "please", "so", "some", "than", "that", "the", "their", "them", "then", "there",
    "these", "this", "those", "to", "tool", "up", "us", "use", "want", "was", "we", "were", "what",
    "when", "where", "which", "while", "who", "will", "with", "would", "you", "your",
];

/// The tokenizer of the index and of its queries.
pub(crate) struct ToolTokenizer {
    stemmer: Stemmer,
}

impl ToolTokenizer {
    pub(crate) fn new() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }

    /// The stem of one lowercase word, or `None` for a stop word.
    pub(crate) fn term(&self, word: &str) -> Option<String> {
        if STOP_WORDS.binary_search(&word).is_ok() {
            return None;
        }
        Some(self.stemmer.stem(word).into_owned())
    }

    /// Every term of `text`, in order.
    pub(crate) fn terms(&self, text: &str) -> Vec<String> {
        let mut terms = Vec::new();
        for_each_word(text, |word| terms.extend(self.term(word)));
        terms
    }
}

/// Calls `visit` with each lowercase word of `text`: the parts of every identifier,
/// then, for an identifier of several parts, the parts joined.
pub(crate) fn for_each_word(text: &str, mut visit: impl FnMut(&str)) {
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        if run.is_empty() {
            continue;
        }
        let parts = identifier_parts(run);
        for part in &parts {
            visit(&part.to_lowercase());
        }
        if parts.len() > 1 {
            visit(&run.to_lowercase());
        }
    }
}

/// `run` split where a lowercase letter or digit meets an uppercase one, and before
/// the last capital of an acronym that starts a word (`HTTPServer`: `HTTP`, `Server`).
fn identifier_parts(run: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let previous = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary = c.is_uppercase()
            && (previous.is_lowercase()
                || previous.is_ascii_digit()
                || (previous.is_uppercase() && next_lower));
        if boundary {
            parts.push(&run[start..at]);
            start = at;
        }
    }
    parts.push(&run[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_word(text, |w| out.push(w.to_string()));
        out
    }

    #[test]
    fn stop_words_are_sorted_for_the_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn identifiers_split_at_case_changes_and_separators() {
        assert_eq!(words("ExecCommand"), ["exec", "command", "execcommand"]);
        assert_eq!(words("work_item_id"), ["work", "item", "id"]);
        assert_eq!(words("HTTPServer"), ["http", "server", "httpserver"]);
        assert_eq!(
            words("base64 x509Cert"),
            ["base64", "x509", "cert", "x509cert"]
        );
    }

    #[test]
    fn terms_drop_stop_words_and_stem() {
        let tokenizer = ToolTokenizer::new();
        assert_eq!(
            tokenizer.terms("I want to run the commands"),
            ["run", "command"]
        );
    }
}
