//! The integration tests of the `holon-tools` CLI in one binary: the commands, the
//! MCP server, and the tools whose commands the binary confines (it is their limits
//! helper). The built-in tools' fixtures come from holon-tool-fixtures, as holon-tools'
//! own tests take them.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

// Links the built-in tools into the registry (they are found by link-time inventory).
use holon_tools as _;

mod cli_support;
mod task_support;

mod agent_cli;
mod apply_patch_concurrent;
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
mod export;
mod keys_cli;
mod leftover_jobs;
mod operator_files;
mod otlp_export;
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
mod web_image_cli;
