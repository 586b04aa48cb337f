//! Staged writes: the new content goes to a file created `O_CREAT|O_EXCL|O_NOFOLLOW`
//! under a random name in the target's directory handle, then is renamed over the
//! target within that handle. A planted symlink or file at any name is never
//! written through; an uncommitted stage is removed when dropped.
//!
//! Written here rather than with `cap-tempfile` (4.0), which lacks three things this
//! needs: its `TempFile::replace` always replaces, and `commit_new` must not (RENAME_NOREPLACE: a new artifact never takes over a planted name); on Linux
//! it stages with O_TMPFILE and links the file in through `/proc/self/fd`, so a
//! commit fails where procfs is not mounted; and a `TempFile` borrows its `Dir`,
//! while ApplyPatch holds every file's stage until all are written, then commits.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::sync::Arc;

use cap_std::fs::Dir;
use rustix::fs::{Mode, OFlags, RenameFlags};
use rustix::io::Errno;

use super::DirHandle;

/// Names tried before giving up (a collision of 64 random bits is already unlikely).
const ATTEMPTS: usize = 16;

/// A staged file, not yet renamed over its target.
#[derive(Debug)]
pub struct Staged {
    dir: Arc<Dir>,
    name: OsString,
    committed: bool,
}

impl DirHandle {
    /// Stages `bytes` in this directory: the file is created with `create_mode`
    /// (the umask applies), then set to `final_mode(mode it got)`.
    pub fn stage(
        &self,
        bytes: &[u8],
        create_mode: u32,
        final_mode: impl FnOnce(u32) -> u32,
    ) -> std::io::Result<Staged> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut last = Errno::EXIST;
        for _ in 0..ATTEMPTS {
            let name = random_name()?;
            let fd = match rustix::fs::openat(
                &**self.dir(),
                name.as_os_str(),
                flags,
                Mode::from_raw_mode(create_mode),
            ) {
                Ok(fd) => fd,
                Err(Errno::EXIST) => continue,
                Err(errno) => {
                    last = errno;
                    break;
                }
            };
            let staged = Staged {
                dir: Arc::clone(self.dir()),
                name,
                committed: false,
            };
            let created = rustix::fs::fstat(&fd)?.st_mode & 0o7777;
            let mut file = std::fs::File::from(fd);
            file.write_all(bytes)?;
            rustix::fs::fchmod(&file, Mode::from_raw_mode(final_mode(created)))?;
            return Ok(staged);
        }
        Err(last.into())
    }
}

impl Staged {
    /// Renames the staged file over `target` in its directory.
    pub fn commit(mut self, target: &OsStr) -> std::io::Result<()> {
        rustix::fs::renameat(&*self.dir, self.name.as_os_str(), &*self.dir, target)?;
        self.committed = true;
        Ok(())
    }

    /// Renames the staged file to `target` in its directory unless something has that
    /// name already (`AlreadyExists`; the stage is removed when dropped).
    pub fn commit_new(mut self, target: &OsStr) -> std::io::Result<()> {
        rustix::fs::renameat_with(
            &*self.dir,
            self.name.as_os_str(),
            &*self.dir,
            target,
            RenameFlags::NOREPLACE,
        )?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = self.dir.remove_file(&self.name);
        }
    }
}

fn random_name() -> std::io::Result<OsString> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(OsString::from(format!(
        ".holon-stage-{}",
        hex::encode(bytes)
    )))
}

#[cfg(test)]
mod tests {
    use super::super::{RelPath, RootDir};
    use std::path::Path;

    #[test]
    fn a_stage_is_a_new_file_that_is_renamed_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = RootDir::open(dir.path()).unwrap();
        let top = root.open_dir_nofollow(&RelPath::default(), None).unwrap();
        let staged = top.stage(b"hello", 0o600, |_| 0o640).unwrap();
        staged.commit("a.txt".as_ref()).unwrap();
        assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"hello");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(dir.path().join("a.txt"))
                .unwrap()
                .permissions(),
        );
        assert_eq!(mode & 0o777, 0o640);
        drop(top.stage(b"gone", 0o600, |m| m).unwrap());
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "an uncommitted stage is removed");
        assert!(Path::new(&dir.path().join("a.txt")).exists());
    }

    #[test]
    fn a_new_name_is_never_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("taken"), "old").unwrap();
        std::os::unix::fs::symlink("/nonexistent-target", dir.path().join("link")).unwrap();
        let root = RootDir::open(dir.path()).unwrap();
        let top = root.open_dir_nofollow(&RelPath::default(), None).unwrap();
        for name in ["taken", "link"] {
            let staged = top.stage(b"new", 0o600, |m| m).unwrap();
            let error = staged.commit_new(name.as_ref()).unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists, "{name}");
        }
        assert_eq!(std::fs::read(dir.path().join("taken")).unwrap(), b"old");
        top.stage(b"new", 0o600, |m| m)
            .unwrap()
            .commit_new("free".as_ref())
            .unwrap();
        assert_eq!(std::fs::read(dir.path().join("free")).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 3, "refused stages are removed");
    }
}
