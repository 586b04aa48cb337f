//! What writes may never touch: `.git` (by name, at any depth: a hook or a planted
//! `core.fsmonitor` runs on the next git command) and the runtime's state directory
//! (by identity: device and inode of each directory a write walks through, so no
//! other spelling reaches it).

use std::path::Path;

use super::root::FileId;

/// The directories writes are refused in.
#[derive(Debug, Clone, Default)]
pub struct WritePolicy {
    forbidden: Vec<FileId>,
}

impl WritePolicy {
    /// Refuses `.git` and, when given and existing, everything inside `state_dir`.
    pub fn new(state_dir: Option<&Path>) -> Self {
        Self {
            forbidden: state_dir.and_then(FileId::of_path).into_iter().collect(),
        }
    }

    /// Whether a directory with this identity may not be written into.
    pub fn forbids(&self, id: FileId) -> bool {
        self.forbidden.contains(&id)
    }
}
