//! The folders of the commands' log files and reading the logs back. The logs live
//! under the runtime's state directory (or its scratch directory), which the runtime
//! names itself and tools never write; a tool reads a task's output through the
//! task (the runtime's `Task::read_output`), never by a path of its own.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Creates the folder `dir` of logs (and its parents).
pub fn create_log_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Removes the folder `dir` of logs and what it holds; one already gone is no error.
pub fn remove_log_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// The size of a log, 0 when it cannot be read (not created yet, or removed).
pub fn log_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |metadata| metadata.len())
}

/// Up to `len` bytes of the log at `path` from `start`; what can be read when it is
/// shorter or unreadable.
pub fn read_log(path: &Path, start: u64, len: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    if len == 0 {
        return bytes;
    }
    if let Ok(mut file) = File::open(path)
        && file.seek(SeekFrom::Start(start)).is_ok()
    {
        let _ = file.take(len as u64).read_to_end(&mut bytes);
    }
    bytes
}
