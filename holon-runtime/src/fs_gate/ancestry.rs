//! Whether a directory lies beneath another, by device and inode: open the candidate,
//! then climb `..` handle by handle until an ancestor or `/` is met. No path string
//! is compared, so a symlink or a `..` in a printed path changes nothing.

use std::path::Path;

use rustix::fs::{Mode, OFlags};

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
}
