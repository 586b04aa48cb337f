//! Log files of bounded size. A command that prints without end must not fill the
//! disk: its log keeps the first half of the cap as it is written and a rolling last
//! half in two segment files beside it (one chunk in memory at most), and when the
//! stream ends the log gets a note of what was cut, then that tail.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The default cap of one log file: 64 MiB (32 MiB head, 32 MiB tail).
pub const DEFAULT_LOG_CAP_BYTES: u64 = 64 << 20;

/// A log file that keeps at most `cap` bytes of its stream, plus the note of the cut.
#[derive(Debug)]
pub struct CappedLog {
    path: PathBuf,
    stream: String,
    file: File,
    head_budget: u64,
    tail_budget: u64,
    head_len: u64,
    total: u64,
    tail: Option<TailRing>,
}

/// The last `budget` bytes past the head: written to one segment until it is full,
/// then to the other (emptied first), so the two always hold at least the last
/// `budget` bytes.
#[derive(Debug)]
struct TailRing {
    segments: [PathBuf; 2],
    current: File,
    index: usize,
    current_len: u64,
    older: bool,
}

impl TailRing {
    fn create(log: &Path) -> io::Result<Self> {
        let segment = |n: usize| {
            let mut name = log.as_os_str().to_owned();
            name.push(format!(".tail{n}"));
            PathBuf::from(name)
        };
        let segments = [segment(0), segment(1)];
        Ok(Self {
            current: File::create(&segments[0])?,
            segments,
            index: 0,
            current_len: 0,
            older: false,
        })
    }

    fn write(&mut self, mut bytes: &[u8], budget: u64) -> io::Result<()> {
        if budget == 0 {
            return Ok(());
        }
        while !bytes.is_empty() {
            if self.current_len >= budget {
                self.index = 1 - self.index;
                // A new file, not a truncated one: ext4 flushes a file truncated and
                // rewritten when it is closed (auto_da_alloc), which costs a disk
                // write per rotation.
                remove_if_there(&self.segments[self.index])?;
                self.current = File::create(&self.segments[self.index])?;
                self.current_len = 0;
                self.older = true;
            }
            let room = usize::try_from(budget - self.current_len).unwrap_or(usize::MAX);
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.current.write_all(now)?;
            self.current_len += now.len() as u64;
            bytes = later;
        }
        Ok(())
    }

    /// How many bytes the ring holds of the last `budget`.
    fn kept(&self, budget: u64) -> u64 {
        if self.older { budget } else { self.current_len }
    }

    /// Appends the last `budget` bytes to `to` and removes the segments.
    fn drain_into(self, to: &mut File, budget: u64) -> io::Result<()> {
        if self.older {
            let mut older = File::open(&self.segments[1 - self.index])?;
            let from_older = budget - self.current_len;
            older.seek(SeekFrom::Start(budget - from_older))?;
            io::copy(&mut older.take(from_older), to)?;
        }
        drop(self.current);
        io::copy(&mut File::open(&self.segments[self.index])?, to)?;
        for segment in &self.segments {
            remove_if_there(segment)?;
        }
        Ok(())
    }
}

fn remove_if_there(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

impl CappedLog {
    /// Creates (or truncates) the log of `stream` at `path`, keeping at most `cap`
    /// bytes of it: the first half and the last half.
    pub fn create(path: &Path, stream: &str, cap: u64) -> io::Result<Self> {
        let head_budget = cap / 2;
        Ok(Self {
            file: File::create(path)?,
            path: path.to_path_buf(),
            stream: stream.to_string(),
            head_budget,
            tail_budget: cap - head_budget,
            head_len: 0,
            total: 0,
            tail: None,
        })
    }

    /// How many bytes the stream wrote in all.
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    /// Ends the log: when the stream went past the cap, appends the note of the cut
    /// and the kept tail.
    pub fn finish(mut self) -> io::Result<()> {
        let Some(tail) = self.tail.take() else {
            return self.file.flush();
        };
        let kept = tail.kept(self.tail_budget);
        let cut = self.total - self.head_len - kept;
        if cut > 0 {
            write!(
                self.file,
                "\n[... holon-tools: {cut} bytes of {} cut here; the log keeps the first {} and the last {kept} of its {} bytes ...]\n",
                self.stream, self.head_len, self.total
            )?;
        }
        tail.drain_into(&mut self.file, self.tail_budget)?;
        self.file.flush()
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Write for CappedLog {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let room = usize::try_from(self.head_budget - self.head_len).unwrap_or(usize::MAX);
        let (head, rest) = bytes.split_at(room.min(bytes.len()));
        if !head.is_empty() {
            self.file.write_all(head)?;
            self.head_len += head.len() as u64;
        }
        if !rest.is_empty() {
            if self.tail.is_none() {
                self.tail = Some(TailRing::create(&self.path)?);
            }
            if let Some(tail) = &mut self.tail {
                tail.write(rest, self.tail_budget)?;
            }
        }
        self.total += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a capped log of `cap` holds after `input` was written in `chunk`-sized
    /// writes: the whole input when it fits, else its head, a note and its tail.
    fn expected(input: &[u8], cap: usize) -> (Vec<u8>, Vec<u8>) {
        let head = cap / 2;
        let tail = cap - head;
        (input[..head].to_vec(), input[input.len() - tail..].to_vec())
    }

    #[test]
    fn keeps_head_and_tail_around_a_note_for_any_cap_and_chunking() {
        let dir = tempfile::tempdir().unwrap();
        // Deterministic bytes, no two windows alike.
        let input: Vec<u8> = (0u32..2000)
            .map(|n| (n.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        for cap in [0usize, 1, 7, 100, 1999, 2000, 3000] {
            for chunk in [1usize, 7, 300, 2000] {
                let path = dir.path().join(format!("out-{cap}-{chunk}.log"));
                let mut log = CappedLog::create(&path, "stdout", cap as u64).unwrap();
                for piece in input.chunks(chunk) {
                    log.write_all(piece).unwrap();
                }
                assert_eq!(log.total_bytes(), input.len() as u64);
                log.finish().unwrap();
                let written = std::fs::read(&path).unwrap();
                if cap >= input.len() {
                    assert!(written == input, "cap {cap} chunk {chunk}");
                    continue;
                }
                let (head, tail) = expected(&input, cap);
                assert!(written.starts_with(&head), "cap {cap} chunk {chunk}");
                assert!(written.ends_with(&tail), "cap {cap} chunk {chunk}");
                let note = &written[head.len()..written.len() - tail.len()];
                let note = String::from_utf8_lossy(note);
                let cut = input.len() - cap;
                assert!(
                    note.contains(&format!("{cut} bytes of stdout cut here")),
                    "{note}"
                );
                let left: Vec<_> = std::fs::read_dir(dir.path())
                    .unwrap()
                    .map(|e| e.unwrap().file_name())
                    .filter(|name| name.to_string_lossy().contains(".tail"))
                    .collect();
                assert!(left.is_empty(), "{left:?}");
            }
        }
    }
}
