//! Where the operator's own files lie. The approval policy, the audit log and the
//! state directory stand between the model and the machine, so none may lie inside a
//! workspace root: there the model rewrites it (ApplyPatch writes any file beneath a
//! root but the state directory, and a command may write anything beneath a root,
//! since Landlock grants a root whole).

use std::fmt;
use std::path::{Path, PathBuf};

use holon_gates::fs::{is_beneath_any, resolved_dir};

/// A file named by an option that lies inside a workspace root: the refusal to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsideWorkspace {
    /// The option that names it (`--policy`, `--audit-file`).
    pub flag: &'static str,
    /// The file as named.
    pub path: PathBuf,
    /// The workspace root it lies in.
    pub workspace: PathBuf,
}

impl fmt::Display for InsideWorkspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} lies inside the workspace {}, where the model can rewrite it (ApplyPatch, ExecCommand); \
             move it outside every workspace (the state directory is the place for it) and name it there",
            self.flag,
            self.path.display(),
            self.workspace.display()
        )
    }
}

impl std::error::Error for InsideWorkspace {}

/// The workspace root of `roots` that the file or directory `path` lies in (or is),
/// if any. Judged by the directories' identities, not by the spelling of the paths:
/// the directory holding `path` as named (a link there is the model's to replace),
/// and, when `path` exists, the directory it resolves into, links followed.
pub fn workspace_holding(path: &Path, roots: &[PathBuf]) -> Option<PathBuf> {
    let holder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut places = vec![holder];
    places.extend(resolved_dir(path));
    roots
        .iter()
        .find(|root| {
            places
                .iter()
                .any(|place| is_beneath_any(place, &[root.as_path()]).unwrap_or(false))
        })
        .cloned()
}

/// Refuses `path`, named by `flag`, when it lies inside one of `roots`.
pub fn refuse_inside(
    flag: &'static str,
    path: &Path,
    roots: &[PathBuf],
) -> Result<(), InsideWorkspace> {
    match workspace_holding(path, roots) {
        Some(workspace) => Err(InsideWorkspace {
            flag,
            path: path.to_path_buf(),
            workspace,
        }),
        None => Ok(()),
    }
}
