//! Effects only through the gates, and the rule cannot rot silently. The root
//! `clippy.toml` (the only one: clippy reads the nearest, so a crate's own file would
//! replace it) must keep every entry below, each with a reason; and an
//! `allow(clippy::disallowed_methods)` or `allow(clippy::disallowed_types)` outside
//! test code may only stand in the files [`ALLOWED`] lists, each of which still needs
//! it. Test code (files under `tests/`, `benches/` or `ui-tests/`, and
//! `cfg_attr(test, allow(...))`) may use the effects freely.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Types clippy.toml must disallow.
const REQUIRED_TYPES: &[&str] = &[
    "std::fs::File",
    "std::fs::OpenOptions",
    "std::fs::DirBuilder",
    "std::process::Command",
    "tokio::process::Command",
    "portable_pty::CommandBuilder",
    "std::net::TcpStream",
    "std::net::TcpListener",
    "std::net::UdpSocket",
    "std::os::unix::net::UnixStream",
    "std::os::unix::net::UnixListener",
    "tokio::net::TcpStream",
    "tokio::net::TcpListener",
    "tokio::net::TcpSocket",
    "tokio::net::UdpSocket",
    "tokio::net::UnixStream",
    "tokio::net::UnixListener",
    "reqwest::Client",
    "reqwest::ClientBuilder",
];

/// Functions clippy.toml must disallow.
const REQUIRED_METHODS: &[&str] = &[
    "std::fs::File::open",
    "std::fs::File::create",
    "std::fs::File::create_new",
    "std::fs::File::options",
    "std::fs::OpenOptions::new",
    "std::fs::read",
    "std::fs::read_to_string",
    "std::fs::write",
    "std::fs::read_dir",
    "std::fs::create_dir",
    "std::fs::create_dir_all",
    "std::fs::remove_file",
    "std::fs::remove_dir",
    "std::fs::remove_dir_all",
    "std::fs::rename",
    "std::fs::copy",
    "std::fs::hard_link",
    "std::fs::metadata",
    "std::fs::symlink_metadata",
    "std::fs::canonicalize",
    "std::fs::read_link",
    "std::fs::set_permissions",
    "std::fs::exists",
    "std::os::unix::fs::symlink",
    "std::path::Path::metadata",
    "std::path::Path::symlink_metadata",
    "std::path::Path::read_dir",
    "std::path::Path::read_link",
    "std::path::Path::exists",
    "std::path::Path::try_exists",
    "std::path::Path::is_dir",
    "std::path::Path::is_file",
    "std::path::Path::is_symlink",
    "std::path::Path::canonicalize",
    "std::process::Command::new",
    "tokio::process::Command::new",
    "portable_pty::CommandBuilder::new",
    "std::net::TcpStream::connect",
    "std::net::TcpListener::bind",
    "tokio::net::TcpStream::connect",
    "tokio::net::TcpListener::bind",
    "tokio::net::lookup_host",
    "std::net::ToSocketAddrs::to_socket_addrs",
    "reqwest::Client::new",
    "reqwest::Client::builder",
    "reqwest::get",
    "rusqlite::Connection::open",
    "rusqlite::Connection::open_in_memory",
    "rusqlite::Connection::open_with_flags",
    "rusqlite::Connection::open_in_memory_with_flags",
    "rusqlite::Connection::open_with_flags_and_vfs",
];

/// The files (from the workspace root) where the effects are allowed outside test
/// code, and why. A new gate use belongs in a gate; a new entry here needs a reason
/// a reviewer accepts.
const ALLOWED: &[(&str, &str)] = &[
    ("holon-gates/src/fs/mod.rs", "the filesystem gate"),
    ("holon-gates/src/net/mod.rs", "the network gate"),
    ("holon-gates/src/process/mod.rs", "the process gate"),
    ("holon-runtime/src/store.rs", "the store opener"),
    (
        "holon-runtime/src/audit_log.rs",
        "the audit log the operator turns on (append-only, outside the gates' reach)",
    ),
    (
        "holon-cli/src/audit.rs",
        "the CLI reads the audit log to list and verify it",
    ),
    (
        "holon-runtime/src/state_dir.rs",
        "the state-directory setup and the operator's configuration files",
    ),
    (
        "holon-cli/src/catalog.rs",
        "the CLI reads the inventory file the operator names",
    ),
    (
        "holon-mcp/src/http/guard.rs",
        "the MCP server reads its bearer-token file",
    ),
    (
        "holon-cli/src/lint.rs",
        "the CLI reads the guidance files the operator names",
    ),
    (
        "holon-mcp/src/http/server.rs",
        "the MCP server's listening socket",
    ),
    (
        "holon-mcp/src/stdio/pipes.rs",
        "the MCP server's stdin and stdout, when its client hands it Unix sockets",
    ),
    (
        "test-support/src/lib.rs",
        "the tests' shared scaffolding (a dev-dependency only): server processes, loopback sockets, a throw-away PostgreSQL",
    ),
    (
        "examples/agent/src/endpoint.rs",
        "the example agent's HTTP client to the model API it is pointed at (a host, not a tool)",
    ),
    (
        "holon-mcp/examples/call_load.rs",
        "a load generator's connections to the server or balancer it measures (scripts/mcp-replica-throughput)",
    ),
    (
        "holon-mcp/src/tasks/sqlite.rs",
        "the MCP server's task store opens the SQLite file its host names (feature sqlite)",
    ),
    (
        "holon-mcp/src/keyring/sqlite.rs",
        "the MCP server's keyring opens the SQLite file its host names (feature sqlite)",
    ),
    (
        "holon-mcp/src/keyring/file.rs",
        "the MCP server reads the key file its operator names",
    ),
    (
        "holon-mcp/src/auth/keys.rs",
        "the OAuth resource server reads the key file and fetches the JWKS its operator names (holon-mcp does not link holon-gates, so no network gate)",
    ),
    (
        "holon-tool-macros/src/examples.rs",
        "compile-time reads of a tool author's example files",
    ),
    (
        "holon-tool-macros/src/impl_context.rs",
        "compile-time reads of the source file being expanded",
    ),
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The `path`s of one list of clippy.toml, each with its reason.
fn entries(config: &toml::Table, list: &str) -> BTreeMap<String, String> {
    let Some(toml::Value::Array(items)) = config.get(list) else {
        panic!("clippy.toml has no `{list}` list");
    };
    items
        .iter()
        .map(|item| {
            let path = item.get("path").and_then(toml::Value::as_str);
            let reason = item.get("reason").and_then(toml::Value::as_str);
            match (path, reason) {
                (Some(path), Some(reason)) if !reason.trim().is_empty() => {
                    (path.to_string(), reason.to_string())
                }
                _ => panic!("an entry of `{list}` lacks a path or a reason: {item}"),
            }
        })
        .collect()
}

#[test]
fn clippy_toml_keeps_every_entry_with_a_reason() {
    let text = std::fs::read_to_string(workspace_root().join("clippy.toml")).unwrap();
    let config: toml::Table = text.parse().unwrap();
    for (list, required) in [
        ("disallowed-types", REQUIRED_TYPES),
        ("disallowed-methods", REQUIRED_METHODS),
    ] {
        let found = entries(&config, list);
        let missing: Vec<_> = required
            .iter()
            .filter(|path| !found.contains_key(**path))
            .collect();
        assert!(missing.is_empty(), "clippy.toml `{list}` lost {missing:?}");
    }
}

/// Every `.rs` file of the workspace, and every clippy configuration file, outside
/// `target/` and hidden folders.
fn walk(root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut sources, mut configs) = (Vec::new(), Vec::new());
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    stack.push(path);
                }
            } else if name == "clippy.toml" || name == ".clippy.toml" {
                configs.push(path);
            } else if name.ends_with(".rs") {
                sources.push(path);
            }
        }
    }
    sources.sort();
    (sources, configs)
}

/// Whether code at `rel` is test code: under a `tests/`, `benches/` or `ui-tests/`
/// folder.
fn is_test_code(rel: &Path) -> bool {
    rel.components().any(|part| {
        matches!(
            part.as_os_str().to_str(),
            Some("tests" | "benches" | "ui-tests")
        )
    })
}

/// How many `allow`/`expect` attributes name a disallowed_* lint, outside
/// `cfg_attr(test, ...)`.
#[derive(Default)]
struct Allows {
    count: usize,
}

impl Visit<'_> for Allows {
    fn visit_attribute(&mut self, attr: &syn::Attribute) {
        let syn::Meta::List(list) = &attr.meta else {
            return;
        };
        let tokens = list.tokens.to_string();
        if !tokens.contains("disallowed_methods") && !tokens.contains("disallowed_types") {
            return;
        }
        let test_only = list.path.is_ident("cfg_attr") && tokens.starts_with("test ,");
        let allows = list.path.is_ident("allow")
            || list.path.is_ident("expect")
            || list.path.is_ident("cfg_attr");
        if allows && !test_only {
            self.count += 1;
        }
    }
}

#[test]
fn effects_are_allowed_only_in_the_listed_modules() {
    let root = workspace_root();
    let (sources, configs) = walk(&root);
    assert_eq!(
        configs,
        [root.join("clippy.toml")],
        "a crate's own clippy configuration would replace the workspace's rules for it"
    );
    let allowed: BTreeSet<&str> = ALLOWED.iter().map(|(file, _)| *file).collect();
    let mut unlisted = Vec::new();
    let mut used = BTreeSet::new();
    for path in &sources {
        let rel = path.strip_prefix(&root).unwrap();
        if is_test_code(rel) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let file =
            syn::parse_file(&text).unwrap_or_else(|error| panic!("{}: {error}", rel.display()));
        let mut allows = Allows::default();
        allows.visit_file(&file);
        if allows.count == 0 {
            continue;
        }
        let rel = rel.to_string_lossy().into_owned();
        if allowed.contains(rel.as_str()) {
            used.insert(rel);
        } else {
            unlisted.push(rel);
        }
    }
    assert!(
        unlisted.is_empty(),
        "effects allowed outside the gates (move the effect into a gate, or list the \
         file in ALLOWED with its reason): {unlisted:?}"
    );
    let stale: Vec<_> = allowed
        .iter()
        .filter(|file| !used.contains(**file))
        .collect();
    assert!(
        stale.is_empty(),
        "ALLOWED lists files that no longer allow effects: {stale:?}"
    );
}
