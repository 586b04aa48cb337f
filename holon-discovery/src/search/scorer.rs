//! BM25 over the index's documents for a query whose terms carry weights (a query's own
//! words in full, their related terms for less), scored in one pass over each term's
//! postings.
//!
//! Hand-written: the `bm25` crate's scorer weighs every query term alike (it ignores
//! the query embedding's values), so a weighted query took a second pass through it.

use rustc_hash::FxHashMap;

/// BM25's term-frequency saturation; the usual value.
const K1: f32 = 1.2;
/// BM25's length normalization; the usual value.
const B: f32 = 0.75;

/// One term's inverse document frequency and the documents that have it, each with the
/// term's frequency there, saturated and normalized by the document's length.
struct Posting {
    idf: f32,
    documents: Vec<(u32, f32)>,
}

/// The postings of every term of the index.
pub(crate) struct Scorer {
    postings: FxHashMap<String, Posting>,
    documents: usize,
}

impl Scorer {
    /// The scorer of `documents`, each given as its terms (the id of a document is its
    /// position).
    pub(crate) fn new(documents: &[Vec<String>]) -> Self {
        let total_terms: usize = documents.iter().map(Vec::len).sum();
        let average = (total_terms as f32 / documents.len().max(1) as f32).max(1.0);
        let mut postings: FxHashMap<String, Posting> = FxHashMap::default();
        for (id, terms) in documents.iter().enumerate() {
            let mut counts: FxHashMap<&str, u32> = FxHashMap::default();
            for term in terms {
                *counts.entry(term).or_default() += 1;
            }
            let length = terms.len() as f32;
            for (term, count) in counts {
                let frequency = count as f32;
                let weight =
                    frequency * (K1 + 1.0) / (frequency + K1 * (1.0 - B + B * length / average));
                postings
                    .entry(term.to_string())
                    .or_insert_with(|| Posting {
                        idf: 0.0,
                        documents: Vec::new(),
                    })
                    .documents
                    .push((id as u32, weight));
            }
        }
        let total = documents.len() as f32;
        for posting in postings.values_mut() {
            let having = posting.documents.len() as f32;
            posting.idf = (1.0 + (total - having + 0.5) / (having + 0.5)).ln();
        }
        Self {
            postings,
            documents: documents.len(),
        }
    }

    /// Whether some document has `term`.
    pub(crate) fn has(&self, term: &str) -> bool {
        self.postings.contains_key(term)
    }

    /// Each document that has a term of `query` with its score: the sum, over the
    /// query's terms, of the term's weight times its BM25 score in the document (a
    /// term listed twice counts twice). In no particular order.
    pub(crate) fn scores<'a>(
        &self,
        query: impl IntoIterator<Item = (&'a str, f32)>,
    ) -> Vec<(usize, f32)> {
        let mut score = vec![0.0f32; self.documents];
        let mut found = Vec::new();
        for (term, weight) in query {
            let Some(posting) = self.postings.get(term) else {
                continue;
            };
            let factor = weight * posting.idf;
            for &(id, value) in &posting.documents {
                let id = id as usize;
                if score[id] == 0.0 {
                    found.push(id);
                }
                score[id] += factor * value;
            }
        }
        found.into_iter().map(|id| (id, score[id])).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Scorer;

    fn terms(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    fn sorted(mut scores: Vec<(usize, f32)>) -> Vec<(usize, f32)> {
        scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scores
    }

    #[test]
    fn rarer_and_more_frequent_terms_score_higher() {
        let scorer = Scorer::new(&[
            terms("run shell command"),
            terms("run run test"),
            terms("read file"),
        ]);
        let ranked = sorted(scorer.scores([("run", 1.0)]));
        assert_eq!(ranked.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [1, 0]);
        // "shell" is in one document, "run" in two: the rarer term weighs more.
        let shell = scorer.scores([("shell", 1.0)])[0].1;
        let run = scorer
            .scores([("run", 1.0)])
            .iter()
            .find(|(id, _)| *id == 0)
            .map(|(_, s)| *s);
        assert!(run.is_some_and(|run| shell > run));
        assert!(scorer.scores([("absent", 1.0)]).is_empty());
        assert!(scorer.has("shell") && !scorer.has("absent"));
    }

    #[test]
    fn a_term_counts_for_its_weight() {
        let scorer = Scorer::new(&[
            terms("stop task"),
            terms("kill process"),
            terms("read file"),
        ]);
        let full = scorer.scores([("stop", 1.0)])[0].1;
        let fifth = scorer.scores([("stop", 0.2)])[0].1;
        assert!((fifth - 0.2 * full).abs() < 1e-6, "{fifth} against {full}");
        // A weighted term adds to the full ones, in the same pass.
        let ranked = sorted(scorer.scores([("kill", 1.0), ("stop", 0.2)]));
        assert_eq!(ranked.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [1, 0]);
        let twice = scorer.scores([("stop", 1.0), ("stop", 1.0)])[0].1;
        assert!((twice - 2.0 * full).abs() < 1e-6);
    }
}
