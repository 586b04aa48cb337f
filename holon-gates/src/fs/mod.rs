//! The filesystem gate: a root is an open directory handle, and every path a tool
//! names is resolved beneath it by the kernel, never by checking a string and
//! reopening it.
//!
//! Two ways to resolve a path beneath a root:
//! - following symlinks that stay beneath it ([`RootDir::read_beneath`], for reads
//!   such as ViewImage): `cap-std` opens with `openat2(RESOLVE_BENEATH)` where the
//!   kernel has it and with checked component walks otherwise;
//! - following none at all ([`RootDir::open_dir_nofollow`], [`RootDir::read_nofollow`],
//!   for every write and for the memory index): one `openat(O_NOFOLLOW)` per
//!   component, each relative to the handle of the one before.
//!
//! Only regular files are read (a FIFO is opened with `O_NONBLOCK` and refused after
//! `fstat`, so it never blocks). Writes go to `O_CREAT|O_EXCL` files with random
//! names in the target's directory handle and are renamed within it ([`Staged`]).
//! A writer that must replace exactly what it read holds the directory's
//! [`DirLock`] from the check to the rename. A [`WritePolicy`] keeps `.git` directories and the state directory out of reach.
//!
//! The gate knows nothing of tools: its errors are its own ([`FsError`]).

// The filesystem gate: the one place where workspace files are opened, by handle.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod ancestry;
mod dir_path;
mod error;
mod lock;
mod policy;
mod rel_path;
mod root;
mod stage;
mod tool_error;

pub use ancestry::{RootRefusal, is_beneath_any, root_refusal};
pub use dir_path::{DirPathError, open_dir_path};
pub use error::{FsError, NotRegular, Protection};
pub use lock::{DirLock, LOCK_WAIT};
pub use policy::WritePolicy;
pub use rel_path::{PathEscape, RelPath};
pub use root::{
    DirHandle, EntryKind, FileId, FileInfo, RegularFile, RootDir, real_path, resolved_dir,
};
pub use stage::Staged;
