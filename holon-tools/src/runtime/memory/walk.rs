//! Which files of a workspace root the memory index covers, and a bounded walk that
//! finds them with their size and modification time (a stat each, no reads).

use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

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

/// Nanoseconds since the Unix epoch of `metadata`'s modification time (0 if unknown).
pub fn mtime_ns(metadata: &std::fs::Metadata) -> i64 {
    metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// Finds the Markdown files under `root`: regular files only (symlinks are never
/// followed), not inside [`SKIPPED_DIRS`] or the directories of `skip`, at most
/// [`MAX_FILE_BYTES`] each, [`MAX_FILES_PER_ROOT`] in all.
pub fn walk(root: &Path, skip: &[PathBuf]) -> Walk {
    let mut walk = Walk::default();
    let mut pending = vec![(root.to_path_buf(), String::new())];
    let mut dirs_read = 0;
    while let Some((dir, rel_dir)) = pending.pop() {
        if dirs_read >= MAX_DIRS_PER_ROOT {
            walk.truncated = true;
            break;
        }
        dirs_read += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|entry| entry.file_name());
        // Directories are pushed in reverse so that they are popped in name order.
        let mut subdirs = Vec::new();
        for entry in entries {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let rel = if rel_dir.is_empty() {
                name.clone()
            } else {
                format!("{rel_dir}/{name}")
            };
            if file_type.is_dir() {
                let path = entry.path();
                if !SKIPPED_DIRS.contains(&name.as_str()) && !skip.contains(&path) {
                    subdirs.push((path, rel));
                }
            } else if file_type.is_file() && is_markdown(&name) {
                let Ok(metadata) = entry.metadata() else {
                    continue;
                };
                if metadata.len() > MAX_FILE_BYTES {
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
                    mtime_ns: mtime_ns(&metadata),
                    size: metadata.len(),
                });
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
        }
    }
}

/// Checks that `rel_path` under `root` is a file the walk would index, and returns its
/// full path. The same rules as [`walk`]: relative, no `..`, no skipped directory,
/// no symlink anywhere along the way, Markdown, a regular file within the size bound.
pub fn indexed_file(root: &Path, rel_path: &str, skip: &[PathBuf]) -> Result<PathBuf, NotIndexed> {
    let relative = Path::new(rel_path);
    let mut full = root.to_path_buf();
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
    if full == root {
        return Err(NotIndexed::NotMarkdown);
    }
    if !is_markdown(rel_path) {
        return Err(NotIndexed::NotMarkdown);
    }
    let metadata = std::fs::symlink_metadata(&full).map_err(|_| NotIndexed::Missing)?;
    if !metadata.is_file() {
        return Err(NotIndexed::Excluded(
            "it is a symlink or not a regular file".to_string(),
        ));
    }
    // A symlinked directory along the way would lead elsewhere: the canonical path
    // must be the lexical one.
    if full.canonicalize().ok().as_deref() != Some(full.as_path()) {
        return Err(NotIndexed::Excluded(
            "a directory along its path is a symlink".to_string(),
        ));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(NotIndexed::TooLarge(metadata.len()));
    }
    Ok(full)
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
        let found: Vec<String> = walk(&root, &skip)
            .files
            .into_iter()
            .map(|f| f.rel_path)
            .collect();
        assert_eq!(found, ["README.md", "docs/guide.markdown"]);

        assert!(indexed_file(&root, "docs/guide.markdown", &skip).is_ok());
        assert_eq!(
            indexed_file(&root, "../x.md", &skip),
            Err(NotIndexed::Escapes)
        );
        assert_eq!(
            indexed_file(&root, "/etc/x.md", &skip),
            Err(NotIndexed::Escapes)
        );
        assert_eq!(
            indexed_file(&root, "docs/notes.txt", &skip),
            Err(NotIndexed::NotMarkdown)
        );
        assert_eq!(
            indexed_file(&root, "nope.md", &skip),
            Err(NotIndexed::Missing)
        );
        assert!(matches!(
            indexed_file(&root, "big.md", &skip),
            Err(NotIndexed::TooLarge(_))
        ));
        assert!(matches!(
            indexed_file(&root, "target/y.md", &skip),
            Err(NotIndexed::Excluded(_))
        ));
        assert!(matches!(
            indexed_file(&root, "state/inside.md", &skip),
            Err(NotIndexed::Excluded(_))
        ));
    }
}
