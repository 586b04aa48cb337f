//! Building the registry: every linked tool's entry, its input examples checked as the
//! dispatcher checks a call, and the names and aliases checked over all tools. Above
//! the registry, the dispatcher and the example checks, which it puts together.

use std::collections::HashMap;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use crate::examples::checked_examples;
use crate::expected_crates::{expected_tool_crates, unmet_expectations};
use crate::meta::ToolMeta;
use crate::registry::{Entry, Registry, RegistryError, build_entry};
use crate::tool::{Tool, registered_tools};

static GLOBAL: OnceLock<Result<Registry, RegistryError>> = OnceLock::new();

impl Registry {
    /// The registry of every tool linked into this program, built on first use.
    ///
    /// # A tool crate must be linked
    ///
    /// Tools register at link time, so the registry holds the tools of every crate
    /// that is part of the program, and of no other. rustc links a dependency only
    /// when the code names it: a binary or test that lists a tool crate in its
    /// `Cargo.toml` but never refers to it gets a registry without that crate's
    /// tools, and no error. Name each tool crate that nothing else refers to with
    /// [`link!`](crate::link), at module level:
    ///
    /// ```ignore
    /// holon_core::link!(my_tools); // links `my_tools` and expects tools from it
    ///
    /// let registry = holon_core::Registry::global();
    /// ```
    ///
    /// A crate named there that contributed no tool is a registry problem.
    ///
    /// # Panics
    /// When the linked tools fail the registry checks: the program refuses to start
    /// with a message that lists every problem. Use [`Registry::try_global`] to handle it.
    pub fn global() -> &'static Registry {
        match Self::try_global() {
            Ok(registry) => registry,
            Err(error) => panic!("{error}"),
        }
    }

    /// The registry of every linked tool, or why it is invalid.
    pub fn try_global() -> Result<&'static Registry, &'static RegistryError> {
        GLOBAL
            .get_or_init(|| {
                let tools: Vec<&'static dyn Tool> = registered_tools().collect();
                let unmet = unmet_expectations(expected_tool_crates(), &tools);
                match Self::from_tools(tools) {
                    Ok(_) if !unmet.is_empty() => Err(RegistryError { problems: unmet }),
                    Ok(registry) => Ok(registry),
                    Err(mut error) => {
                        error.problems.extend(unmet);
                        Err(error)
                    }
                }
            })
            .as_ref()
    }

    /// Builds and validates a registry from the given tools.
    pub fn from_tools(
        tools: impl IntoIterator<Item = &'static dyn Tool>,
    ) -> Result<Registry, RegistryError> {
        let tools: Vec<&'static dyn Tool> = tools.into_iter().collect();
        let mut problems = Vec::new();
        let mut entries: Vec<Entry> = tools
            .iter()
            .filter_map(|tool| {
                build_entry(*tool, &mut problems)
                    .and_then(|entry| with_examples(entry, &mut problems))
            })
            .collect();
        entries.sort_by(|a, b| a.definition.spec.name.cmp(&b.definition.spec.name));

        // Names and aliases are checked over every tool, also those with other
        // problems, so that one build reports everything there is to fix; in a
        // stable order, so that the message does not depend on the link order.
        let mut metas: Vec<&ToolMeta> = tools.iter().map(|tool| tool.meta()).collect();
        metas.sort_by_key(|meta| (meta.name, meta.defined_at.file, meta.defined_at.line));
        let mut owners: HashMap<&str, (&ToolMeta, &str)> = HashMap::new();
        for meta in metas {
            let names = std::iter::once((meta.name, "name"))
                .chain(meta.aliases.iter().map(|a| (*a, "alias")));
            for (name, role) in names {
                if let Some((first, first_role)) = owners.get(name) {
                    problems.push(format!(
                        "the tool {role} `{name}` of `{}` at {} is already taken: it is the {first_role} of `{}` at {}; rename one of them",
                        meta.name, meta.defined_at, first.name, first.defined_at
                    ));
                    continue;
                }
                owners.insert(name, (meta, role));
            }
        }
        let mut lookup: FxHashMap<Box<str>, usize> =
            FxHashMap::with_capacity_and_hasher(entries.len(), Default::default());
        for (index, entry) in entries.iter().enumerate() {
            let meta = entry.tool.meta();
            for name in std::iter::once(meta.name).chain(meta.aliases.iter().copied()) {
                lookup.entry(name.into()).or_insert(index);
            }
        }
        if problems.is_empty() {
            Ok(Registry::new(entries, lookup))
        } else {
            Err(RegistryError { problems })
        }
    }
}

/// `entry` with its input examples, or `None` with a problem per failing example.
fn with_examples(mut entry: Entry, problems: &mut Vec<String>) -> Option<Entry> {
    match checked_examples(&entry) {
        Ok(examples) => {
            entry.definition.input_examples = examples.into();
            Some(entry)
        }
        Err(found) => {
            problems.extend(found);
            None
        }
    }
}
