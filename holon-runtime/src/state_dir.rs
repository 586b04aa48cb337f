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

/// The file name of the operator's key (it signs approvals) in the state directory.
pub const OPERATOR_KEY_FILE_NAME: &str = "operator.key";

/// The operator's key in the file `path`: read, or created with mode 0600 (64 hex
/// digits) when there is none. A key file others may read or write is refused: whoever
/// reads it can approve any call.
pub fn operator_key(path: &Path) -> std::io::Result<holon_policy::OperatorKey> {
    use std::io::{Error, ErrorKind, Write};
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(mut file) => {
            let key = holon_policy::OperatorKey::generate()
                .map_err(|error| Error::other(error.message))?;
            file.write_all(format!("{}\n", key.to_hex()).as_bytes())?;
            file.sync_all()?;
            return Ok(key);
        }
        Err(error) if error.kind() == ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    let mode = std::fs::metadata(path)?.permissions().mode();
    if mode & 0o077 != 0 {
        return Err(Error::new(
            ErrorKind::PermissionDenied,
            format!(
                "the operator key {} may be read or written by others (mode {:o}); make it the owner's only: chmod 600 {}",
                path.display(),
                mode & 0o777,
                path.display()
            ),
        ));
    }
    // Another process may have created the file a moment ago and not written it yet.
    for _ in 0..100 {
        let text = std::fs::read_to_string(path)?;
        if let Some(key) = holon_policy::OperatorKey::from_hex(&text) {
            return Ok(key);
        }
        if !text.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Err(Error::new(
        ErrorKind::InvalidData,
        format!(
            "the operator key {} is not 64 hex digits; remove it to have a new one made (pending approvals then need deciding again)",
            path.display()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operator_key_is_made_once_for_its_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OPERATOR_KEY_FILE_NAME);
        let made = operator_key(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(operator_key(&path).unwrap().to_hex(), made.to_hex());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = operator_key(&path).unwrap_err();
        assert!(error.to_string().contains("chmod 600"), "{error}");
    }

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
