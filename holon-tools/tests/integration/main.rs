//! The integration tests of holon-tools in one binary: one link of the runtime, its
//! HTTP, TLS, image and MCP stacks instead of one per file, which keeps builds small.
//! `exec_memory` (it measures this process's memory) stays a binary of its own. The
//! tests that run the `holon-tools` binary are holon-cli's.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

// Links the built-in tools into the registry (they are found by link-time inventory).
use holon_tools as _;

mod adversarial_fs;
mod agents;
mod apply_patch;
mod apply_patch_codex;
mod apply_patch_grammar;
mod apply_patch_vs_git;
mod execution_log;
mod generate_image;
mod host_work_rules;
mod image_bombs;
mod memory;
mod planted_worktrees;
mod tools;
mod view_image;
mod wait_resources;
mod wait_settlement_props;
mod waits;
mod web_fetch;
mod web_search;
mod web_untrusted;
mod work_items;
mod workspace_bindings;
mod workspace_host_rules;
mod worktrees;
mod x_search;
