//! ExecCommand's progress: while the call waits on its command, the lines the command
//! prints are reported as they come, at most once per [`THROTTLE`], each report
//! counting the lines so far and carrying the newest one.

use std::time::Duration;

use holon_core::Progress;
use tokio::time::Instant;

use holon_runtime::tasks::{OutputStream, Task};

/// The least time between two reports: a command printing thousands of lines a second
/// gives a few reports a second, each with the newest line.
const THROTTLE: Duration = Duration::from_millis(200);

/// The most of a line a report carries.
const MESSAGE_BYTES: usize = 240;

/// How much of a log one read takes.
const CHUNK_BYTES: usize = 64 * 1024;

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
    let mut tails = [
        LineTail::default(),
        LineTail::default(), // stderr; stays empty for a terminal
    ];
    let mut lines = 0u64;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let seen = (tails[0].offset, tails[1].offset);
        task.wait_progress(left, seen).await;
        let exited = task.exit().is_some();
        if exited {
            task.wait_drained(drain).await;
        }
        let mut newest = None;
        for (tail, stream) in tails
            .iter_mut()
            .zip([OutputStream::Stdout, OutputStream::Stderr])
        {
            let added = tail.advance(task, stream);
            if added > 0 {
                lines += added;
                newest = tail.last.clone();
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
    /// Reads what the log of `stream` gained since the last call; how many lines it
    /// completed.
    fn advance(&mut self, task: &Task, stream: OutputStream) -> u64 {
        let mut added = 0;
        loop {
            let chunk = task.read_output(stream, self.offset, CHUNK_BYTES);
            if chunk.is_empty() {
                break;
            }
            self.offset += chunk.len() as u64;
            for &byte in &chunk {
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
