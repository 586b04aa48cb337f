//! Paths relative to a root, `.` and `..` applied lexically: what the gate resolves
//! beneath a directory handle.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// Why a path was refused before anything was opened, or what opening it found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathEscape {
    /// The path is absolute where only workspace-relative paths are accepted.
    Absolute,
    /// `..` climbs above the root.
    ClimbsOut,
    /// The path (or a symlink along it) leads outside every root.
    Outside(PathBuf),
    /// A symlink along the path leads outside its root (found by the kernel while
    /// resolving beneath the root's handle).
    SymlinkOut,
}

impl std::fmt::Display for PathEscape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Absolute => {
                f.write_str("it is absolute; give a path relative to the workspace root")
            }
            Self::ClimbsOut => f.write_str("its `..` components climb out of the workspace"),
            Self::Outside(resolved) => write!(
                f,
                "it resolves to {}, outside the workspace roots (a symlink may point out)",
                resolved.display()
            ),
            Self::SymlinkOut => f.write_str("a symlink along it leads outside the workspace root"),
        }
    }
}

/// A path beneath a root: plain names only, never empty components, `.` or `..`.
/// The empty path is the root itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelPath {
    parts: Vec<OsString>,
}

impl RelPath {
    /// `path` with `.` and `..` applied; `None` when it is absolute or `..` climbs
    /// above the start.
    pub fn normalize(path: &Path) -> Option<Self> {
        Self::default().join(path)
    }

    /// `path` (relative) appended to this one, `.` and `..` applied; `None` when it is
    /// absolute or `..` climbs above the root.
    pub fn join(&self, path: &Path) -> Option<Self> {
        let mut parts = self.parts.clone();
        for component in path.components() {
            match component {
                Component::Normal(part) => parts.push(part.to_os_string()),
                Component::CurDir => {}
                Component::ParentDir => {
                    parts.pop()?;
                }
                Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        Some(Self { parts })
    }

    /// Its components.
    pub fn parts(&self) -> &[OsString] {
        &self.parts
    }

    /// Whether it is the root itself.
    pub fn is_root(&self) -> bool {
        self.parts.is_empty()
    }

    /// The last component; `None` for the root.
    pub fn file_name(&self) -> Option<&OsStr> {
        self.parts.last().map(OsString::as_os_str)
    }

    /// Everything but the last component; `None` for the root.
    pub fn parent(&self) -> Option<Self> {
        let (_, parent) = self.parts.split_last()?;
        Some(Self {
            parts: parent.to_vec(),
        })
    }

    /// The path with `/` separators.
    pub fn to_path_buf(&self) -> PathBuf {
        self.parts.iter().collect()
    }

    /// Whether any component is `.git`.
    pub fn has_git_component(&self) -> bool {
        self.parts.iter().any(|part| part == ".git")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_apply_lexically_and_never_climb_out() {
        let rel = |text: &str| RelPath::normalize(Path::new(text)).map(|r| r.to_path_buf());
        assert_eq!(rel("a/./b/../c"), Some(PathBuf::from("a/c")));
        assert_eq!(rel("a/.."), Some(PathBuf::new()));
        assert_eq!(rel("../a"), None);
        assert_eq!(rel("a/../../b"), None);
        assert_eq!(rel("/etc/passwd"), None);
        let base = RelPath::normalize(Path::new("x/y")).unwrap();
        assert_eq!(
            base.join(Path::new("../z")).map(|r| r.to_path_buf()),
            Some(PathBuf::from("x/z"))
        );
        assert!(base.join(Path::new("../../../z")).is_none());
        assert!(
            RelPath::normalize(Path::new("a/.git/b"))
                .unwrap()
                .has_git_component()
        );
        assert!(
            !RelPath::normalize(Path::new("a/.github/b"))
                .unwrap()
                .has_git_component()
        );
    }
}
