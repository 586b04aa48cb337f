//! Confinement to the workspace roots: every path a tool touches must resolve inside
//! one of them. Each root is held open ([`RootDir`]); files are reached through the
//! filesystem gate beneath those handles ([`WorkspaceRoots::locate`]).

use std::path::{Component, Path, PathBuf};

use holon_gates::fs::PathEscape;
use holon_gates::fs::{RelPath, RootDir};

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
        Self::from_dirs(dirs)
    }

    /// Roots from directories already open, the first being the active one. No root
    /// at all is an `InvalidInput` error.
    pub fn from_dirs(dirs: Vec<RootDir>) -> std::io::Result<Self> {
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
    /// root is refused and the roots are returned unchanged. It is opened beneath the
    /// active root's handle (the kernel refuses a symlink that leads out) and named by
    /// the real path of that handle.
    pub fn with_working_dir(self, dir: &Path) -> Result<Self, (Self, PathEscape)> {
        let opened = match self.locate(dir, true) {
            Ok((0, rel)) => self.dirs[0].open_dir_beneath(&rel).ok().map(|handle| {
                // Without procfs, the path it was opened by (beneath the root all the same).
                handle
                    .real_path()
                    .unwrap_or_else(|_| self.active_root().join(rel.to_path_buf()))
            }),
            Ok(_) | Err(_) => None,
        };
        match opened {
            Some(real) if real.starts_with(self.active_root()) => Ok(Self {
                working_dir: (real != self.active_root()).then_some(real),
                ..self
            }),
            Some(real) => Err((self, PathEscape::Outside(real))),
            None => Err((self, PathEscape::Outside(dir.to_path_buf()))),
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
        // An absolute path spelled through an alias of a root (`/tmp` -> `/private/tmp`):
        // the root found by identity, then opened beneath the handle all the same.
        self.dirs
            .iter()
            .enumerate()
            .find_map(|(index, dir)| Some((index, dir.rel_of_alias(&lexical)?)))
            .ok_or(PathEscape::Outside(lexical))
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

#[cfg(test)]
mod tests {
    use super::*;
    use holon_gates::fs::FsError;

    #[test]
    fn an_absolute_path_through_an_alias_of_a_root_is_located_by_identity() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::os::unix::fs::symlink(dir.path(), outside.path().join("alias")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("escape")).unwrap();
        std::fs::write(outside.path().join("secret"), "outside").unwrap();
        let roots = WorkspaceRoots::new([dir.path().to_path_buf()]).unwrap();
        let located = |path: &Path| {
            roots
                .locate(path, true)
                .map(|(index, rel)| (index, rel.to_path_buf()))
        };
        assert_eq!(
            located(&outside.path().join("alias/src/new.rs")),
            Ok((0, PathBuf::from("src/new.rs")))
        );
        assert!(matches!(
            located(&outside.path().join("secret")),
            Err(PathEscape::Outside(_))
        ));
        // Named lexically beneath the root; the gate refuses the symlink that leads out.
        let (index, rel) = roots.locate(Path::new("escape/secret"), false).unwrap();
        assert!(matches!(
            roots.dirs()[index].read_beneath(&rel, 100),
            Err(FsError::Escapes { .. })
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
        let located = |path: &str| {
            roots
                .locate(Path::new(path), false)
                .map(|(index, rel)| (index, rel.to_path_buf()))
        };
        assert_eq!(located("x.md"), Ok((0, PathBuf::from("a/b/x.md"))));
        assert_eq!(located("../../y.md"), Ok((0, PathBuf::from("y.md"))));
        assert_eq!(located("../../../z"), Err(PathEscape::ClimbsOut));
        let (roots, escape) = roots.with_working_dir(outside.path()).unwrap_err();
        assert!(matches!(escape, PathEscape::Outside(_)));
        assert_eq!(
            roots.active(),
            root.join("a/b"),
            "a refused directory changes nothing"
        );
        assert!(WorkspaceRoots::new(Vec::<PathBuf>::new()).is_err());
    }

    #[test]
    fn a_working_directory_is_opened_beneath_the_root_and_named_by_its_real_path() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::os::unix::fs::symlink("a/b", dir.path().join("inner")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let roots = WorkspaceRoots::new([dir.path().to_path_buf()]).unwrap();
        let root = roots.active_root().to_path_buf();
        let roots = roots.with_working_dir(&root.join("inner")).unwrap();
        assert_eq!(roots.active(), root.join("a/b"));
        let (roots, escape) = roots.with_working_dir(&root.join("out")).unwrap_err();
        assert!(matches!(escape, PathEscape::Outside(_)));
        let (roots, _) = roots.with_working_dir(&root.join("missing")).unwrap_err();
        assert_eq!(roots.active(), root.join("a/b"));
        let roots = roots.with_working_dir(&root).unwrap();
        assert_eq!(roots.active(), root);
    }
}
