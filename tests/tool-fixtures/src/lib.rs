//! What the built-in tools' tests share, in holon-tools' test binary and holon-cli's:
//! a runtime on a temporary workspace and calls through the registry ([`runtime`]),
//! workspaces with real git repositories ([`workspace`]), a loopback web server that
//! plays pages and providers ([`web_server`]), and the check that a bench's tool is
//! linked ([`require_tool`]).
//!
//! A dev-dependency only (it panics on what a test did not expect, which is how a test
//! fails). It depends on holon-runtime but not on holon-tools, so holon-tools' own tests
//! can use it. Scaffolding that names no holon crate lives in holon-test-support.

// Test fixtures make directories, run git and listen on loopback: the effects the
// gates confine everywhere else.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

pub mod runtime;
pub mod web_server;
pub mod workspace;

use holon_core::Registry;

/// Panics, naming the tool, unless `name` is registered: a bench of a tool that is not
/// linked must fail, not time an `unknown_tool` error. Benches dispatch the built-in
/// tools by name, and rustc links holon-tools only when the code names it
/// (`use holon_tools as _;`).
pub fn require_tool(name: &str) {
    assert!(
        Registry::global().get(name).is_some(),
        "the bench needs the built-in tool `{name}`, and the registry has no such tool: \
         is holon-tools linked (`use holon_tools as _;`)?"
    );
}
