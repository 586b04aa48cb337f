//! English words (of five letters or more), to tell a word a query meant from a typo
//! of a tool's word: "lunch" is lunch, not a misspelt `launch`.

use std::sync::LazyLock;

use rustc_hash::FxHashSet;

/// The word list, one lowercase word a line after its header (source and licence).
const ENGLISH_WORDS: &str = include_str!("../../data/english-words.txt");

/// Built on first use and shared by every index: it is the same for every registry.
static WORDS: LazyLock<FxHashSet<&'static str>> = LazyLock::new(|| {
    ENGLISH_WORDS
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect()
});

/// Whether `word` (lowercase) is an English word of the list.
pub(crate) fn is_word(word: &str) -> bool {
    WORDS.contains(word)
}

#[cfg(test)]
mod tests {
    use super::is_word;

    #[test]
    fn real_words_are_words_and_typos_are_not() {
        for word in ["lunch", "contract", "older", "landlord", "worth"] {
            assert!(is_word(word), "{word}");
        }
        for typo in ["scheudle", "comand", "serach", "sleap", "branhc"] {
            assert!(!is_word(typo), "{typo}");
        }
    }

    #[test]
    fn the_header_is_no_word() {
        assert!(!is_word(
            "# English words of five letters or more, lowercase a-z only: the words of SCOWL's"
        ));
        assert!(
            super::ENGLISH_WORDS
                .lines()
                .any(|line| line.starts_with('#'))
        );
    }
}
