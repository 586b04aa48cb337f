//! The `holon-tools` binary as the CLI tests run it.

use std::path::Path;
use std::process::{Command, Output};

/// `holon-tools --workspace WORKSPACE`, ignoring a state directory or model catalog
/// set in the environment running the tests.
pub fn holon_command(workspace: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_holon-tools"));
    command
        .arg("--workspace")
        .arg(workspace)
        .env_remove("HOLON_HOME")
        .env_remove("HOLON_MODEL_CATALOG");
    command
}

/// Runs `holon-tools --workspace WORKSPACE ARGS...` to its end.
pub fn holon(workspace: &Path, args: &[&str]) -> Output {
    holon_command(workspace).args(args).output().unwrap()
}
