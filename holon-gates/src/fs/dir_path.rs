//! A directory named by a path that is not beneath any root yet (a workspace to
//! attach, a directory to switch to, a bound root that may be gone): opened, and the
//! open handle, not a query on the string, says it is a directory.

use std::path::{Path, PathBuf};

use super::RootDir;

/// Why a path names no directory.
#[derive(Debug)]
pub enum DirPathError {
    /// The path does not resolve (nothing there, a symlink loop, a component that is
    /// a file).
    Unresolved(std::io::Error),
    /// It resolves, to this canonical path, but not to a directory that opens.
    NotADirectory(PathBuf),
}

/// The directory `path` names, symlinks followed, open; its [`RootDir::path`] is the
/// canonical path. The path is resolved again only to say why it names no directory.
pub fn open_dir_path(path: &Path) -> Result<RootDir, DirPathError> {
    RootDir::open(path).map_err(|_| match path.canonicalize() {
        Ok(canonical) => DirPathError::NotADirectory(canonical),
        Err(unresolved) => DirPathError::Unresolved(unresolved),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_opens_and_anything_else_says_why_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("file"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("sub"), root.join("link")).unwrap();
        let opened = open_dir_path(&root.join("link/../sub/.")).unwrap();
        assert_eq!(opened.path(), root.join("sub"));
        assert_eq!(
            open_dir_path(&root.join("link")).unwrap().path(),
            root.join("sub")
        );
        assert!(matches!(
            open_dir_path(&root.join("file")),
            Err(DirPathError::NotADirectory(path)) if path == root.join("file")
        ));
        assert!(matches!(
            open_dir_path(&root.join("missing")),
            Err(DirPathError::Unresolved(e)) if e.kind() == std::io::ErrorKind::NotFound
        ));
        assert!(matches!(
            open_dir_path(&root.join("file/below")),
            Err(DirPathError::Unresolved(_))
        ));
    }
}
