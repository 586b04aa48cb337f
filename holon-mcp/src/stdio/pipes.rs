//! stdin and stdout as the stdio transport reads and writes them.
//!
//! Tokio's `stdin()` and `stdout()` do each read and write on its blocking thread
//! pool, so every message crosses threads twice more than it must. When stdin and
//! stdout are pipes or Unix sockets (as they are when an MCP client starts its
//! server), they are read and written without blocking, on the runtime's own threads:
//! a `tools/call` answers in about 0.6x the time (`benches/mcp_vs_rmcp.rs`). Anything
//! else (a terminal, a file) keeps Tokio's blocking ones.
//!
//! Non-blocking mode belongs to the open file, which other processes may share (a
//! shell's pipeline), so [`Streams`] sets it back to blocking when the server is done.

// The socket is the stdout or stdin a client handed over, never one opened here.
#![allow(clippy::disallowed_types)]

use tokio::io::{AsyncRead, AsyncWrite};

/// This process's stdin and stdout for the transport, and what sets them back to
/// blocking when dropped (inside the runtime: it needs its reactor).
pub(crate) struct Streams {
    pub(crate) input: Box<dyn AsyncRead + Send + Unpin>,
    pub(crate) output: Box<dyn AsyncWrite + Send + Unpin>,
    pub(crate) restore: RestoreBlocking,
}

#[cfg(unix)]
pub(crate) use blocking::RestoreBlocking;

#[cfg(unix)]
mod blocking {
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::net::UnixStream;

    use tokio::io::{AsyncRead, AsyncWrite};
    use tokio::net::unix::pipe;

    use super::Streams;

    /// A second descriptor of each stream made non-blocking, to make it blocking
    /// again by.
    pub(crate) struct RestoreBlocking(Vec<Restore>);

    #[cfg(test)]
    impl RestoreBlocking {
        pub(super) fn of_pipes(reader: OwnedFd, writer: OwnedFd) -> Self {
            Self(vec![
                Restore::PipeReader(reader),
                Restore::PipeWriter(writer),
            ])
        }
    }

    enum Restore {
        PipeReader(OwnedFd),
        PipeWriter(OwnedFd),
        Socket(UnixStream),
    }

    impl Drop for RestoreBlocking {
        fn drop(&mut self) {
            // Dropped outside a runtime (a host dropping the server's future on a
            // thread of its own), a pipe cannot be registered again: left as it is.
            let in_runtime = tokio::runtime::Handle::try_current().is_ok();
            for restore in self.0.drain(..) {
                // Registering a pipe again is how Tokio hands back a blocking one.
                let _ = match restore {
                    Restore::PipeReader(_) | Restore::PipeWriter(_) if !in_runtime => Ok(()),
                    Restore::PipeReader(fd) => pipe::Receiver::from_owned_fd_unchecked(fd)
                        .and_then(pipe::Receiver::into_blocking_fd)
                        .map(drop),
                    Restore::PipeWriter(fd) => pipe::Sender::from_owned_fd_unchecked(fd)
                        .and_then(pipe::Sender::into_blocking_fd)
                        .map(drop),
                    Restore::Socket(socket) => socket.set_nonblocking(false),
                };
            }
        }
    }

    /// `fd` as a Unix socket (Node's child processes get socket pairs, not pipes),
    /// non-blocking; an error for any other file.
    fn socket(fd: BorrowedFd<'_>) -> io::Result<(tokio::net::UnixStream, Restore)> {
        let socket = UnixStream::from(fd.try_clone_to_owned()?);
        // An error for what is not a socket, or is not a Unix one.
        socket.local_addr()?;
        let restore = socket.try_clone()?;
        socket.set_nonblocking(true)?;
        Ok((
            tokio::net::UnixStream::from_std(socket)?,
            Restore::Socket(restore),
        ))
    }

    fn reader(fd: BorrowedFd<'_>) -> io::Result<(Box<dyn AsyncRead + Send + Unpin>, Restore)> {
        let owned = fd.try_clone_to_owned()?;
        let restore = owned.try_clone()?;
        match pipe::Receiver::from_owned_fd(owned) {
            Ok(pipe) => Ok((Box::new(pipe), Restore::PipeReader(restore))),
            Err(_) => socket(fd).map(|(socket, restore)| (Box::new(socket) as _, restore)),
        }
    }

    fn writer(fd: BorrowedFd<'_>) -> io::Result<(Box<dyn AsyncWrite + Send + Unpin>, Restore)> {
        let owned = fd.try_clone_to_owned()?;
        let restore = owned.try_clone()?;
        match pipe::Sender::from_owned_fd(owned) {
            Ok(pipe) => Ok((Box::new(pipe), Restore::PipeWriter(restore))),
            Err(_) => socket(fd).map(|(socket, restore)| (Box::new(socket) as _, restore)),
        }
    }

    impl Streams {
        pub(crate) fn of_process() -> Self {
            let mut restore = RestoreBlocking(Vec::new());
            let input = match reader(io::stdin().as_fd()) {
                Ok((input, fd)) => {
                    restore.0.push(fd);
                    input
                }
                Err(_) => Box::new(tokio::io::stdin()),
            };
            let output = match writer(io::stdout().as_fd()) {
                Ok((output, fd)) => {
                    restore.0.push(fd);
                    output
                }
                Err(_) => Box::new(tokio::io::stdout()),
            };
            Self {
                input,
                output,
                restore,
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::blocking::RestoreBlocking;

    #[test]
    fn dropped_outside_a_runtime_it_leaves_a_pipe_as_it_is_without_a_panic() {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(RestoreBlocking::of_pipes(reader.into(), writer.into()));
    }
}

/// Nothing to restore where stdin and stdout stay blocking.
#[cfg(not(unix))]
pub(crate) struct RestoreBlocking;

#[cfg(not(unix))]
impl Streams {
    pub(crate) fn of_process() -> Self {
        Self {
            input: Box::new(tokio::io::stdin()),
            output: Box::new(tokio::io::stdout()),
            restore: RestoreBlocking,
        }
    }
}
