//! No import cycles inside a crate: for every module, the modules it names with
//! `crate::`, `super::` or `self::` paths form, among siblings, a graph without cycles.
//! A reference to an ancestor or a descendant (a child's `use super::*`, a parent's
//! `pub use child::Item`) is structure, not a cycle; `a` naming `b` and `b` naming `a`
//! (directly or through other siblings) is one.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The crates that must stay acyclic.
const CRATES: &[&str] = &[
    "holon-core",
    "holon-discovery",
    "holon-export",
    "holon-gates",
    "holon-lint",
    "holon-patch",
    "holon-policy",
    "holon-runtime",
    "holon-tool-macros",
    "holon-web-text",
    "test-support",
];

type ModulePath = Vec<String>;

/// Every module file of a crate: `lib.rs` is the root, `a.rs` and `a/mod.rs` are `a`.
fn module_files(src: &Path) -> BTreeMap<ModulePath, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut segments: ModulePath = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                segments.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                segments.pop();
            }
            out.insert(segments, path);
        }
    }
    out
}

/// The absolute module paths a file's paths start with.
struct References<'m> {
    module: &'m ModulePath,
    found: Vec<ModulePath>,
}

impl References<'_> {
    fn resolve(&mut self, segments: &[String]) {
        let mut absolute = self.module.clone();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                absolute.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    absolute.pop();
                    rest = &rest[1..];
                }
            }
            _ => return,
        }
        absolute.extend(rest.iter().cloned());
        self.found.push(absolute);
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) => {
                prefix.push(name.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Rename(rename) => {
                prefix.push(rename.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.resolve(&prefix.clone()),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for References<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve(&segments);
        syn::visit::visit_path(self, path);
    }
}

/// The module a path names: its longest prefix that is a module file.
fn owner<'m>(
    modules: &'m BTreeMap<ModulePath, PathBuf>,
    path: &[String],
) -> Option<&'m ModulePath> {
    (0..=path.len())
        .rev()
        .find_map(|len| modules.get_key_value(&path[..len]).map(|(k, _)| k))
}

/// The edges between siblings: `from` naming `to` becomes an edge between their
/// ancestors just below the deepest module both are inside.
fn sibling_edges(modules: &BTreeMap<ModulePath, PathBuf>) -> BTreeSet<(ModulePath, ModulePath)> {
    let mut edges = BTreeSet::new();
    for (module, file) in modules {
        let text = std::fs::read_to_string(file).unwrap();
        let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut refs = References {
            module,
            found: Vec::new(),
        };
        refs.visit_file(&syntax);
        for path in refs.found {
            let Some(target) = owner(modules, &path) else {
                continue;
            };
            let common = module
                .iter()
                .zip(target)
                .take_while(|(a, b)| a == b)
                .count();
            if common == module.len() || common == target.len() {
                continue; // an ancestor or a descendant, or the module itself
            }
            edges.insert((module[..=common].to_vec(), target[..=common].to_vec()));
        }
    }
    edges
}

/// One cycle of the graph, if it has any (depth-first search).
fn find_cycle(edges: &BTreeSet<(ModulePath, ModulePath)>) -> Option<Vec<ModulePath>> {
    let mut next: BTreeMap<&ModulePath, Vec<&ModulePath>> = BTreeMap::new();
    for (from, to) in edges {
        next.entry(from).or_default().push(to);
    }
    fn visit<'e>(
        node: &'e ModulePath,
        next: &BTreeMap<&'e ModulePath, Vec<&'e ModulePath>>,
        done: &mut BTreeSet<&'e ModulePath>,
        stack: &mut Vec<&'e ModulePath>,
    ) -> Option<Vec<ModulePath>> {
        if let Some(at) = stack.iter().position(|n| *n == node) {
            return Some(stack[at..].iter().map(|n| (*n).clone()).collect());
        }
        if !done.insert(node) {
            return None;
        }
        stack.push(node);
        for to in next.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(to, next, done, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    next.keys()
        .find_map(|node| visit(node, &next, &mut done, &mut Vec::new()))
}

fn cycle_of(src: &Path) -> Option<String> {
    let cycle = find_cycle(&sibling_edges(&module_files(src)))?;
    let names: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
    Some(format!("{} -> {}", names.join(" -> "), names[0]))
}

#[test]
fn no_crate_has_an_import_cycle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let cycles: Vec<String> = CRATES
        .iter()
        .filter_map(|krate| {
            cycle_of(&workspace.join(krate).join("src")).map(|c| format!("{krate}: {c}"))
        })
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn a_cycle_between_siblings_is_found_and_structure_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("outer")).unwrap();
    let files = [
        ("lib.rs", "mod a; mod b; mod outer; pub use a::A;"),
        (
            "a.rs",
            "use super::*; pub struct A; fn f() -> crate::outer::inner::X { todo!() }",
        ),
        ("b.rs", "pub struct B(crate::a::A);"),
        ("outer/mod.rs", "mod inner; pub use inner::X;"),
        (
            "outer/inner.rs",
            "pub struct X; fn g() -> super::super::b::B { todo!() }",
        ),
    ];
    for (name, text) in files {
        std::fs::write(src.join(name), text).unwrap();
    }
    assert_eq!(cycle_of(src).as_deref(), Some("a -> outer -> b -> a"));
    std::fs::write(src.join("b.rs"), "pub struct B;").unwrap();
    assert_eq!(cycle_of(src), None);
}
