//! # holon-gates
//!
//! The three gates every effect of the holon runtime goes through, and the only code of
//! the workspace allowed that effect (the workspace's `clippy.toml` disallows it
//! everywhere else):
//!
//! - [`fs`]: a workspace root is an open directory handle, and paths resolve beneath
//!   it in the kernel, never by checking a string and reopening it;
//! - [`net`]: one HTTP client whose DNS resolver and redirect policy check every
//!   address;
//! - [`process`]: one launcher of commands, with an allow-listed environment,
//!   resource limits, a cgroup, its own process group, Landlock and a seccomp filter.
//!
//! The gates know no host: their errors are their own types, and what they cannot
//! provide on this machine is reported through `tracing` (WARN).

// Tests set their fixtures up with std::fs and std::process freely; the code
// they test is linted without this.
#![cfg_attr(test, allow(clippy::disallowed_methods, clippy::disallowed_types))]

pub mod fs;
pub mod net;
pub mod process;
