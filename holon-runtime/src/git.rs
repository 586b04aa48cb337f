//! The `git` binary, for the workspace tools' worktrees: started through the process
//! gate like every command (the operator's environment less the hidden credentials,
//! the resource limits, a process group of its own), non-interactive, and blind to
//! `GIT_*` variables that would point it at another repository.

use std::path::Path;
use std::process::Stdio;

use holon_gates::process::{Launcher, WorkingDir};

/// Environment variables that would make git act on another repository.
const REPOSITORY_VARIABLES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
];

/// What a git command did.
#[derive(Debug)]
pub struct GitOutput {
    /// Whether it exited with 0.
    pub success: bool,
    /// Its exit code.
    pub code: Option<i32>,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error, trimmed.
    pub stderr: String,
}

/// Why git could not be run at all.
#[derive(Debug, thiserror::Error)]
#[error("running git failed: {source}")]
pub struct GitUnavailable {
    #[source]
    source: std::io::Error,
}

/// Runs git through a runtime's process gate.
#[derive(Debug, Clone, Copy)]
pub struct Git<'a> {
    launcher: &'a Launcher,
}

impl<'a> Git<'a> {
    /// Git started by `launcher`.
    pub fn new(launcher: &'a Launcher) -> Self {
        Self { launcher }
    }

    /// Runs `git -C dir args...` to its end. It starts in `/` (`-C` takes it to
    /// `dir`), so that a missing `dir` is git's own failure, not a failed start.
    pub fn run(&self, dir: &Path, args: &[&str]) -> Result<GitOutput, GitUnavailable> {
        let unavailable = |source| GitUnavailable { source };
        let start = WorkingDir::open(Path::new("/")).map_err(unavailable)?;
        let dir = dir.to_string_lossy();
        let mut argv = vec!["-C", &dir];
        argv.extend_from_slice(args);
        let mut command = self
            .launcher
            .command("git", &argv, &start)
            .map_err(unavailable)?;
        for variable in REPOSITORY_VARIABLES {
            command.env_remove(variable);
        }
        command
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("LC_ALL", "C")
            .stdin(Stdio::null());
        let output = command.output().map_err(unavailable)?;
        Ok(GitOutput {
            success: output.status.success(),
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        })
    }
}
