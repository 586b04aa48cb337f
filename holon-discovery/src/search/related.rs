//! Related terms: how people name a job against the words tool text uses ("kill" for
//! stop, "ubuntu" for a shell command, "worth" for a price), from a general list
//! (`data/related-terms.txt`), so a query whose words no tool has still finds one.

use rustc_hash::FxHashMap;

use super::tokenize::ToolTokenizer;

/// The list: `WORDS: RELATED` a line, `#` comments.
const RELATED_TERMS: &str = include_str!("../../data/related-terms.txt");

/// Each term's related terms that some tool of the index has.
pub(crate) struct RelatedTerms {
    of: FxHashMap<String, Vec<String>>,
}

impl RelatedTerms {
    /// The list's relations, stemmed like the index, kept where `indexed` (whether a
    /// term is in the index) holds for the related term.
    pub(crate) fn new(tokenizer: &ToolTokenizer, indexed: impl Fn(&str) -> bool) -> Self {
        Self::parse(RELATED_TERMS, tokenizer, indexed)
    }

    fn parse(text: &str, tokenizer: &ToolTokenizer, indexed: impl Fn(&str) -> bool) -> Self {
        let mut of: FxHashMap<String, Vec<String>> = FxHashMap::default();
        for line in text.lines().map(str::trim) {
            if line.starts_with('#') {
                continue;
            }
            // A line without its colon relates nothing.
            let Some((words, related)) = line.split_once(':') else {
                continue;
            };
            let related: Vec<String> = tokenizer
                .terms(related)
                .into_iter()
                .filter(|term| indexed(term))
                .collect();
            if related.is_empty() {
                continue;
            }
            for term in tokenizer.terms(words) {
                let entry = of.entry(term.clone()).or_default();
                for other in &related {
                    if *other != term && !entry.contains(other) {
                        entry.push(other.clone());
                    }
                }
            }
        }
        of.retain(|_, related| !related.is_empty());
        Self { of }
    }

    /// The terms related to `term` (a query's term), none for most.
    pub(crate) fn of(&self, term: &str) -> &[String] {
        self.of.get(term).map(Vec::as_slice).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_relate_to_the_indexed_terms_stemmed() {
        let tokenizer = ToolTokenizer::new();
        let related = RelatedTerms::parse(
            "# a comment: not a relation\nkill terminated: stop cancel absent\nno colon here\n",
            &tokenizer,
            |term| ["stop", "cancel"].contains(&term),
        );
        assert_eq!(related.of("kill"), ["stop", "cancel"]);
        assert_eq!(related.of("termin"), ["stop", "cancel"]);
        assert!(related.of("absent").is_empty());
        assert!(related.of("comment").is_empty());
        assert!(related.of("colon").is_empty());
    }

    #[test]
    fn the_list_is_well_formed() {
        for line in RELATED_TERMS.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            assert_eq!(line.matches(':').count(), 1, "{line}");
            let (words, related) = line.split_once(':').unwrap_or_default();
            assert!(
                !words.trim().is_empty() && !related.trim().is_empty(),
                "{line}"
            );
        }
    }
}
