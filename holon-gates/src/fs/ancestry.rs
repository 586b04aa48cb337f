//! Whether a directory lies beneath another, by device and inode: open the candidate,
//! then climb `..` handle by handle until an ancestor or `/` is met. No path string
//! is compared, so a symlink or a `..` in a printed path changes nothing.

use std::os::fd::AsFd;
use std::path::Path;

use rustix::fs::{AtFlags, Mode, OFlags};

use super::root::FileId;

/// Directories climbed at most (deeper trees are refused).
const MAX_DEPTH: usize = 4096;

/// Whether the directory at `candidate` is one of `ancestors` or inside one of them.
/// A candidate that cannot be opened as a directory is not.
pub fn is_beneath_any(candidate: &Path, ancestors: &[&Path]) -> std::io::Result<bool> {
    let wanted: Vec<FileId> = ancestors
        .iter()
        .filter_map(|a| FileId::of_path(a))
        .collect();
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut current = match rustix::fs::open(candidate, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(_) => return Ok(false),
    };
    for _ in 0..MAX_DEPTH {
        let id = FileId::of_fd(&current)?;
        if wanted.contains(&id) {
            return Ok(true);
        }
        let parent = rustix::fs::openat(&current, "..", flags, Mode::empty())?;
        if FileId::of_fd(&parent)? == id {
            return Ok(false);
        }
        current = parent;
    }
    Ok(false)
}

/// Why a directory may not be a root tools write beneath.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootRefusal {
    /// It is, or is inside, a `.git` directory (hooks, config: code git runs).
    GitDir,
    /// It is, or is inside, the runtime's state directory (outside its worktrees).
    StateDir,
}

/// Whether the directory `dir` holds may be a root: it is refused when it, or any
/// directory above it, is a `.git` directory (the entry `.git` of its parent, by
/// device and inode) or the state directory `state_dir`, unless it lies strictly
/// inside `worktrees` (the state directory's folder of worktrees). Only `..` handles
/// and identities are compared, never a path string.
pub fn root_refusal(
    dir: impl AsFd,
    state_dir: Option<FileId>,
    worktrees: Option<FileId>,
) -> std::io::Result<Option<RootRefusal>> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut current = rustix::fs::openat(&dir, ".", flags, Mode::empty())?;
    let mut below: Option<FileId> = None;
    for depth in 0..MAX_DEPTH {
        let id = FileId::of_fd(&current)?;
        if Some(id) == state_dir {
            // Strictly inside the worktrees folder: `below` is that folder, and the
            // root is deeper than it.
            // `depth` counts the directories climbed from the root to here.
            let in_worktrees = worktrees.is_some() && below == worktrees && depth >= 2;
            if !in_worktrees {
                return Ok(Some(RootRefusal::StateDir));
            }
        }
        let parent = rustix::fs::openat(&current, "..", flags, Mode::empty())?;
        let parent_id = FileId::of_fd(&parent)?;
        if parent_id == id {
            return Ok(None);
        }
        let git = rustix::fs::statat(&parent, ".git", AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .map(|stat| FileId::of_stat(&stat));
        if git == Some(id) {
            return Ok(Some(RootRefusal::GitDir));
        }
        below = Some(id);
        current = parent;
    }
    Ok(Some(RootRefusal::StateDir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestry_follows_identity_not_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir(dir.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), root.join("link")).unwrap();
        assert!(is_beneath_any(&root.join("a/b"), &[&root]).unwrap());
        assert!(is_beneath_any(&root, &[&root]).unwrap());
        assert!(is_beneath_any(&root.join("a/b/../.."), &[&root]).unwrap());
        assert!(!is_beneath_any(&root.join("link"), &[&root]).unwrap());
        assert!(!is_beneath_any(Path::new("/"), &[&root]).unwrap());
        assert!(!is_beneath_any(&root.join("a/../.."), &[&root]).unwrap());
        assert!(!is_beneath_any(&root.join("missing"), &[&root]).unwrap());
    }

    #[test]
    fn a_git_directory_or_the_state_directory_is_no_root() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        for sub in [".git/hooks", "state/worktrees/wt-a", "repo/src", "x/.gitx"] {
            std::fs::create_dir_all(base.join(sub)).unwrap();
        }
        let state = FileId::of_path(&base.join("state"));
        let worktrees = FileId::of_path(&base.join("state/worktrees"));
        let refusal = |path: &str| {
            let fd = rustix::fs::open(base.join(path), OFlags::RDONLY, Mode::empty()).unwrap();
            root_refusal(&fd, state, worktrees).unwrap()
        };
        assert_eq!(refusal(".git"), Some(RootRefusal::GitDir));
        assert_eq!(refusal(".git/hooks"), Some(RootRefusal::GitDir));
        assert_eq!(refusal("state"), Some(RootRefusal::StateDir));
        assert_eq!(refusal("state/worktrees"), Some(RootRefusal::StateDir));
        assert_eq!(refusal("state/worktrees/wt-a"), None);
        assert_eq!(refusal("repo/src"), None);
        assert_eq!(refusal("x/.gitx"), None);
        assert_eq!(refusal("."), None);
    }
}
