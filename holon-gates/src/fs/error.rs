//! What the gate refuses, and why; tools turn these into their own errors.

use std::path::PathBuf;

/// What kind of non-regular file a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotRegular {
    /// A directory.
    Directory,
    /// A FIFO (named pipe).
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character or block device.
    Device,
    /// A symlink (where none is followed).
    Symlink,
}

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Directory => "a directory",
            Self::Fifo => "a FIFO (named pipe)",
            Self::Socket => "a socket",
            Self::Device => "a device",
            Self::Symlink => "a symlink",
        })
    }
}

/// Why a path may not be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protection {
    /// It is, or is inside, a `.git` directory (or is a `.git` file).
    Git,
    /// It is inside the runtime's state directory.
    StateDir,
}

impl std::fmt::Display for Protection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Git => "it is inside a `.git` directory, which tools never write (a planted hook or `core.fsmonitor` would run on the next git command)",
            Self::StateDir => "it is inside the runtime's state directory, which tools never write",
        })
    }
}

/// A refusal or failure of the gate. `path` is the path relative to its root.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// The path does not stay beneath its root (`..`, absolute, or a symlink leading
    /// out).
    #[error("{path} is refused: {reason}")]
    Escapes {
        /// The path as named.
        path: PathBuf,
        /// Why.
        reason: super::PathEscape,
    },
    /// A symlink along the path, where symlinks are not followed.
    #[error("{path} is beyond a symbolic link ({link}), which is not followed here")]
    ThroughSymlink {
        /// The path as named.
        path: PathBuf,
        /// The symlink, relative to the root.
        link: PathBuf,
    },
    /// The path may not be written.
    #[error("{path} is refused: {why}")]
    Protected {
        /// The path as named.
        path: PathBuf,
        /// Why.
        why: Protection,
    },
    /// The path names something other than a regular file.
    #[error("{path} is {kind}, not a regular file")]
    NotRegular {
        /// The path as named.
        path: PathBuf,
        /// What it is.
        kind: NotRegular,
    },
    /// Nothing at the path.
    #[error("{path} does not exist")]
    NotFound {
        /// The path as named.
        path: PathBuf,
    },
    /// The file is larger than the caller reads.
    #[error("{path} has {size} bytes, more than the {limit} read here")]
    TooLarge {
        /// The path as named.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Any other I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The path as named.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl FsError {
    /// An I/O error on `path`, with `ENOENT` as [`FsError::NotFound`].
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        if source.kind() == std::io::ErrorKind::NotFound {
            Self::NotFound { path }
        } else {
            Self::Io { path, source }
        }
    }

    /// The path the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            Self::Escapes { path, .. }
            | Self::ThroughSymlink { path, .. }
            | Self::Protected { path, .. }
            | Self::NotRegular { path, .. }
            | Self::NotFound { path }
            | Self::TooLarge { path, .. }
            | Self::Io { path, .. } => path,
        }
    }
}
