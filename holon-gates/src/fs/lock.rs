//! Advisory locks on directories: a writer that reads a file, plans a change and
//! renames the new content over it holds its directory's lock from the check to the
//! rename, so that two such writers never both replace what they read.
//!
//! The lock is `flock(LOCK_EX)` on a descriptor of its own (a fresh open of the
//! directory through the handle), so two handles of one process exclude each other
//! as two processes do, and it is released when dropped or when the process dies.

use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use rustix::fs::{FlockOperation, Mode, OFlags};
use rustix::io::Errno;

use super::DirHandle;
use super::root::FileId;

/// How long [`DirHandle::lock`] waits for a lock another writer holds.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// An exclusive advisory lock on a directory, held until dropped.
#[derive(Debug)]
pub struct DirLock {
    _fd: OwnedFd,
    id: FileId,
}

impl DirLock {
    /// The identity of the locked directory.
    pub fn id(&self) -> FileId {
        self.id
    }
}

impl DirHandle {
    /// The identity (device and inode) of this directory.
    pub fn id(&self) -> std::io::Result<FileId> {
        FileId::of_fd(&**self.dir())
    }

    /// Takes this directory's exclusive lock, waiting at most [`LOCK_WAIT`] for
    /// another writer to release it (`WouldBlock` after that).
    pub fn lock(&self) -> std::io::Result<DirLock> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&**self.dir(), ".", flags, Mode::empty())?;
        let id = FileId::of_fd(&fd)?;
        let deadline = Instant::now() + LOCK_WAIT;
        let mut pause = Duration::from_micros(200);
        loop {
            match rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(DirLock { _fd: fd, id }),
                Err(Errno::WOULDBLOCK | Errno::INTR) if Instant::now() < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                Err(errno) => return Err(errno.into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RelPath, RootDir};

    #[test]
    fn two_handles_of_one_directory_exclude_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let root = RootDir::open(dir.path()).unwrap();
        let one = root.open_dir_nofollow(&RelPath::default(), None).unwrap();
        let two = root.open_dir_nofollow(&RelPath::default(), None).unwrap();
        let held = one.lock().unwrap();
        assert_eq!(held.id(), two.id().unwrap());
        // The same handle, opened again: a lock of its own, which the held one blocks.
        let fd = rustix::fs::openat(
            &**two.dir(),
            ".",
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY,
            rustix::fs::Mode::empty(),
        )
        .unwrap();
        let busy = rustix::fs::flock(&fd, rustix::fs::FlockOperation::NonBlockingLockExclusive);
        assert_eq!(busy, Err(rustix::io::Errno::WOULDBLOCK));
        drop(held);
        two.lock().unwrap();
    }
}
