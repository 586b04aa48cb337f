//! The fields ExecCommand, ExecCommandBatch and the task tools share, each defined
//! once: a type carries the field's checks, and `field_doc!` its meaning, which is
//! the doc of the type and of every field of that type, and so its schema description.
//! The argument structs use these and never restate them.

use std::path::Path;
use std::sync::OnceLock;

use holon_core::prelude::*;

use holon_gates::fs::FsError;
use holon_gates::process::{WorkingDir, find_program};
use holon_runtime::Runtime;

/// The output budget when `max_output_tokens` is not given.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u64 = 8_000;

/// The largest output budget; larger requests are capped to it.
pub const MAX_OUTPUT_TOKENS_CAP: u64 = 64_000;

/// Characters (bytes of output) counted per token.
pub const CHARS_PER_TOKEN: u64 = 4;

/// The meaning of a shared field, as a string literal: `#[doc = field_doc!(workdir)]`.
macro_rules! field_doc {
    (cmd) => {
        "The command line to run. A shell runs it with `-c`, so pipes, redirections, `&&`, \
         globs, variables and quoting work as in a terminal."
    };
    (workdir) => {
        "The directory to run in: relative to the workspace root, or absolute inside it. \
         Defaults to the workspace root."
    };
    (shell) => {
        "The shell that runs the command line: a name looked up on PATH or a path (`bash`, \
         `zsh`, `/bin/sh`). Defaults to bash when it is installed, else sh."
    };
    (login) => {
        "Run the shell as a login shell (`-l`), so that it reads the login profile and sets \
         up the environment a new terminal would have. Defaults to false."
    };
    (max_output_tokens) => {
        "How much output the result may quote, in tokens of about 4 characters; stdout and \
         stderr share it. Output over it keeps its head and tail around a marker of how much \
         was cut. Defaults to 8,000; more than 64,000 is capped to 64,000. The whole output \
         is always kept in log files, whose paths the result gives."
    };
    (task_id) => {
        "The id of a task, as ExecCommand's `task_handle` or ListTasks gives it (such as \
         `task-12`)."
    };
}
pub(crate) use field_doc;

#[doc = field_doc!(cmd)]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(transparent)]
pub struct CommandLine(#[schemars(length(min = 1))] pub String);

impl CommandLine {
    /// The command line, refused when it is only blanks.
    pub fn checked(self, field: &str) -> Result<String, ToolError> {
        if self.0.trim().is_empty() {
            return Err(ToolError::invalid_input(format!(
                "`{field}` is blank: there is nothing to run"
            ))
            .with_field(field)
            .with_hint("pass the command line to run, such as `ls -la`"));
        }
        Ok(self.0)
    }
}

#[doc = field_doc!(workdir)]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(transparent)]
pub struct Workdir(pub String);

#[doc = field_doc!(shell)]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(transparent)]
pub struct ShellProgram(#[schemars(length(min = 1))] pub String);

#[doc = field_doc!(login)]
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(transparent)]
pub struct LoginShell(pub bool);

#[doc = field_doc!(max_output_tokens)]
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(transparent)]
pub struct MaxOutputTokens(pub u64);

impl MaxOutputTokens {
    /// The budget in bytes of output: `Some(tokens)` capped, or the default.
    pub fn budget_bytes(tokens: Option<Self>) -> usize {
        let tokens = tokens
            .map_or(DEFAULT_MAX_OUTPUT_TOKENS, |t| t.0)
            .min(MAX_OUTPUT_TOKENS_CAP);
        usize::try_from(tokens * CHARS_PER_TOKEN).unwrap_or(usize::MAX)
    }
}

#[doc = field_doc!(task_id)]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, ClosedInput)]
#[serde(transparent)]
pub struct TaskId(#[schemars(length(min = 1))] pub String);

/// Opens `requested` (at input path `field`) as a directory beneath the workspace
/// root's handle, symlinks that stay beneath it followed by the kernel and the others
/// refused; the working directory when it is absent. The command starts in the
/// directory this handle holds, so a name swapped after this check changes nothing.
pub fn resolve_workdir(
    rt: &Runtime,
    requested: Option<&Workdir>,
    field: &str,
) -> Result<WorkingDir, ToolError> {
    let roots = rt.workspace_roots();
    let shown = requested.map_or(".", |Workdir(requested)| requested.as_str());
    let outside = |reason: String| {
        ToolError::new(
            ToolErrorKind::new("workdir_outside_workspace"),
            format!("`{field}` `{shown}` cannot be used: {reason}"),
        )
        .with_field(field)
        .with_details(serde_json::json!({ "workspace_roots": roots.roots() }))
        .with_hint(
            "give a directory inside the workspace, relative to its root (or omit the field to run in the root)",
        )
    };
    let not_found = |why: String| {
        ToolError::new(
            ToolErrorKind::new("workdir_not_found"),
            format!("`{field}` `{shown}` is not a directory ({why})"),
        )
        .with_field(field)
        .with_hint("create the directory first, or give an existing one")
    };
    let (index, rel) = roots
        .locate(Path::new(shown), true)
        .map_err(|escape| outside(escape.to_string()))?;
    let handle = roots.dirs()[index]
        .open_dir_beneath(&rel)
        .map_err(|error| match error {
            FsError::Escapes { reason, .. } => outside(reason.to_string()),
            other => not_found(other.to_string()),
        })?;
    WorkingDir::from_handle(&handle).map_err(|error| not_found(error.to_string()))
}

/// The shell to run: the requested one, or the default (bash when installed, else sh).
pub fn resolve_shell(requested: Option<&ShellProgram>) -> String {
    match requested {
        Some(ShellProgram(shell)) => shell.clone(),
        None => default_shell().to_string(),
    }
}

fn default_shell() -> &'static str {
    static SHELL: OnceLock<&'static str> = OnceLock::new();
    SHELL.get_or_init(|| {
        let path = std::env::var_os("PATH");
        let on_path = find_program("bash", path.as_deref()).is_some();
        if on_path { "bash" } else { "sh" }
    })
}
