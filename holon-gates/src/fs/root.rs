//! A root directory handle and the handles of directories beneath it.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::{FsError, NotRegular, PathEscape, Protection, RelPath, WritePolicy};

/// A file's identity: device and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    pub(super) fn of_stat(stat: &rustix::fs::Stat) -> Self {
        Self {
            dev: stat.st_dev,
            ino: stat.st_ino,
        }
    }

    /// The identity of what `fd` holds.
    pub fn of_fd(fd: impl AsFd) -> std::io::Result<Self> {
        Ok(Self::of_stat(&rustix::fs::fstat(fd)?))
    }

    /// The identity of what `path` names, symlinks followed; `None` if nothing.
    pub fn of_path(path: &Path) -> Option<Self> {
        rustix::fs::stat(path).ok().map(|stat| Self::of_stat(&stat))
    }

    /// The device.
    pub fn device(self) -> u64 {
        self.dev
    }

    /// The inode.
    pub fn inode(self) -> u64 {
        self.ino
    }
}

/// What a directory entry is, symlinks not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Anything else.
    Other(NotRegular),
}

/// What `fstat` says about a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileInfo {
    /// Its kind.
    pub kind: EntryKind,
    /// Its size in bytes.
    pub size: u64,
    /// Its permission bits (`0o7777`).
    pub mode: u32,
    /// Its modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
}

impl FileInfo {
    fn of(stat: &rustix::fs::Stat) -> Self {
        let kind = match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => EntryKind::File,
            FileType::Directory => EntryKind::Dir,
            FileType::Symlink => EntryKind::Other(NotRegular::Symlink),
            FileType::Fifo => EntryKind::Other(NotRegular::Fifo),
            FileType::Socket => EntryKind::Other(NotRegular::Socket),
            _ => EntryKind::Other(NotRegular::Device),
        };
        Self {
            kind,
            size: u64::try_from(stat.st_size).unwrap_or(0),
            mode: stat.st_mode & 0o7777,
            mtime_ns: stat
                .st_mtime
                .saturating_mul(1_000_000_000)
                .saturating_add(stat.st_mtime_nsec as i64),
        }
    }

    fn not_regular(&self) -> Option<NotRegular> {
        match self.kind {
            EntryKind::File => None,
            EntryKind::Dir => Some(NotRegular::Directory),
            EntryKind::Other(kind) => Some(kind),
        }
    }
}

/// A regular file's bytes and what `fstat` said of the handle they were read from.
#[derive(Debug, Clone)]
pub struct RegularFile {
    /// The content.
    pub bytes: Vec<u8>,
    /// Its metadata.
    pub info: FileInfo,
}

/// An open root directory: every path the gate resolves is beneath it.
#[derive(Debug, Clone)]
pub struct RootDir {
    path: PathBuf,
    dir: Arc<Dir>,
}

impl RootDir {
    /// Opens the directory at `path`, symlinks followed, and names it by what the
    /// handle holds (its real path, read from the kernel), not by resolving the string
    /// a second time: a directory swapped in between would be named wrong. Without
    /// procfs the name is the path canonicalized after the open.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let dir = Dir::open_ambient_dir(path, cap_std::ambient_authority())?;
        let path = match real_path(&dir) {
            Ok(real) if real.is_absolute() => real,
            _ => path.canonicalize()?,
        };
        Ok(Self {
            path,
            dir: Arc::new(dir),
        })
    }

    /// The canonical path of the directory it holds, as it was when opened.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path beneath the root that the absolute `path` names when one of its
    /// ancestors is the root under another spelling (a symlinked `/tmp`, a bind
    /// mount): the ancestor's device and inode are the root's. Nothing is opened by
    /// the answer; the gate still resolves it beneath the handle.
    pub fn rel_of_alias(&self, path: &Path) -> Option<RelPath> {
        let root = FileId::of_fd(&*self.dir).ok()?;
        path.ancestors()
            .find(|ancestor| FileId::of_path(ancestor) == Some(root))
            .and_then(|ancestor| RelPath::normalize(path.strip_prefix(ancestor).ok()?))
    }

    /// Reads the regular file at `rel`, following symlinks that stay beneath the root
    /// (the kernel refuses the others), at most `limit` bytes.
    pub fn read_beneath(&self, rel: &RelPath, limit: u64) -> Result<RegularFile, FsError> {
        let mut options = OpenOptions::new();
        options
            .read(true)
            .custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32);
        let file = self.beneath(rel, |dir, name| dir.open_with(name, &options))?;
        read_regular(file.into_std().into(), &rel.to_path_buf(), limit)
    }

    /// The handle of the directory at `rel`, following symlinks that stay beneath the
    /// root (the kernel refuses the others), as a command's working directory is.
    pub fn open_dir_beneath(&self, rel: &RelPath) -> Result<DirHandle, FsError> {
        let dir = self.beneath(rel, |dir, name| dir.open_dir(name))?;
        Ok(DirHandle {
            root: Arc::clone(&self.dir),
            dir: Arc::new(dir),
            rel: rel.clone(),
        })
    }

    /// `open(root, rel)` through cap-std, which resolves `rel` beneath the root; a
    /// refusal for leading out is [`FsError::Escapes`].
    fn beneath<T>(
        &self,
        rel: &RelPath,
        open: impl FnOnce(&Dir, &Path) -> std::io::Result<T>,
    ) -> Result<T, FsError> {
        let shown = rel.to_path_buf();
        let name = if rel.is_root() {
            Path::new(".")
        } else {
            shown.as_path()
        };
        open(&self.dir, name).map_err(|error| {
            if is_escape(&error) {
                FsError::Escapes {
                    path: shown.clone(),
                    reason: PathEscape::SymlinkOut,
                }
            } else {
                FsError::io(shown.clone(), error)
            }
        })
    }

    /// The handle of the directory at `rel`, no symlink followed on the way; with a
    /// policy, a protected directory along the way is refused.
    pub fn open_dir_nofollow(
        &self,
        rel: &RelPath,
        policy: Option<&WritePolicy>,
    ) -> Result<DirHandle, FsError> {
        self.walk(rel, policy, None)
    }

    /// Like [`RootDir::open_dir_nofollow`], creating the directories that are missing;
    /// each one created is pushed to `created` (outermost first).
    pub fn create_dirs_nofollow(
        &self,
        rel: &RelPath,
        policy: Option<&WritePolicy>,
        created: &mut Vec<RelPath>,
    ) -> Result<DirHandle, FsError> {
        self.walk(rel, policy, Some(created))
    }

    /// Reads the regular file at `rel`, no symlink followed anywhere, at most `limit`
    /// bytes.
    pub fn read_nofollow(&self, rel: &RelPath, limit: u64) -> Result<RegularFile, FsError> {
        let (parent, name) = self.split(rel)?;
        self.open_dir_nofollow(&parent, None)?
            .read_file(name, limit)
    }

    fn split<'r>(&self, rel: &'r RelPath) -> Result<(RelPath, &'r OsStr), FsError> {
        match (rel.parent(), rel.file_name()) {
            (Some(parent), Some(name)) => Ok((parent, name)),
            _ => Err(FsError::NotRegular {
                path: PathBuf::from("."),
                kind: NotRegular::Directory,
            }),
        }
    }

    fn walk(
        &self,
        rel: &RelPath,
        policy: Option<&WritePolicy>,
        mut create: Option<&mut Vec<RelPath>>,
    ) -> Result<DirHandle, FsError> {
        let mut handle = DirHandle {
            root: Arc::clone(&self.dir),
            dir: Arc::clone(&self.dir),
            rel: RelPath::default(),
        };
        handle.check(policy)?;
        for part in rel.parts() {
            let next = handle.rel.join(Path::new(part)).unwrap_or_default();
            let opened = match handle.child_dir(part, policy) {
                Err(FsError::NotFound { .. }) if create.is_some() => {
                    match rustix::fs::mkdirat(
                        &*handle.dir,
                        part.as_os_str(),
                        Mode::from_raw_mode(0o777),
                    ) {
                        Ok(()) => {
                            if let Some(created) = create.as_deref_mut() {
                                created.push(next.clone());
                            }
                        }
                        Err(Errno::EXIST) => {}
                        Err(errno) => return Err(FsError::io(next.to_path_buf(), errno.into())),
                    }
                    handle.child_dir(part, policy)?
                }
                other => other?,
            };
            handle = opened;
        }
        Ok(handle)
    }
}

/// The real path of the file open at `fd`, as the kernel names the descriptor in
/// `/proc/self/fd`: found from the handle, never by looking a name up again.
pub fn real_path(fd: impl AsFd) -> std::io::Result<PathBuf> {
    let link = format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd());
    std::fs::read_link(link)
}

/// The directory `path` resolves into, links followed, as the kernel names the
/// handle opened on it: `path` itself for a directory, else the directory holding
/// the file. `None` when nothing is there.
pub fn resolved_dir(path: &Path) -> Option<PathBuf> {
    let fd = rustix::fs::open(path, OFlags::PATH | OFlags::CLOEXEC, Mode::empty()).ok()?;
    let real = real_path(&fd).ok()?;
    let is_dir = rustix::fs::fstat(&fd)
        .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Directory);
    if is_dir {
        Some(real)
    } else {
        real.parent().map(Path::to_path_buf)
    }
}

/// Whether cap-std refused a path for leading outside its root (a custom error, as
/// opposed to an `EACCES` from the kernel).
fn is_escape(error: &std::io::Error) -> bool {
    (error.kind() == std::io::ErrorKind::PermissionDenied && error.raw_os_error().is_none())
        || error.raw_os_error() == Some(Errno::XDEV.raw_os_error())
}

/// Reads an open file if it is regular (`fstat` on the handle, so a FIFO opened with
/// `O_NONBLOCK` is refused without blocking).
fn read_regular(fd: OwnedFd, shown: &Path, limit: u64) -> Result<RegularFile, FsError> {
    let stat = rustix::fs::fstat(&fd).map_err(|e| FsError::io(shown, e.into()))?;
    let info = FileInfo::of(&stat);
    if let Some(kind) = info.not_regular() {
        return Err(FsError::NotRegular {
            path: shown.to_path_buf(),
            kind,
        });
    }
    if info.size > limit {
        return Err(FsError::TooLarge {
            path: shown.to_path_buf(),
            size: info.size,
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(info.size).unwrap_or(0));
    std::fs::File::from(fd)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| FsError::io(shown, e))?;
    if bytes.len() as u64 > limit {
        return Err(FsError::TooLarge {
            path: shown.to_path_buf(),
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(RegularFile { bytes, info })
}

impl AsFd for RootDir {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.dir.as_fd()
    }
}

/// A directory beneath a root, reached without following a symlink; names given to
/// its methods are single components.
#[derive(Debug, Clone)]
pub struct DirHandle {
    root: Arc<Dir>,
    dir: Arc<Dir>,
    rel: RelPath,
}

impl AsFd for DirHandle {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.dir.as_fd()
    }
}

impl DirHandle {
    /// Its path relative to the root.
    pub fn rel(&self) -> &RelPath {
        &self.rel
    }

    /// The real path of the directory it holds, as the kernel gives it for the
    /// handle (no name is looked up).
    pub fn real_path(&self) -> std::io::Result<PathBuf> {
        real_path(&*self.dir)
    }

    fn shown(&self, name: &OsStr) -> PathBuf {
        self.rel.to_path_buf().join(name)
    }

    /// Refuses a protected directory.
    fn check(&self, policy: Option<&WritePolicy>) -> Result<(), FsError> {
        let Some(policy) = policy else {
            return Ok(());
        };
        let id = FileId::of_fd(&*self.dir).map_err(|e| FsError::io(self.rel.to_path_buf(), e))?;
        if policy.forbids(id) {
            return Err(FsError::Protected {
                path: self.rel.to_path_buf(),
                why: Protection::StateDir,
            });
        }
        Ok(())
    }

    /// The subdirectory `name`, refused if it is a symlink (or protected, with a
    /// policy).
    pub fn child_dir(
        &self,
        name: &OsStr,
        policy: Option<&WritePolicy>,
    ) -> Result<DirHandle, FsError> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let shown = self.shown(name);
        let fd = match rustix::fs::openat(&*self.dir, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::LOOP | Errno::NOTDIR) => return Err(self.not_a_dir(name)),
            Err(errno) => return Err(FsError::io(shown, errno.into())),
        };
        let handle = DirHandle {
            root: Arc::clone(&self.root),
            dir: Arc::new(Dir::from_std_file(fd.into())),
            rel: RelPath::normalize(&shown).unwrap_or_default(),
        };
        handle.check(policy)?;
        Ok(handle)
    }

    /// Why `name` could not be opened as a directory: a symlink (leading out of the
    /// root or not), or not a directory.
    fn not_a_dir(&self, name: &OsStr) -> FsError {
        let shown = self.shown(name);
        match self.stat(name) {
            Ok(Some(info)) if info.kind == EntryKind::Other(NotRegular::Symlink) => {
                // The kernel tells where it leads: refused either way, but named right.
                match self.root.open_dir(&shown) {
                    Err(error) if is_escape(&error) => FsError::Escapes {
                        path: shown,
                        reason: PathEscape::SymlinkOut,
                    },
                    _ => FsError::ThroughSymlink {
                        link: shown.clone(),
                        path: shown,
                    },
                }
            }
            Ok(Some(info)) => match info.not_regular() {
                Some(kind) => FsError::NotRegular { path: shown, kind },
                None => FsError::io(shown, Errno::NOTDIR.into()),
            },
            Ok(None) => FsError::NotFound { path: shown },
            Err(error) => error,
        }
    }

    /// What `name` is, not following a symlink; `None` when nothing is there.
    pub fn stat(&self, name: &OsStr) -> Result<Option<FileInfo>, FsError> {
        match rustix::fs::statat(&*self.dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(FileInfo::of(&stat))),
            Err(Errno::NOENT) => Ok(None),
            Err(errno) => Err(FsError::io(self.shown(name), errno.into())),
        }
    }

    /// Reads the regular file `name` (not a symlink), at most `limit` bytes.
    pub fn read_file(&self, name: &OsStr, limit: u64) -> Result<RegularFile, FsError> {
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let shown = self.shown(name);
        match rustix::fs::openat(&*self.dir, name, flags, Mode::empty()) {
            Ok(fd) => read_regular(fd, &shown, limit),
            Err(Errno::LOOP) => Err(match self.not_a_dir(name) {
                FsError::ThroughSymlink { path, .. } => FsError::NotRegular {
                    path,
                    kind: NotRegular::Symlink,
                },
                other => other,
            }),
            Err(errno) => Err(FsError::io(shown, errno.into())),
        }
    }

    /// Every entry with what it is (symlinks not followed), sorted by name; entries
    /// that vanish while listed are left out.
    pub fn entries(&self) -> Result<Vec<(OsString, FileInfo)>, FsError> {
        let shown = self.rel.to_path_buf();
        let mut out = Vec::new();
        for entry in self.dir.entries().map_err(|e| FsError::io(&shown, e))? {
            let Ok(entry) = entry else { continue };
            let name = entry.file_name();
            if let Ok(Some(info)) = self.stat(&name) {
                out.push((name, info));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// Removes the file (or symlink) `name`.
    pub fn remove_file(&self, name: &OsStr) -> std::io::Result<()> {
        self.dir.remove_file(name)
    }

    /// Removes the empty directory `name`.
    pub fn remove_dir(&self, name: &OsStr) -> std::io::Result<()> {
        self.dir.remove_dir(name)
    }

    /// Renames `from` to `to` within this directory.
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
        rustix::fs::renameat(&*self.dir, from, &*self.dir, to).map_err(Into::into)
    }

    pub(super) fn dir(&self) -> &Arc<Dir> {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root whose directory a thread keeps exchanging with a symlink to another
    /// directory: the name a `RootDir` gives must be the directory its handle holds.
    #[test]
    fn a_root_is_named_by_what_its_handle_holds_while_it_is_swapped() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("a")).unwrap();
        std::fs::create_dir(base.join("b")).unwrap();
        std::os::unix::fs::symlink("b", base.join("swap")).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (stop, base) = (Arc::clone(&stop), base.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    // `a` is the directory, then a symlink to `b`, then the directory.
                    let _ = rustix::fs::renameat_with(
                        rustix::fs::CWD,
                        base.join("a"),
                        rustix::fs::CWD,
                        base.join("swap"),
                        rustix::fs::RenameFlags::EXCHANGE,
                    );
                }
            })
        };
        // `b` never moves, so a handle on it has one name; the directory `a` moves
        // between `a` and `swap`.
        let b = FileId::of_path(&base.join("b"));
        let (mut misnamed, mut opened) = (0, 0);
        for _ in 0..20_000 {
            let Ok(root) = RootDir::open(&base.join("a")) else {
                continue;
            };
            opened += 1;
            let on_b = FileId::of_fd(&*root.dir).ok() == b;
            if on_b != (root.path() == base.join("b")) {
                misnamed += 1;
            }
        }
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        assert!(opened > 1_000, "only {opened} opens succeeded");
        assert_eq!(
            misnamed, 0,
            "{misnamed} of {opened} roots named another directory"
        );
    }

    fn rel(text: &str) -> RelPath {
        RelPath::normalize(Path::new(text)).unwrap()
    }

    #[test]
    fn reads_resolve_beneath_the_root_and_only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let (root_path, outside) = (dir.path().join("root"), dir.path().join("outside"));
        std::fs::create_dir_all(root_path.join("sub")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(root_path.join("sub/a.txt"), "inside").unwrap();
        std::fs::write(outside.join("a.txt"), "outside").unwrap();
        std::os::unix::fs::symlink("sub", root_path.join("in")).unwrap();
        std::os::unix::fs::symlink("../outside", root_path.join("out")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root_path.join("pipe"),
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let root = RootDir::open(&root_path).unwrap();

        assert_eq!(
            root.read_beneath(&rel("in/a.txt"), 100).unwrap().bytes,
            b"inside"
        );
        assert!(matches!(
            root.read_beneath(&rel("out/a.txt"), 100),
            Err(FsError::Escapes { .. })
        ));
        assert!(matches!(
            root.read_nofollow(&rel("in/a.txt"), 100),
            Err(FsError::ThroughSymlink { .. })
        ));
        assert!(matches!(
            root.read_nofollow(&rel("out/a.txt"), 100),
            Err(FsError::Escapes { .. })
        ));
        assert_eq!(
            root.read_nofollow(&rel("sub/a.txt"), 100).unwrap().bytes,
            b"inside"
        );
        for read in [
            root.read_beneath(&rel("pipe"), 100),
            root.read_nofollow(&rel("pipe"), 100),
        ] {
            assert!(matches!(
                read,
                Err(FsError::NotRegular {
                    kind: NotRegular::Fifo,
                    ..
                })
            ));
        }
        assert!(matches!(
            root.read_nofollow(&rel("sub/a.txt"), 3),
            Err(FsError::TooLarge { size: 6, .. })
        ));
        assert!(matches!(
            root.read_nofollow(&rel("sub/missing"), 3),
            Err(FsError::NotFound { .. })
        ));
    }

    #[test]
    fn a_write_walk_refuses_the_state_directory_by_identity() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("state/inner")).unwrap();
        let root = RootDir::open(dir.path()).unwrap();
        let policy = WritePolicy::new(Some(&dir.path().join("state")));
        for path in ["state", "state/inner", "state/inner/new/deeper"] {
            let mut created = Vec::new();
            assert!(
                matches!(
                    root.create_dirs_nofollow(&rel(path), Some(&policy), &mut created),
                    Err(FsError::Protected {
                        why: Protection::StateDir,
                        ..
                    })
                ),
                "{path}"
            );
            assert!(created.is_empty(), "{path}: {created:?}");
        }
        let mut created = Vec::new();
        root.create_dirs_nofollow(&rel("other/new"), Some(&policy), &mut created)
            .unwrap();
        assert_eq!(created, [rel("other"), rel("other/new")]);
    }
}
