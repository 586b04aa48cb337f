//! Writing a planned patch through the filesystem gate: stage every new content in
//! its directory's handle (a fresh `O_EXCL` file), then rename and remove within the
//! same handles; on failure, undo what was done, so the workspace ends with all of
//! the patch or none of it. Directories left empty by a delete or a move are removed,
//! up to the root.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::PathBuf;

use super::apply::ApplyError;
use holon_gates::fs::{DirHandle, DirLock, FsError, RelPath, Staged, WritePolicy};
use holon_patch::FileState;
use holon_runtime::WorkspaceRoots;

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
type Files = holon_patch::Files<Target>;

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

/// The directory of a file: its root and its path beneath it.
type DirKey = (usize, RelPath);

/// Whether the plan writes or removes `target`'s file (a file it read and left as it
/// was is not touched).
fn touches(on_disk: &Option<FileState>, planned: &Option<FileState>) -> bool {
    match (on_disk, planned) {
        (Some(old), Some(new)) => old.bytes != new.bytes || old.exec != new.exec,
        (None, None) => false,
        _ => true,
    }
}

/// Writes the plan, or none of it. Every directory it writes in is locked (in one
/// order for all writers: device and inode) from the check that each file is still
/// what the plan was made from to the last rename, so two patches never both
/// replace the same content; a file changed since it was read is `Changed`.
pub(super) fn commit(
    roots: &WorkspaceRoots,
    policy: &WritePolicy,
    files: Files,
) -> Result<(), ApplyError> {
    let mut created: Vec<Created> = Vec::new();
    let prepared = open_dirs(roots, policy, &files, &mut created).and_then(|dirs| {
        let locks = lock_all(&files, &dirs)?;
        unchanged(&files, &dirs)?;
        Ok((dirs, locks))
    });
    let (dirs, _locks) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            remove_created(roots, &created);
            return Err(error);
        }
    };
    let mut staged: Vec<(&Target, DirHandle, Staged)> = Vec::new();
    let staging = (|| {
        for (target, (on_disk, planned)) in &files {
            let Some(state) = planned else { continue };
            if !touches(on_disk, planned) {
                continue;
            }
            let (parent, _) = target.split();
            let dir = dirs[&(target.root, parent)].clone();
            let file = stage(&dir, state).map_err(|error| ApplyError::Io {
                path: target.shown(),
                error,
            })?;
            staged.push((target, dir, file));
        }
        Ok(())
    })();
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
                let dir = dirs[&(target.root, parent)].clone();
                if let Err(error) = dir.remove_file(name) {
                    result = Err(ApplyError::Io {
                        path: target.shown(),
                        error,
                    });
                    break;
                }
                done.push((target, dir));
                removed.push(target);
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
    drop(dirs);
    for target in removed {
        remove_empty_parents(roots, target);
    }
    Ok(())
}

/// A handle of the directory of every file the plan touches: created (and noted in
/// `created`) for a file it writes, opened for one it removes.
fn open_dirs(
    roots: &WorkspaceRoots,
    policy: &WritePolicy,
    files: &Files,
    created: &mut Vec<Created>,
) -> Result<BTreeMap<DirKey, DirHandle>, ApplyError> {
    let mut dirs = BTreeMap::new();
    for (target, (on_disk, planned)) in files {
        if !touches(on_disk, planned) {
            continue;
        }
        let (parent, _) = target.split();
        let key = (target.root, parent);
        if dirs.contains_key(&key) {
            continue;
        }
        let root = &roots.dirs()[target.root];
        let dir = if planned.is_some() {
            let mut made = Vec::new();
            let dir = root.create_dirs_nofollow(&key.1, Some(policy), &mut made);
            created.extend(made.into_iter().map(|rel| Created {
                root: target.root,
                rel,
            }));
            dir
        } else {
            root.open_dir_nofollow(&key.1, Some(policy))
        };
        dirs.insert(key, dir.map_err(gate(target))?);
    }
    Ok(dirs)
}

/// The lock of every directory in `dirs`, taken in the order of their identities
/// (one directory reached by two roots is locked once).
fn lock_all(files: &Files, dirs: &BTreeMap<DirKey, DirHandle>) -> Result<Vec<DirLock>, ApplyError> {
    let shown = |key: &DirKey| {
        files
            .keys()
            .find(|target| target.root == key.0 && target.split().0 == key.1)
            .map(Target::shown)
            .unwrap_or_else(|| key.1.to_path_buf())
    };
    let mut ordered = Vec::new();
    for (key, dir) in dirs {
        let id = dir.id().map_err(|error| ApplyError::Io {
            path: shown(key),
            error,
        })?;
        ordered.push((id, key, dir));
    }
    ordered.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    ordered.dedup_by_key(|(id, _, _)| *id);
    let mut locks = Vec::new();
    for (_, key, dir) in ordered {
        let lock = dir.lock().map_err(|error| {
            if error.kind() == std::io::ErrorKind::WouldBlock {
                ApplyError::Busy { path: shown(key) }
            } else {
                ApplyError::Io {
                    path: shown(key),
                    error,
                }
            }
        })?;
        locks.push(lock);
    }
    Ok(locks)
}

/// Checks, under the locks, that every file the plan touches is still what the plan
/// was made from: the same bytes and mode, or still absent.
fn unchanged(files: &Files, dirs: &BTreeMap<DirKey, DirHandle>) -> Result<(), ApplyError> {
    for (target, (on_disk, planned)) in files {
        if !touches(on_disk, planned) {
            continue;
        }
        let (parent, name) = target.split();
        let dir = &dirs[&(target.root, parent)];
        let now = match dir.read_file(name, u64::MAX) {
            Ok(file) => Some((file.bytes, file.info.mode)),
            Err(FsError::NotFound { .. }) => None,
            Err(error) => return Err(ApplyError::from_gate(&target.shown(), error)),
        };
        let same = match (on_disk, &now) {
            (None, None) => true,
            (Some(old), Some((bytes, mode))) => old.bytes == *bytes && old.mode == Some(*mode),
            _ => false,
        };
        if !same {
            return Err(ApplyError::Changed {
                path: target.shown(),
            });
        }
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
    fn a_file_changed_since_it_was_read_fails_the_whole_patch() {
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
        // Planned as a deletion, but gone from disk since it was read: another
        // writer got there first, and nothing is written.
        files.insert(target("gone.txt"), (Some(state("g\n", Some(0o644))), None));
        let error = commit(&roots, &WritePolicy::default(), files).unwrap_err();
        assert!(matches!(error, ApplyError::Changed { .. }), "{error:?}");
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
