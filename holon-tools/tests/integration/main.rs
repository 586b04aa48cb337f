//! The integration tests of holon-tools in one binary: one link of the runtime, its
//! HTTP, TLS, image and MCP stacks instead of one per file, which keeps builds small.
//! `exec_memory` (it measures this process's memory) and `lint_guidance` (it
//! registers a fixture tool) stay binaries of their own.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

// Links the built-in tools into the registry (they are found by link-time inventory).
use holon_tools as _;

mod cli_support;
// The fixture starts a PostgreSQL server of its own for a test.
mod local_http;
#[path = "../../../holon-mcp/tests/support/postgres.rs"]
#[allow(dead_code)]
mod postgres_support;
mod support;
mod task_support;
mod workspace_support;

mod adversarial_fs;
mod agent_cli;
mod agents;
mod apply_patch;
mod apply_patch_codex;
mod apply_patch_concurrent;
mod apply_patch_grammar;
mod apply_patch_vs_git;
mod approvals;
mod approvals_mcp;
mod approvals_out_of_band;
mod approvals_replicas;
mod approvals_site;
mod audit_cli;
mod audit_store;
mod cancellation;
mod cli;
mod cli_papercuts;
mod exec_command;
mod execution_log;
mod export;
mod generate_image;
mod host_work_rules;
mod image_bombs;
mod keys_cli;
mod leftover_jobs;
mod memory;
mod operator_files;
mod otlp_export;
mod planted_worktrees;
mod process_gate;
mod respond;
mod sandbox;
mod scheduling_attacks;
mod serve;
mod serve_cancel;
mod serve_discovery;
mod server_attacks;
mod task_control_cli;
mod task_owners;
mod task_owners_http;
mod task_tools;
mod tools;
mod view_image;
mod wait_resources;
mod wait_settlement_props;
mod waits;
mod web_fetch;
mod web_image_cli;
mod web_search;
mod web_untrusted;
mod work_items;
mod workspace_bindings;
mod workspace_host_rules;
mod worktrees;
mod x_search;
