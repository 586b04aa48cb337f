//! Where a workspace's state lives by default: outside the workspace, under the
//! user's data directory, in a folder named after the workspace's path. A state
//! directory inside the workspace is within reach of every tool that writes there
//! (a patch to `model-catalog.json`, `sqlite3` on the audit log).
//!
//! This module is also where the runtime sets its state up by path: the folders it
//! keeps its own state in, and the configuration files the operator names. Tools
//! never reach it; everything they name goes through the gates.

// The state directory and the operator's files are the runtime's own, named by the
// operator, never by a tool: the one place outside the gates they are touched by path.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::{Path, PathBuf};

/// Creates the folder `dir` the runtime keeps its own state in (the state directory,
/// its worktrees and media folders), with its parents; its canonical path.
pub fn ensure_dir(dir: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    dir.canonicalize()
}

/// The text of a configuration file the operator names (the model catalog override).
pub fn read_config(path: &Path) -> std::io::Result<String> {
    std::fs::read_to_string(path)
}

/// The configuration file `name` of the state directory `dir` when there is one (a
/// file, symlinks followed: the operator may link it in), read later with
/// [`read_config`].
pub fn config_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let path = dir.join(name);
    path.is_file().then_some(path)
}

/// The folder under the data directory holding one state directory per workspace.
pub const WORKSPACES_DIR: &str = "holon/workspaces";

/// The default state directory of `workspace`:
/// `$XDG_DATA_HOME/holon/workspaces/<name>-<hash>` (or `~/.local/share/...` when
/// `XDG_DATA_HOME` is unset or relative, as the XDG spec says), where `<name>` is
/// the workspace folder's name and `<hash>` the first 16 hex digits of the SHA-1 of
/// its canonical path. `None` when neither variable gives a data directory.
pub fn default_state_dir(workspace: &Path) -> Option<PathBuf> {
    let data_home = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|path| path.is_absolute())
                .map(|home| home.join(".local/share"))
        })?;
    Some(
        data_home
            .join(WORKSPACES_DIR)
            .join(workspace_key(workspace)),
    )
}

/// `<name>-<hash>` of `workspace`: readable in a listing, unique per path.
pub fn workspace_key(workspace: &Path) -> String {
    let canonical = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let name: String = canonical
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(48)
        .collect();
    let hash = sha1_smol::Sha1::from(canonical.as_os_str().as_encoded_bytes())
        .digest()
        .to_string();
    let name = if name.is_empty() || name.starts_with('.') {
        format!("workspace{name}")
    } else {
        name
    };
    format!("{name}-{}", &hash[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_named_after_the_folder_and_differ_by_path() {
        let a = workspace_key(Path::new("/nonexistent/x/my project"));
        let b = workspace_key(Path::new("/nonexistent/y/my project"));
        assert!(a.starts_with("my_project-"), "{a}");
        assert_eq!(a.len(), "my_project-".len() + 16);
        assert_ne!(a, b);
        assert_eq!(a, workspace_key(Path::new("/nonexistent/x/my project")));
        assert!(workspace_key(Path::new("/")).starts_with("workspace-"));
        assert!(workspace_key(Path::new("/srv/.hidden")).starts_with("workspace.hidden-"));
    }
}
