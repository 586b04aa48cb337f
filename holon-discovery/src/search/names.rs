//! Tool names as a query may misspell them: the whole query as a name
//! (`exec_comand`, `ExecComand`, "exec command"), and single words of names
//! (`comand` in "run a comand"), but never an English word: "lunch" is not a typo of
//! `launch`.

use rustc_hash::{FxHashMap, FxHashSet};

/// Words shorter than this are not corrected: at one edit, too many short words are
/// each other's typos ("spin" and "pin", "vm" and "v").
const MIN_CORRECTED_LEN: usize = 5;

/// Finds tool names close to what a query wrote.
pub(crate) struct NameMatcher {
    /// Each tool's name, lowercase, letters and digits only.
    normalized: Vec<String>,
    exact: FxHashMap<String, usize>,
    /// The distinct lowercase words of every name.
    words: Vec<String>,
}

/// The edits a typo of a word of `len` characters may have.
fn allowed_edits(len: usize) -> usize {
    if len <= 6 { 1 } else { 2 }
}

/// `text` lowercase, with letters and digits only.
fn normalize(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

impl NameMatcher {
    pub(crate) fn new<'a>(names: impl Iterator<Item = &'a str>) -> Self {
        let mut normalized = Vec::new();
        let mut exact = FxHashMap::default();
        let mut words = FxHashSet::default();
        for (id, name) in names.enumerate() {
            let flat = normalize(name);
            exact.entry(flat.clone()).or_insert(id);
            normalized.push(flat);
            super::tokenize::for_each_word(name, |word| {
                words.insert(word.to_string());
            });
        }
        let mut words: Vec<String> = words.into_iter().collect();
        words.sort();
        Self {
            normalized,
            exact,
            words,
        }
    }

    /// The word of a tool name that `word` (a query word no tool text has) is most
    /// likely a typo of; none for an English word, which the query meant.
    pub(crate) fn correct(&self, word: &str) -> Option<&str> {
        let len = word.chars().count();
        if len < MIN_CORRECTED_LEN || super::english::is_word(word) {
            return None;
        }
        let allowed = allowed_edits(len);
        // A typo seldom changes the first letter; real words that do are other words.
        let first = word.chars().next();
        self.words
            .iter()
            .filter(|candidate| candidate.chars().next() == first)
            .filter(|candidate| candidate.len().abs_diff(word.len()) <= allowed)
            .map(|candidate| (candidate, strsim::damerau_levenshtein(word, candidate)))
            .filter(|(_, edits)| *edits <= allowed)
            .min_by_key(|(_, edits)| *edits)
            .map(|(candidate, _)| candidate.as_str())
    }

    /// The tools whose name the whole `query` spells, exactly or with a typo, each
    /// with its closeness (1.0 for the exact name).
    pub(crate) fn matches(&self, query: &str) -> Vec<(usize, f32)> {
        let flat = normalize(query);
        if flat.is_empty() {
            return Vec::new();
        }
        if let Some(id) = self.exact.get(&flat) {
            return vec![(*id, 1.0)];
        }
        // A sentence is not a misspelt name; one or two words may be.
        let len = flat.chars().count();
        if query.split_whitespace().count() > 2 || len < MIN_CORRECTED_LEN {
            return Vec::new();
        }
        let allowed = allowed_edits(len);
        let mut found: Vec<(usize, f32)> = self
            .normalized
            .iter()
            .enumerate()
            .filter(|(_, name)| name.len().abs_diff(flat.len()) <= allowed)
            .filter_map(|(id, name)| {
                let edits = strsim::damerau_levenshtein(&flat, name);
                (edits <= allowed).then(|| (id, 1.0 - edits as f32 / len as f32))
            })
            .collect();
        found.sort_by(|a, b| b.1.total_cmp(&a.1));
        found
    }
}

#[cfg(test)]
mod tests {
    use super::NameMatcher;

    fn matcher() -> NameMatcher {
        NameMatcher::new(["ExecCommand", "ListTasks", "WebSearch", "Sleep"].into_iter())
    }

    #[test]
    fn a_query_that_spells_a_name_finds_it() {
        let names = matcher();
        assert_eq!(names.matches("exec_command"), vec![(0, 1.0)]);
        assert_eq!(names.matches("web search"), vec![(2, 1.0)]);
        assert_eq!(names.matches("ExecComand")[0].0, 0);
        assert_eq!(names.matches("ListTsks")[0].0, 1);
        assert!(names.matches("run a command in the shell").is_empty());
    }

    #[test]
    fn english_words_are_never_corrected_and_typos_still_are() {
        let names = NameMatcher::new(
            [
                "LaunchInstance",
                "CreateContact",
                "CancelOrder",
                "ScheduleMeeting",
            ]
            .into_iter(),
        );
        // Each one edit from a word of a name, and each a word the query meant.
        assert_eq!(names.correct("lunch"), None);
        assert_eq!(names.correct("contract"), None);
        assert_eq!(names.correct("older"), None);
        assert_eq!(names.correct("scheudle"), Some("schedule"));
        assert_eq!(names.correct("lanuch"), Some("launch"));
        assert_eq!(names.correct("contcat"), Some("contact"));
    }

    #[test]
    fn words_of_names_correct_typos() {
        let names = matcher();
        assert_eq!(names.correct("comand"), Some("command"));
        assert_eq!(names.correct("serach"), Some("search"));
        assert_eq!(names.correct("xyzzy"), None);
        assert_eq!(names.correct("lst"), None);
        // Short words and other first letters are other words, not typos.
        assert_eq!(names.correct("sleap"), Some("sleep"));
        assert_eq!(names.correct("xearch"), None);
    }
}
