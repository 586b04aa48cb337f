//! Helpers shared by the workspace and memory plane tests: runtimes on temporary
//! directories, dispatch through the registry, and real git repositories.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use holon_core::{FamilyPolicy, Registry, ToolCall};
use holon_runtime::{Runtime, RuntimeConfig};
use serde_json::Value;

/// A temporary directory holding a home workspace (`home/`), room for more
/// directories next to it, and an in-memory runtime on `home/`.
pub struct Fixture {
    /// The temporary directory; `home/` is the runtime's workspace.
    pub dir: tempfile::TempDir,
    /// The runtime on `home/`.
    pub runtime: Arc<Runtime>,
}

impl Default for Fixture {
    fn default() -> Self {
        Self::new()
    }
}

impl Fixture {
    /// A runtime whose state is in memory.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        let runtime = Runtime::open(RuntimeConfig::in_memory(dir.path().join("home"))).unwrap();
        Self { dir, runtime }
    }

    /// A runtime whose state is on disk, in `home/.holon/`.
    pub fn on_disk() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        let runtime = Runtime::open(crate::runtime::config_with_state_in(
            dir.path().join("home"),
        ))
        .unwrap();
        Self { dir, runtime }
    }

    /// The canonical path of `rel` under the temporary directory.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().canonicalize().unwrap().join(rel)
    }

    /// The home workspace.
    pub fn home(&self) -> PathBuf {
        self.path("home")
    }

    /// Makes the directory `rel` (and its parents) and returns its canonical path.
    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(&path).unwrap();
        path
    }

    /// Writes `text` to `rel`, making its parents.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Dispatches `name` with `input` under every family.
    pub async fn call(&self, name: &str, input: Value) -> Value {
        call_with(&self.runtime, FamilyPolicy::all(), name, input).await
    }

    /// Dispatches and asserts success; returns `structured`.
    pub async fn ok(&self, name: &str, input: Value) -> Value {
        let envelope = self.call(name, input).await;
        assert_eq!(envelope["status"], "success", "{name}: {envelope}");
        envelope["structured"].clone()
    }

    /// Dispatches and asserts an error of `kind`; returns the error.
    pub async fn fails(&self, name: &str, input: Value, kind: &str) -> Value {
        let envelope = self.call(name, input).await;
        assert_eq!(envelope["status"], "error", "{name}: {envelope}");
        assert_eq!(envelope["error"]["kind"], kind, "{name}: {envelope}");
        envelope["error"].clone()
    }
}

/// Dispatches `name` with `input` under `policy`; the envelope as JSON.
pub async fn call_with(
    runtime: &Arc<Runtime>,
    policy: FamilyPolicy,
    name: &str,
    input: Value,
) -> Value {
    let result = Registry::global()
        .dispatch(&runtime.context(policy), ToolCall::new(name, input))
        .await;
    serde_json::to_value(&result).unwrap()
}

/// Runs git in `dir` with a fixed identity; panics with its output when it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=Holon Test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .arg("-C")
        .arg(dir)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Makes `dir` a git repository on `main` with one commit holding `README.md`.
pub fn init_repo(dir: &Path) {
    git(dir, &["init", "-q"]);
    std::fs::write(dir.join("README.md"), "# Project\n\nhello\n").unwrap();
    std::fs::write(dir.join(".gitignore"), ".holon/\n").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "initial"]);
}

/// Whether the local branch exists.
pub fn has_branch(dir: &Path, branch: &str) -> bool {
    !git(dir, &["branch", "--list", branch]).trim().is_empty()
}
