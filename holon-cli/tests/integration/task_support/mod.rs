//! Helpers shared by the task control plane tests.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_runtime::{Runtime, RuntimeConfig};
use serde_json::Value;

/// A runtime on a fresh workspace (kept alive by the returned guard), whose commands
/// run under the resource limits set by the `holon-tools` binary, as the CLI's do.
pub fn runtime() -> (Arc<Runtime>, tempfile::TempDir) {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join("sub")).unwrap();
    let mut config = RuntimeConfig::in_memory(workspace.path());
    config.commands.limiter = Some(env!("CARGO_BIN_EXE_holon-tools").into());
    let runtime = Runtime::open(config).unwrap();
    (runtime, workspace)
}

pub async fn call(runtime: &Arc<Runtime>, name: &str, input: Value) -> Value {
    let result = Registry::global()
        .dispatch(
            &runtime.context(FamilyPolicy::all()),
            ToolCall::new(name, input),
        )
        .await;
    serde_json::to_value(&result).unwrap()
}

pub fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// Whether a process with this id still exists (a zombie another process must reap
/// counts as gone from this process's point of view only if its parent is not us).
pub fn alive(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => {
            let after_name = &stat[stat.rfind(')').unwrap() + 2..];
            let mut fields = after_name.split(' ');
            let state = fields.next().unwrap();
            let parent: u32 = fields.next().unwrap().parse().unwrap();
            !(state == "Z" && parent != std::process::id())
        }
    }
}

/// Waits (bounded) until the process is gone: killed processes a shell started are
/// reaped by init, which may take a moment.
pub fn gone(pid: u64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// A command that starts `sleep 30` in the background of its shell, writes both pids
/// to `pids` (the shell's, then the sleep's; whole, through a rename) and waits.
pub fn sleeper(pids: &std::path::Path) -> String {
    format!(
        "sleep 30 & echo $$ $! > {tmp}; mv {tmp} {pids}; wait",
        tmp = pids.with_extension("tmp").display(),
        pids = pids.display()
    )
}

/// The pids a [`sleeper`] wrote to `path`, if it did yet.
pub fn written_pids(path: &std::path::Path) -> Option<Vec<u64>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.split_whitespace()
            .map(|pid| pid.parse().unwrap())
            .collect(),
    )
}
