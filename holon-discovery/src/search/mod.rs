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
mod scorer;
mod tokenize;

use std::sync::Arc;

use serde::Serialize;

use holon_core::{FamilyPolicy, Registry, ToolCapabilityFamily, Visibility};

pub use document::SUMMARY_MAX_CHARS;
use names::NameMatcher;
use related::RelatedTerms;
use scorer::Scorer;
use tokenize::ToolTokenizer;

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
    /// Also the index's vocabulary, to tell a misspelt query word from a rare one.
    scorer: Scorer,
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
        for definition in registry.definitions() {
            terms_of.push(tokenizer.terms(&document::text(definition)));
            documents.push(Document {
                name: definition.spec.name.clone(),
                summary: document::summary(&definition.spec.description),
                family: definition.family,
                visibility: definition.visibility,
            });
        }
        let scorer = Scorer::new(&terms_of);
        let names = NameMatcher::new(documents.iter().map(|document| &*document.name));
        let related = RelatedTerms::new(&tokenizer, |term| scorer.has(term));
        SearchIndex {
            documents,
            tokenizer,
            scorer,
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
                if self.scorer.has(&term) {
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
        // One pass: each query term in full, each related term at its lower weight.
        let weighted = terms
            .iter()
            .map(|term| (term.as_str(), 1.0))
            .chain(related.into_iter().map(|term| (term, RELATED_WEIGHT)));
        let mut scored = self.scorer.scores(weighted);
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
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
