//! Confinement to the workspace roots: every path a tool touches must resolve inside
//! one of them. Each root is held open ([`RootDir`]); files are reached through the
//! filesystem gate beneath those handles ([`WorkspaceRoots::locate`]).

use std::path::{Component, Path, PathBuf};

pub use crate::fs_gate::PathEscape;
use crate::fs_gate::{RelPath, RootDir};

/// The workspace roots a runtime confines tools to, canonicalized once, and the
/// working directory relative paths resolve against.
#[derive(Debug, Clone)]
pub struct WorkspaceRoots {
    /// Never empty; the first is the active root.
    roots: Vec<PathBuf>,
    /// The roots' directory handles, in the same order.
    dirs: Vec<RootDir>,
    /// A directory inside the active root chosen with SwitchWorkspace's `cwd`.
    working_dir: Option<PathBuf>,
}

impl WorkspaceRoots {
    /// Roots from existing directories, the first being the active one; each is
    /// canonicalized. No root at all is an `InvalidInput` error.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>) -> std::io::Result<Self> {
        let dirs = roots
            .into_iter()
            .map(|root| RootDir::open(&root))
            .collect::<Result<Vec<_>, _>>()?;
        let roots: Vec<PathBuf> = dirs.iter().map(|dir| dir.path().to_path_buf()).collect();
        if roots.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a workspace needs at least one root",
            ));
        }
        Ok(Self {
            roots,
            dirs,
            working_dir: None,
        })
    }

    /// The same roots with `dir` (an existing directory inside the active root) as the
    /// working directory; a directory that does not exist or lies outside the active
    /// root is refused and the roots are returned unchanged.
    pub fn with_working_dir(self, dir: &Path) -> Result<Self, (Self, PathEscape)> {
        match dir.canonicalize() {
            Ok(canonical) if canonical.starts_with(self.active_root()) => Ok(Self {
                working_dir: (canonical != self.active_root()).then_some(canonical),
                ..self
            }),
            Ok(canonical) => Err((self, PathEscape::Outside(canonical))),
            Err(_) => Err((self, PathEscape::Outside(dir.to_path_buf()))),
        }
    }

    /// The roots' directory handles; the first is the active one.
    pub fn dirs(&self) -> &[RootDir] {
        &self.dirs
    }

    /// The canonical roots; the first is the active one.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The active root.
    pub fn active_root(&self) -> &Path {
        &self.roots[0]
    }

    /// The working directory, against which relative paths resolve: the active root,
    /// or the directory inside it chosen with SwitchWorkspace's `cwd`.
    pub fn active(&self) -> &Path {
        self.working_dir
            .as_deref()
            .unwrap_or_else(|| self.active_root())
    }

    /// Whether `path` (already canonical) lies inside a root.
    pub fn contains(&self, path: &Path) -> bool {
        self.roots.iter().any(|root| path.starts_with(root))
    }

    /// The index of the root (in [`WorkspaceRoots::dirs`]) and the path beneath it
    /// that `requested` names (relative to
    /// the working directory, or absolute when `allow_absolute`), `.` and `..` applied
    /// lexically. Nothing is opened: the gate resolves the path beneath the handle,
    /// where the kernel refuses a symlink that leads out.
    pub fn locate(
        &self,
        requested: &Path,
        allow_absolute: bool,
    ) -> Result<(usize, RelPath), PathEscape> {
        if requested.is_absolute() && !allow_absolute {
            return Err(PathEscape::Absolute);
        }
        let joined = self.active().join(requested);
        let lexical = normalize(&joined).ok_or(PathEscape::ClimbsOut)?;
        let beneath = |path: &Path| {
            self.dirs.iter().enumerate().find_map(|(index, dir)| {
                let rest = path.strip_prefix(dir.path()).ok()?;
                Some((index, RelPath::normalize(rest)?))
            })
        };
        if let Some(found) = beneath(&lexical) {
            return Ok(found);
        }
        if !requested.is_absolute() {
            return Err(PathEscape::ClimbsOut);
        }
        // An absolute path spelled through a symlinked prefix (`/tmp` -> `/private/tmp`):
        // named by its canonical form, then opened beneath the handle all the same.
        let resolved = resolve_existing_prefix(&lexical);
        beneath(&resolved).ok_or(PathEscape::Outside(resolved))
    }

    /// Resolves `requested` (relative to the active root, or absolute when
    /// `allow_absolute`) to a path inside a root. The path need not exist yet: its
    /// longest existing ancestor is canonicalized (following symlinks) and the rest is
    /// appended, so a symlink anywhere along the way cannot lead out.
    pub fn resolve(&self, requested: &Path, allow_absolute: bool) -> Result<PathBuf, PathEscape> {
        if requested.is_absolute() && !allow_absolute {
            return Err(PathEscape::Absolute);
        }
        let joined = if requested.is_absolute() {
            requested.to_path_buf()
        } else {
            self.active().join(requested)
        };
        let lexical = normalize(&joined).ok_or(PathEscape::ClimbsOut)?;
        let resolved = resolve_existing_prefix(&lexical);
        if self.contains(&resolved) {
            Ok(resolved)
        } else if !requested.is_absolute() && !self.contains(&lexical) {
            Err(PathEscape::ClimbsOut)
        } else {
            Err(PathEscape::Outside(resolved))
        }
    }
}

/// Applies `.` and `..` lexically; `None` when `..` climbs above the filesystem root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

/// Canonicalizes the longest existing ancestor of `path` and appends the rest.
fn resolve_existing_prefix(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            let mut resolved = canonical;
            for part in rest.iter().rev() {
                resolved.push(part);
            }
            return resolved;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confines_relative_absolute_and_symlinked_paths() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), dir.path().join("escape")).unwrap();
        let roots = WorkspaceRoots::new([dir.path().to_path_buf()]).unwrap();
        let root = roots.active().to_path_buf();

        assert_eq!(
            roots.resolve(Path::new("src/new.rs"), false).unwrap(),
            root.join("src/new.rs")
        );
        assert_eq!(
            roots.resolve(Path::new("src/../a.txt"), false).unwrap(),
            root.join("a.txt")
        );
        assert_eq!(
            roots.resolve(Path::new("../x"), false),
            Err(PathEscape::ClimbsOut)
        );
        assert_eq!(
            roots.resolve(Path::new("/etc/passwd"), false),
            Err(PathEscape::Absolute)
        );
        assert!(matches!(
            roots.resolve(Path::new("/etc"), true),
            Err(PathEscape::Outside(_))
        ));
        assert_eq!(
            roots.resolve(&root.join("src"), true).unwrap(),
            root.join("src")
        );
        #[cfg(unix)]
        assert!(matches!(
            roots.resolve(Path::new("escape/file"), false),
            Err(PathEscape::Outside(_))
        ));
    }

    #[test]
    fn locate_names_a_root_and_a_path_beneath_it_without_opening_anything() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        let roots = WorkspaceRoots::new([dir.path().to_path_buf()]).unwrap();
        let root = roots.active_root().to_path_buf();
        let located = |path: &str, absolute: bool| {
            roots
                .locate(Path::new(path), absolute)
                .map(|(index, rel)| (index, rel.to_path_buf()))
        };
        assert_eq!(
            located("a/./b/../c.md", false),
            Ok((0, PathBuf::from("a/c.md")))
        );
        assert_eq!(located("../x", false), Err(PathEscape::ClimbsOut));
        assert_eq!(located("/etc/passwd", false), Err(PathEscape::Absolute));
        assert!(matches!(
            located("/etc/passwd", true),
            Err(PathEscape::Outside(_))
        ));
        let inside = root.join("a/b/x.png");
        assert_eq!(
            located(&inside.to_string_lossy(), true),
            Ok((0, PathBuf::from("a/b/x.png")))
        );
    }

    #[test]
    fn a_working_directory_moves_relative_paths_but_not_the_confinement() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        let roots = WorkspaceRoots::new([dir.path().to_path_buf()]).unwrap();
        let root = roots.active_root().to_path_buf();
        let roots = roots.with_working_dir(&root.join("a/b")).unwrap();
        assert_eq!(roots.active(), root.join("a/b"));
        assert_eq!(roots.active_root(), root);
        assert_eq!(
            roots.resolve(Path::new("x.md"), false).unwrap(),
            root.join("a/b/x.md")
        );
        assert_eq!(
            roots.resolve(Path::new("../../y.md"), false).unwrap(),
            root.join("y.md")
        );
        assert_eq!(
            roots.resolve(Path::new("../../../z"), false),
            Err(PathEscape::ClimbsOut)
        );
        let (roots, escape) = roots.with_working_dir(outside.path()).unwrap_err();
        assert!(matches!(escape, PathEscape::Outside(_)));
        assert_eq!(
            roots.active(),
            root.join("a/b"),
            "a refused directory changes nothing"
        );
        assert!(WorkspaceRoots::new(Vec::<PathBuf>::new()).is_err());
    }
}
