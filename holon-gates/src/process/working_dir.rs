//! A command's working directory, held as an open directory handle: the command's
//! working directory is set from the handle, never by looking its path up again, so
//! a name swapped for a symlink after the check changes nothing.
//!
//! The workspace forbids `unsafe`, so no `fchdir` can run in the child between fork
//! and exec, and the limits helper (which could do it) is optional. The child's
//! working directory is therefore set to `/proc/self/fd/N` of the handle: the kernel
//! resolves that magic link to the directory the descriptor holds (the child has a
//! copy of the parent's descriptors until exec), with no lookup by name. Where
//! `/proc/self/fd` does not name the handle (no procfs), the launch is refused
//! rather than done by path.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{FileType, Mode, OFlags};

/// An open directory a command runs in, and the path it is shown as.
#[derive(Debug, Clone)]
pub struct WorkingDir {
    path: PathBuf,
    fd: Arc<OwnedFd>,
}

impl PartialEq for WorkingDir {
    /// Two working directories are the same when they are shown as the same path.
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl Eq for WorkingDir {}

impl WorkingDir {
    /// The directory open at `fd` (a handle of the filesystem gate), shown as the
    /// path the kernel gives it.
    pub fn from_handle(fd: impl AsFd) -> std::io::Result<Self> {
        let fd = fd.as_fd().try_clone_to_owned()?;
        let stat = rustix::fs::fstat(&fd)?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
            return Err(std::io::Error::from(std::io::ErrorKind::NotADirectory));
        }
        let path = crate::fs::real_path(&fd)?;
        Ok(Self {
            path,
            fd: Arc::new(fd),
        })
    }

    /// The directory at `path`, a path the host itself chose (symlinks followed).
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = rustix::fs::open(path, flags, Mode::empty())?;
        Self::from_handle(&fd)
    }

    /// The path it is shown as (the directory's real path when it was opened).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path that names the handle's directory in a child spawned now: the magic
    /// link of the descriptor, checked to lead to the handle's directory.
    pub(super) fn for_child(&self) -> std::io::Result<PathBuf> {
        let link = proc_path(&*self.fd);
        let held = rustix::fs::fstat(&*self.fd)?;
        let named = rustix::fs::stat(&link).map_err(|_| no_procfs(&link))?;
        if (named.st_dev, named.st_ino) != (held.st_dev, held.st_ino) {
            return Err(no_procfs(&link));
        }
        Ok(link)
    }
}

fn proc_path(fd: &impl AsRawFd) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()))
}

fn no_procfs(link: &Path) -> std::io::Error {
    std::io::Error::other(format!(
        "{} does not name the working directory's handle (is /proc mounted?): \
         the command is not started by path instead",
        link.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_runs_in_the_held_directory_after_its_name_is_swapped() {
        let dir = tempfile::tempdir().unwrap();
        let (held, other) = (dir.path().join("held"), dir.path().join("other"));
        std::fs::create_dir(&held).unwrap();
        std::fs::create_dir(&other).unwrap();
        std::fs::write(held.join("held-marker"), "").unwrap();
        let workdir = WorkingDir::open(&held).unwrap();
        assert_eq!(workdir.path(), held.canonicalize().unwrap());
        rustix::fs::renameat_with(
            rustix::fs::CWD,
            &held,
            rustix::fs::CWD,
            &other,
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .unwrap();
        let launcher =
            super::super::Launcher::new(super::super::LauncherConfig::default()).unwrap();
        let output = launcher
            .command("ls", &[], &workdir)
            .unwrap()
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stdout), "held-marker\n");
    }
}
