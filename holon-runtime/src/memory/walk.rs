//! Which files of a workspace root the memory index covers, and a bounded walk that
//! finds them with their size and modification time (a stat each, no reads). The
//! walk and every read go through the filesystem gate: directory handles opened
//! without following a symlink, so a directory swapped for a symlink mid-walk is
//! never entered.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use holon_gates::fs::{DirHandle, EntryKind, FsError, NotRegular, RelPath, RootDir};

/// Directories never walked into, wherever they are.
pub const SKIPPED_DIRS: &[&str] = &[".git", "target", ".holon", "node_modules"];

/// Files larger than this are not indexed (512 KiB).
pub const MAX_FILE_BYTES: u64 = 512 * 1024;

/// At most this many files are indexed per root; the walk stops there.
pub const MAX_FILES_PER_ROOT: usize = 5_000;

/// At most this many directories are read per root.
pub const MAX_DIRS_PER_ROOT: usize = 20_000;

/// A Markdown file found by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    /// Its path relative to the root, with `/` separators.
    pub rel_path: String,
    /// Its modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Its size in bytes.
    pub size: u64,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walk {
    /// The files, sorted by path.
    pub files: Vec<FoundFile>,
    /// Whether a limit stopped the walk before it saw everything.
    pub truncated: bool,
}

/// Whether `name` is a Markdown file name (`.md` or `.markdown`, any case).
pub fn is_markdown(name: &str) -> bool {
    Path::new(name)
        .extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| ext.eq_ignore_ascii_case("md") || ext.eq_ignore_ascii_case("markdown"))
}

/// Finds the Markdown files under `root`: regular files only (symlinks are never
/// followed), not inside [`SKIPPED_DIRS`] or the directories of `skip`, at most
/// [`MAX_FILE_BYTES`] each, [`MAX_FILES_PER_ROOT`] in all.
pub fn walk(root: &RootDir, skip: &[PathBuf]) -> Walk {
    let mut walk = Walk::default();
    let Ok(top) = root.open_dir_nofollow(&RelPath::default(), None) else {
        return walk;
    };
    // Subdirectories are opened when their turn comes, from their parent's handle:
    // only the handles along the current branch stay open, however wide the tree.
    let mut pending: Vec<(Arc<DirHandle>, OsString, String)> = Vec::new();
    let mut next = Some((Arc::new(top), String::new()));
    let mut dirs_read = 0;
    loop {
        let (dir, rel_dir) = match next.take() {
            Some(first) => first,
            None => {
                let Some((parent, name, rel)) = pending.pop() else {
                    break;
                };
                // Opened without following: a symlink swapped in since the listing
                // is refused here.
                let Ok(child) = parent.child_dir(&name, None) else {
                    continue;
                };
                (Arc::new(child), rel)
            }
        };
        if dirs_read >= MAX_DIRS_PER_ROOT {
            walk.truncated = true;
            break;
        }
        dirs_read += 1;
        let Ok(entries) = dir.entries() else {
            continue;
        };
        // Directories are pushed in reverse so that they are popped in name order.
        let mut subdirs = Vec::new();
        for (name, info) in entries {
            let Some(text) = name.to_str() else {
                continue;
            };
            let rel = if rel_dir.is_empty() {
                text.to_string()
            } else {
                format!("{rel_dir}/{text}")
            };
            match info.kind {
                EntryKind::Dir => {
                    if SKIPPED_DIRS.contains(&text) || skip.contains(&root.path().join(&rel)) {
                        continue;
                    }
                    subdirs.push((Arc::clone(&dir), name, rel));
                }
                EntryKind::File if is_markdown(text) => {
                    if info.size > MAX_FILE_BYTES {
                        continue;
                    }
                    if walk.files.len() >= MAX_FILES_PER_ROOT {
                        walk.truncated = true;
                        pending.clear();
                        subdirs.clear();
                        break;
                    }
                    walk.files.push(FoundFile {
                        rel_path: rel,
                        mtime_ns: info.mtime_ns,
                        size: info.size,
                    });
                }
                _ => {}
            }
        }
        pending.extend(subdirs.into_iter().rev());
    }
    walk.files.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
    walk
}

/// Why a path is not one of the files the index covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotIndexed {
    /// Absolute, or with `..`: it escapes the root.
    Escapes,
    /// Inside a directory the index skips, or through a symlink.
    Excluded(String),
    /// Not a Markdown file.
    NotMarkdown,
    /// No such file.
    Missing,
    /// Larger than [`MAX_FILE_BYTES`].
    TooLarge(u64),
    /// A FIFO, socket or device.
    NotRegular(NotRegular),
    /// Reading it failed.
    Unreadable(String),
}

impl std::fmt::Display for NotIndexed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Escapes => {
                f.write_str("the path is absolute or climbs out of its root with `..`")
            }
            Self::Excluded(why) => write!(f, "the index does not cover it: {why}"),
            Self::NotMarkdown => f.write_str("only Markdown files (.md, .markdown) are indexed"),
            Self::Missing => {
                f.write_str("there is no such file (it may have been deleted or moved)")
            }
            Self::TooLarge(size) => write!(
                f,
                "it has {size} bytes; files over {MAX_FILE_BYTES} bytes are not indexed"
            ),
            Self::NotRegular(kind) => write!(f, "it is {kind}, not a regular file"),
            Self::Unreadable(why) => write!(f, "reading it failed: {why}"),
        }
    }
}

/// Reads `rel_path` under `root` if it is a file the walk would index. The same
/// rules as [`walk`]: relative, no `..`, no skipped directory, no symlink anywhere
/// along the way, Markdown, a regular file within the size bound; checked on the
/// handles the bytes are read from.
pub fn read_indexed(
    root: &RootDir,
    rel_path: &str,
    skip: &[PathBuf],
) -> Result<Vec<u8>, NotIndexed> {
    let relative = Path::new(rel_path);
    let mut full = root.path().to_path_buf();
    for component in relative.components() {
        match component {
            Component::Normal(part) => {
                if part.to_str().is_some_and(|p| SKIPPED_DIRS.contains(&p)) {
                    return Err(NotIndexed::Excluded(format!(
                        "files under `{}` are skipped",
                        part.to_string_lossy()
                    )));
                }
                full.push(part);
                if skip.contains(&full) {
                    return Err(NotIndexed::Excluded(
                        "it is inside the runtime's state directory".to_string(),
                    ));
                }
            }
            Component::CurDir => {}
            _ => return Err(NotIndexed::Escapes),
        }
    }
    let rel = RelPath::normalize(relative).ok_or(NotIndexed::Escapes)?;
    if rel.is_root() || !is_markdown(rel_path) {
        return Err(NotIndexed::NotMarkdown);
    }
    read_file(root, &rel)
}

/// Reads an indexed file through the gate, no symlink followed.
pub(super) fn read_file(root: &RootDir, rel: &RelPath) -> Result<Vec<u8>, NotIndexed> {
    match root.read_nofollow(rel, MAX_FILE_BYTES) {
        Ok(file) => Ok(file.bytes),
        Err(FsError::NotFound { .. }) => Err(NotIndexed::Missing),
        Err(FsError::TooLarge { size, .. }) => Err(NotIndexed::TooLarge(size)),
        Err(FsError::NotRegular {
            kind: NotRegular::Symlink,
            ..
        }) => Err(NotIndexed::Excluded("it is a symlink".to_string())),
        Err(FsError::NotRegular {
            kind: NotRegular::Directory,
            ..
        }) => Err(NotIndexed::Excluded("it is a directory".to_string())),
        Err(FsError::NotRegular { kind, .. }) => Err(NotIndexed::NotRegular(kind)),
        Err(FsError::ThroughSymlink { .. } | FsError::Escapes { .. }) => Err(NotIndexed::Excluded(
            "a directory along its path is a symlink".to_string(),
        )),
        Err(error @ (FsError::Protected { .. } | FsError::Io { .. })) => {
            Err(NotIndexed::Unreadable(error.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_markdown_only_and_skips_excluded_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for path in [
            "README.md",
            "docs/guide.markdown",
            "docs/notes.txt",
            ".git/x.md",
            "target/y.md",
            "node_modules/z.md",
            ".holon/state.md",
            "state/inside.md",
        ] {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, "# t\n").unwrap();
        }
        std::fs::write(root.join("big.md"), vec![b'a'; MAX_FILE_BYTES as usize + 1]).unwrap();
        let skip = vec![root.join("state")];
        let root_dir = RootDir::open(&root).unwrap();
        let found: Vec<String> = walk(&root_dir, &skip)
            .files
            .into_iter()
            .map(|f| f.rel_path)
            .collect();
        assert_eq!(found, ["README.md", "docs/guide.markdown"]);

        assert_eq!(
            read_indexed(&root_dir, "docs/guide.markdown", &skip),
            Ok(b"# t\n".to_vec())
        );
        assert_eq!(
            read_indexed(&root_dir, "../x.md", &skip),
            Err(NotIndexed::Escapes)
        );
        assert_eq!(
            read_indexed(&root_dir, "/etc/x.md", &skip),
            Err(NotIndexed::Escapes)
        );
        assert_eq!(
            read_indexed(&root_dir, "docs/notes.txt", &skip),
            Err(NotIndexed::NotMarkdown)
        );
        assert_eq!(
            read_indexed(&root_dir, "nope.md", &skip),
            Err(NotIndexed::Missing)
        );
        assert!(matches!(
            read_indexed(&root_dir, "big.md", &skip),
            Err(NotIndexed::TooLarge(_))
        ));
        assert!(matches!(
            read_indexed(&root_dir, "target/y.md", &skip),
            Err(NotIndexed::Excluded(_))
        ));
        assert!(matches!(
            read_indexed(&root_dir, "state/inside.md", &skip),
            Err(NotIndexed::Excluded(_))
        ));
    }
}
