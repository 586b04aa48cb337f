//! Search over a registry's tools: BM25 over what each definition declares (name,
//! description, field names and descriptions, enum values, input examples, family,
//! module), tolerant of typos in tool names, bridging a query's words to related
//! terms of tool text at a lower weight, and limited to what the caller may see.
//!
//! The index is built once per registry, on the first search, and cached with it
//! ([`Registry::derived`]): [`SearchIndex::of`].
//!
//! ```
//! use holon_core::{FamilyPolicy, Registry};
//! use holon_discovery::search::{SearchIndex, SearchScope};
//!
//! let index = SearchIndex::of(Registry::global());
//! let hits = index.search("run a shell command", 5, SearchScope::model(FamilyPolicy::all()));
//! for hit in &hits {
//!     println!("{} ({:.2}): {}", hit.name, hit.score, hit.summary);
//! }
//! ```

mod document;
mod english;
mod names;
mod related;
mod tokenize;

use std::sync::Arc;

use bm25::{Embedding, Scorer, TokenEmbedder, TokenEmbedding};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use holon_core::{FamilyPolicy, Registry, ToolCapabilityFamily, Visibility};

pub use document::SUMMARY_MAX_CHARS;
use names::NameMatcher;
use related::RelatedTerms;
use tokenize::ToolTokenizer;

/// BM25's term-frequency saturation; the usual value.
const K1: f32 = 1.2;
/// BM25's length normalization; the usual value.
const B: f32 = 0.75;

/// How much a related term of a query word counts against the word itself: enough to
/// find a tool no query word names, too little to outrank one that a word names.
const RELATED_WEIGHT: f32 = 0.2;

/// The longest query searched, in bytes; the rest is ignored.
pub const MAX_QUERY_BYTES: usize = 1000;

/// Whose view of the registry a search ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchScope {
    /// The families the caller may use; tools of others are never found.
    pub policy: FamilyPolicy,
    /// Whether runtime-only tools are found too (the runtime itself calling).
    pub runtime_access: bool,
}

impl SearchScope {
    /// A model's view: the model-facing tools of `policy`.
    pub fn model(policy: FamilyPolicy) -> Self {
        Self {
            policy,
            runtime_access: false,
        }
    }

    fn allows(&self, document: &Document) -> bool {
        self.policy.allows(document.family)
            && (document.visibility == Visibility::Model || self.runtime_access)
    }
}

/// One tool found by a search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    /// The tool's name.
    pub name: Arc<str>,
    /// The first sentence of its description.
    pub summary: String,
    /// How well it matches: higher is better; comparable within one search only.
    pub score: f32,
}

struct Document {
    name: Arc<str>,
    summary: String,
    family: ToolCapabilityFamily,
    visibility: Visibility,
}

/// The search index of one registry.
pub struct SearchIndex {
    documents: Vec<Document>,
    tokenizer: ToolTokenizer,
    scorer: Scorer<u32, u64>,
    /// Every term of the index, to tell a misspelt query word from a rare one.
    vocabulary: FxHashSet<String>,
    names: NameMatcher,
    related: RelatedTerms,
}

impl SearchIndex {
    /// The index of `registry`, built on the first call and shared after.
    pub fn of(registry: &Registry) -> Arc<SearchIndex> {
        registry.derived(SearchIndex::build)
    }

    /// Builds the index of every tool of `registry` (runtime-only ones too: a search
    /// in a scope without runtime access leaves them out).
    pub fn build(registry: &Registry) -> SearchIndex {
        let tokenizer = ToolTokenizer::new();
        let mut documents = Vec::with_capacity(registry.len());
        let mut terms_of = Vec::with_capacity(registry.len());
        let mut vocabulary = FxHashSet::default();
        let mut total_terms = 0usize;
        for definition in registry.definitions() {
            let terms = tokenizer.terms(&document::text(definition));
            total_terms += terms.len();
            vocabulary.extend(terms.iter().cloned());
            terms_of.push(terms);
            documents.push(Document {
                name: definition.spec.name.clone(),
                summary: document::summary(&definition.spec.description),
                family: definition.family,
                visibility: definition.visibility,
            });
        }
        let average = total_terms as f32 / documents.len().max(1) as f32;
        let mut scorer = Scorer::new();
        for (id, terms) in terms_of.iter().enumerate() {
            scorer.upsert(&(id as u32), document_embedding(terms, average));
        }
        let names = NameMatcher::new(documents.iter().map(|document| &*document.name));
        let related = RelatedTerms::new(&tokenizer, &vocabulary);
        SearchIndex {
            documents,
            tokenizer,
            scorer,
            vocabulary,
            names,
            related,
        }
    }

    /// How many tools the index holds (whatever their scope).
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// The `limit` tools of `scope` that match `query` best, best first. A query that
    /// is (close to) a tool's name puts that tool first; a misspelt word of a query
    /// is read as the closest word of a tool name; a word's related terms count for a
    /// fifth of the word itself.
    pub fn search(&self, query: &str, limit: usize, scope: SearchScope) -> Vec<SearchHit> {
        let query = truncate(query, MAX_QUERY_BYTES);
        let tokenizer = &self.tokenizer;
        let mut terms = Vec::new();
        let mut related: Vec<&str> = Vec::new();
        tokenize::for_each_word(query, |word| {
            if let Some(term) = tokenizer.term(word) {
                related.extend(self.related.of(&term).iter().map(String::as_str));
                if self.vocabulary.contains(&term) {
                    terms.push(term);
                } else if let Some(corrected) = self.names.correct(word) {
                    terms.extend(tokenizer.term(corrected));
                }
            }
        });
        // A related term the query has itself already counts in full.
        related.sort_unstable();
        related.dedup();
        related.retain(|term| !terms.iter().any(|own| own.as_str() == *term));
        let mut scored: Vec<(usize, f32)> = self
            .scorer
            .matches(&query_embedding(terms.iter().map(String::as_str)))
            .into_iter()
            .map(|found| (found.id as usize, found.score))
            .collect();
        if !related.is_empty() {
            let mut at: FxHashMap<usize, usize> = scored
                .iter()
                .enumerate()
                .map(|(at, (id, _))| (*id, at))
                .collect();
            for found in self.scorer.matches(&query_embedding(related.into_iter())) {
                let id = found.id as usize;
                let score = RELATED_WEIGHT * found.score;
                match at.get(&id) {
                    Some(&at) => scored[at].1 += score,
                    None => {
                        at.insert(id, scored.len());
                        scored.push((id, score));
                    }
                }
            }
            scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        scored.retain(|(id, _)| scope.allows(&self.documents[*id]));
        let top = scored.first().map_or(0.0, |(_, score)| *score);
        for (id, closeness) in self.names.matches(query) {
            if !scope.allows(&self.documents[id]) {
                continue;
            }
            // A name match ranks above every text match, the closest name first.
            let boosted = top + 1.0 + closeness;
            match scored.iter_mut().find(|(found, _)| *found == id) {
                Some(entry) => entry.1 = entry.1.max(boosted),
                None => scored.push((id, boosted)),
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
            .into_iter()
            .take(limit)
            .map(|(id, score)| SearchHit {
                name: self.documents[id].name.clone(),
                summary: self.documents[id].summary.clone(),
                score,
            })
            .collect()
    }
}

/// A query's terms as the scorer takes them (it weighs every query term alike).
fn query_embedding<'a>(terms: impl Iterator<Item = &'a str>) -> Embedding<u64> {
    Embedding(
        terms
            .map(|term| TokenEmbedding {
                index: <u64 as TokenEmbedder>::embed(term),
                value: 1.0,
            })
            .collect(),
    )
}

/// BM25's per-term weights of one document (its term frequencies, saturated and
/// normalized by its length), as the `bm25` crate's embedder computes them, but from
/// the terms already made and one entry per distinct term (its embedder keeps one per
/// occurrence, which its scorer then scans for every query term).
fn document_embedding(terms: &[String], average: f32) -> Embedding<u64> {
    let mut counts: FxHashMap<&str, u32> = rustc_hash::FxHashMap::default();
    for term in terms {
        *counts.entry(term).or_default() += 1;
    }
    let length = terms.len() as f32;
    Embedding(
        counts
            .into_iter()
            .map(|(term, count)| {
                let frequency = count as f32;
                let weight = frequency * (K1 + 1.0)
                    / (frequency + K1 * (1.0 - B + B * length / average.max(1.0)));
                TokenEmbedding {
                    index: <u64 as TokenEmbedder>::embed(term),
                    value: weight,
                }
            })
            .collect(),
    )
}

/// `text` cut to at most `max` bytes, on a character boundary.
fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
