//! Writing a planned patch through the filesystem gate: stage every new content in
//! its directory's handle (a fresh `O_EXCL` file), then rename and remove within the
//! same handles; on failure, undo what was done, so the workspace ends with all of
//! the patch or none of it. Directories left empty by a delete or a move are removed,
//! up to the root.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::PathBuf;

use super::apply::{ApplyError, FileState};
use holon_runtime::WorkspaceRoots;
use holon_runtime::fs_gate::{DirHandle, FsError, RelPath, Staged, WritePolicy};

/// A file the patch touches: which root, which path beneath it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Target {
    pub(super) root: usize,
    pub(super) rel: RelPath,
}

impl Target {
    /// Its directory and its name (the plan never targets a root itself).
    pub(super) fn split(&self) -> (RelPath, &OsStr) {
        (
            self.rel.parent().unwrap_or_default(),
            self.rel.file_name().unwrap_or_default(),
        )
    }

    fn shown(&self) -> PathBuf {
        self.rel.to_path_buf()
    }
}

/// Target -> (state on disk, planned state); `None` = no file.
pub(super) type Files = BTreeMap<Target, (Option<FileState>, Option<FileState>)>;

/// The mode a file is written with: its own (or the default) with the exec bits
/// set where it is readable, or cleared.
fn mode_for(base: u32, exec: bool) -> u32 {
    if exec {
        base | ((base & 0o444) >> 2)
    } else {
        base & !0o111
    }
}

/// The gate's refusal of `target`.
fn gate(target: &Target) -> impl FnOnce(FsError) -> ApplyError + '_ {
    move |error| ApplyError::from_gate(&target.shown(), error)
}

/// Stages `state` in `dir`: an existing file's mode is kept (the stage is private
/// until then), a new one gets the default mode under the umask.
fn stage(dir: &DirHandle, state: &FileState) -> std::io::Result<Staged> {
    let exec = state.exec;
    match state.mode {
        Some(mode) => dir.stage(&state.bytes, 0o600, |_| mode_for(mode, exec)),
        None => dir.stage(&state.bytes, 0o666, |base| mode_for(base, exec)),
    }
}

/// A directory this commit created, to remove again on failure.
struct Created {
    root: usize,
    rel: RelPath,
}

/// Writes the plan, or none of it.
pub(super) fn commit(
    roots: &WorkspaceRoots,
    policy: &WritePolicy,
    files: Files,
) -> Result<(), ApplyError> {
    let mut created: Vec<Created> = Vec::new();
    let mut staged: Vec<(&Target, DirHandle, Staged)> = Vec::new();
    // One handle per directory, however many files the patch writes in it.
    let mut dirs: BTreeMap<(usize, RelPath), DirHandle> = BTreeMap::new();
    let staging = (|| {
        for (target, (on_disk, planned)) in &files {
            let Some(state) = planned else { continue };
            if on_disk
                .as_ref()
                .is_some_and(|old| old.bytes == state.bytes && old.exec == state.exec)
            {
                continue;
            }
            let (parent, _) = target.split();
            let key = (target.root, parent);
            let dir = match dirs.get(&key) {
                Some(dir) => dir.clone(),
                None => {
                    let mut made = Vec::new();
                    let dir = roots.dirs()[target.root].create_dirs_nofollow(
                        &key.1,
                        Some(policy),
                        &mut made,
                    );
                    created.extend(made.into_iter().map(|rel| Created {
                        root: target.root,
                        rel,
                    }));
                    let dir = dir.map_err(gate(target))?;
                    dirs.insert(key, dir.clone());
                    dir
                }
            };
            let file = stage(&dir, state).map_err(|error| ApplyError::Io {
                path: target.shown(),
                error,
            })?;
            staged.push((target, dir, file));
        }
        Ok(())
    })();
    drop(dirs);
    if let Err(error) = staging {
        drop(staged);
        remove_created(roots, &created);
        return Err(error);
    }
    let mut done: Vec<(&Target, DirHandle)> = Vec::new();
    let mut result = Ok(());
    for (target, dir, file) in staged {
        let (_, name) = target.split();
        if let Err(error) = file.commit(name) {
            result = Err(ApplyError::Io {
                path: target.shown(),
                error,
            });
            break;
        }
        done.push((target, dir));
    }
    let mut removed = Vec::new();
    if result.is_ok() {
        for (target, (on_disk, planned)) in &files {
            if planned.is_none() && on_disk.is_some() {
                let (parent, name) = target.split();
                let removal = roots.dirs()[target.root]
                    .open_dir_nofollow(&parent, Some(policy))
                    .map_err(gate(target))
                    .and_then(|dir| {
                        dir.remove_file(name).map_err(|error| ApplyError::Io {
                            path: target.shown(),
                            error,
                        })?;
                        Ok(dir)
                    });
                match removal {
                    Ok(dir) => {
                        done.push((target, dir));
                        removed.push(target);
                    }
                    Err(error) => {
                        result = Err(error);
                        break;
                    }
                }
            }
        }
    }
    if let Err(error) = result {
        // Put back what was already changed, with its mode, in the same directories.
        for (target, dir) in done {
            let (_, name) = target.split();
            match files.get(target).and_then(|(on_disk, _)| on_disk.as_ref()) {
                Some(original) => {
                    let _ = stage(&dir, original).and_then(|file| file.commit(name));
                }
                None => {
                    let _ = dir.remove_file(name);
                }
            }
        }
        remove_created(roots, &created);
        return Err(error);
    }
    for target in removed {
        remove_empty_parents(roots, target);
    }
    Ok(())
}

/// Removes the directories a failed commit created, innermost first.
fn remove_created(roots: &WorkspaceRoots, created: &[Created]) {
    for dir in created.iter().rev() {
        let (Some(parent), Some(name)) = (dir.rel.parent(), dir.rel.file_name()) else {
            continue;
        };
        if let Ok(handle) = roots.dirs()[dir.root].open_dir_nofollow(&parent, None) {
            let _ = handle.remove_dir(name);
        }
    }
}

/// Removes the directories a deleted file leaves empty, up to (not including) its
/// root.
fn remove_empty_parents(roots: &WorkspaceRoots, target: &Target) {
    let mut dir = target.rel.parent();
    while let Some(current) = dir.filter(|d| !d.is_root()) {
        let (Some(parent), Some(name)) = (current.parent(), current.file_name()) else {
            break;
        };
        let removed = roots.dirs()[target.root]
            .open_dir_nofollow(&parent, None)
            .is_ok_and(|handle| handle.remove_dir(name).is_ok());
        if !removed {
            break;
        }
        dir = Some(parent);
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use super::*;

    fn target(rel: &str) -> Target {
        Target {
            root: 0,
            rel: RelPath::normalize(Path::new(rel)).unwrap(),
        }
    }

    fn state(text: &str, mode: Option<u32>) -> FileState {
        FileState {
            bytes: text.as_bytes().to_vec(),
            mode,
            exec: mode.is_some_and(|m| m & 0o111 != 0),
        }
    }

    #[test]
    fn a_failure_after_renames_puts_everything_back() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.sh"), "old\n").unwrap();
        std::fs::set_permissions(dir.path().join("a.sh"), PermissionsExt::from_mode(0o750))
            .unwrap();
        let roots = WorkspaceRoots::new([dir.path().to_path_buf()]).unwrap();
        let mut files = Files::new();
        files.insert(
            target("a.sh"),
            (
                Some(state("old\n", Some(0o750))),
                Some(state("new\n", Some(0o750))),
            ),
        );
        files.insert(target("c/d/new.txt"), (None, Some(state("x\n", None))));
        // Planned as a deletion, but gone from disk: removing it fails after the
        // renames were done.
        files.insert(target("gone.txt"), (Some(state("g\n", Some(0o644))), None));
        let error = commit(&roots, &WritePolicy::default(), files).unwrap_err();
        assert!(matches!(error, ApplyError::Io { .. }), "{error:?}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.sh")).unwrap(),
            "old\n"
        );
        let mode = std::fs::metadata(dir.path().join("a.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o750);
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["a.sh"], "no new file, directory or stage is left");
    }
}
