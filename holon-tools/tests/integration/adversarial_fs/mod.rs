//! Hostile filesystems under the tools: a directory swapped with a symlink to the
//! outside while they run, symlinks planted at staging names, a FIFO where a file
//! should be, a worktree record pointing at `/`, and patches aimed at `.git` and the
//! state directory. Each of these leaked or hung before the filesystem gate.

mod fifo;
mod protected;
mod staging;
mod swap_race;
mod workdir_race;
mod worktree_record;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

use rustix::fs::{CWD, RenameFlags, renameat_with};

/// A thread that exchanges two names in one directory (`renameat2(RENAME_EXCHANGE)`)
/// as fast as it can, until dropped.
pub struct Swapper {
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl Swapper {
    /// Starts exchanging `dir/a` and `dir/b`.
    pub fn start(dir: &Path, a: &str, b: &str) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let swaps = Arc::new(AtomicU64::new(0));
        let (a, b) = (dir.join(a), dir.join(b));
        let thread = std::thread::spawn({
            let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
            move || {
                while !stop.load(Ordering::Relaxed) {
                    renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).unwrap();
                    swaps.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        Self {
            stop,
            swaps,
            thread: Some(thread),
        }
    }

    /// Stops the thread; how many exchanges it made.
    pub fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
        self.swaps.load(Ordering::Relaxed)
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Every path under `dir`, recursively, sorted (symlinks listed, not followed).
pub fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                pending.push(entry.path());
            }
            found.push(entry.path());
        }
    }
    found.sort();
    found
}
