//! ExecCommand's progress: while the call waits on its command, the lines the command
//! prints are reported as they come, at most once per [`THROTTLE`], each report
//! counting the lines so far and carrying the newest one.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

use holon_core::Progress;
use tokio::time::Instant;

use holon_runtime::tasks::Task;

/// The least time between two reports: a command printing thousands of lines a second
/// gives a few reports a second, each with the newest line.
const THROTTLE: Duration = Duration::from_millis(200);

/// The most of a line a report carries.
const MESSAGE_BYTES: usize = 240;

/// Waits up to `limit` for `task` to exit, as [`Task::wait_exit`] does, reporting its
/// output lines to `progress` on the way; whether it exited. Once it exited, its
/// output gets up to `drain` to reach the logs, so that the last report has it all.
pub(super) async fn wait_exit(
    task: &Task,
    limit: Duration,
    drain: Duration,
    progress: &Progress,
) -> bool {
    if !progress.is_enabled() {
        return task.wait_exit(limit).await;
    }
    let deadline = Instant::now() + limit;
    let mut streams = [
        LineTail::default(),
        LineTail::default(), // stderr; stays empty for a terminal
    ];
    let mut lines = 0u64;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let seen = (streams[0].offset, streams[1].offset);
        task.wait_progress(left, seen).await;
        let exited = task.exit().is_some();
        if exited {
            task.wait_drained(drain).await;
        }
        let paths = [Some(task.stdout_log()), task.stderr_log()];
        let mut newest = None;
        for (stream, path) in streams.iter_mut().zip(paths) {
            let Some(path) = path else { continue };
            let added = stream.advance(path);
            if added > 0 {
                lines += added;
                newest = stream.last.clone();
            }
        }
        if let Some(line) = newest {
            #[allow(clippy::cast_precision_loss)] // a count of lines, far below 2^52
            progress.report(lines as f64, None, Some(&line));
        }
        if exited {
            return true;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        // The pause between reports ends early at the exit: progress never delays
        // the answer.
        task.wait_exit(THROTTLE.min(left)).await;
    }
}

/// How far one log has been read, and its newest complete line.
#[derive(Default)]
struct LineTail {
    offset: u64,
    /// The line being read, up to [`MESSAGE_BYTES`].
    current: Vec<u8>,
    last: Option<String>,
}

impl LineTail {
    /// Reads what the log gained since the last call; how many lines it completed.
    fn advance(&mut self, path: &Path) -> u64 {
        let Ok(mut file) = File::open(path) else {
            return 0;
        };
        if file.seek(SeekFrom::Start(self.offset)).is_err() {
            return 0;
        }
        let mut added = 0;
        let mut chunk = [0u8; 8192];
        loop {
            let n = match file.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            self.offset += n as u64;
            for &byte in &chunk[..n] {
                if byte == b'\n' {
                    added += 1;
                    let line = String::from_utf8_lossy(&self.current);
                    self.last = Some(line.trim_end_matches('\r').to_string());
                    self.current.clear();
                } else if self.current.len() < MESSAGE_BYTES {
                    self.current.push(byte);
                }
            }
        }
        added
    }
}
