//! The `holon-tools` binary as the CLI tests run it.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// `holon-tools --workspace WORKSPACE` with its state in `WORKSPACE/.holon` (through
/// `HOLON_HOME`, so that a test's `--state-dir` still wins), never in the user's data
/// directory, and ignoring a model catalog set in the environment running the tests.
pub fn holon_command(workspace: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_holon-tools"));
    command
        .arg("--workspace")
        .arg(workspace)
        .env("HOLON_HOME", workspace.join(".holon"))
        .env_remove("HOLON_MODEL_CATALOG")
        .env_remove("HOLON_POLICY");
    command
}

/// Runs `holon-tools --workspace WORKSPACE ARGS...` to its end.
pub fn holon(workspace: &Path, args: &[&str]) -> Output {
    holon_command(workspace).args(args).output().unwrap()
}

/// Runs `holon-tools --workspace WORKSPACE ARGS...` to its end with `input` on stdin.
pub fn holon_with_stdin(workspace: &Path, args: &[&str], input: &str) -> Output {
    let mut child = holon_command(workspace)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Runs one `holon-tools session` with `lines` on stdin (an empty one included as it
/// is) and returns the envelopes it wrote, one a line.
pub fn session(workspace: &Path, lines: &[&str]) -> Vec<Value> {
    let mut child = holon_command(workspace)
        .arg("session")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let stdin = child.stdin.as_mut().unwrap();
        for line in lines {
            writeln!(stdin, "{line}").unwrap();
        }
    }
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}
