//! The stdio transport's lines, bounded: a line longer than the limit is dropped
//! as it streams in (never buffered whole) and answered with a JSON-RPC error, where
//! rmcp alone drops it without a word.
//!
//! rmcp's own line transport reads stdin through a [`LineLimit`] and drops the same
//! lines (its limit is set to ours); the [`LineLimit`] notes each dropped line's
//! length, and [`BoundedLines`], around that transport, sends its error through the
//! transport's writer (whole messages only, so never inside another line) before the
//! transport reads anything past that line. No task of ours sits between stdin,
//! rmcp and stdout.

use std::future::{Future, poll_fn};
use std::io;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ErrorCode, ErrorData, JsonRpcMessage};
use rmcp::service::TxJsonRpcMessage;
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, ReadBuf};

/// The longest line a [`StdioServer`](crate::StdioServer) reads: 8 MiB (rmcp drops
/// lines past 16 MiB silently, so ours must be shorter).
pub const DEFAULT_MAX_LINE_BYTES: usize = 8 << 20;

/// The length of a dropped line whose error is not sent yet; 0 when there is none
/// (a dropped line is at least one byte long).
type Dropped = Arc<AtomicUsize>;

/// The line limit rmcp's line transport must have to drop exactly the lines a
/// [`LineLimit`] of `max` drops: rmcp counts the newline, we do not.
pub(crate) fn rmcp_line_limit(max: usize) -> usize {
    max.saturating_add(1)
}

/// A reader that passes `input` through unchanged and notes each line longer than
/// `max` bytes (newline aside) once its newline has passed. After such a line it
/// reads nothing more until [`BoundedLines`] has taken the note, so that the line's
/// error goes out before anything read after it is answered.
pub(crate) struct LineLimit<R> {
    input: R,
    max: usize,
    /// The length so far of the line being read (newline aside).
    line: usize,
    /// Bytes read past a dropped line's newline, handed out before reading more.
    held: Vec<u8>,
    dropped: Dropped,
}

impl<R> LineLimit<R> {
    /// `input` with lines of at most `max` bytes, and the [`BoundedLines`] wrapper
    /// for the transport that reads it.
    pub(crate) fn new(input: R, max: usize) -> (Self, DroppedLines) {
        let dropped = Dropped::default();
        let reader = Self {
            input,
            max,
            line: 0,
            held: Vec::new(),
            dropped: dropped.clone(),
        };
        (reader, DroppedLines { dropped, max })
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineLimit<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.dropped.load(Ordering::Acquire) != 0 {
            // BoundedLines takes the note as soon as this read is done with.
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let start = buf.filled().len();
        if this.held.is_empty() {
            ready!(Pin::new(&mut this.input).poll_read(cx, buf))?;
        } else {
            let taken = this.held.len().min(buf.remaining());
            buf.put_slice(&this.held[..taken]);
            this.held.drain(..taken);
        }
        let read = &buf.filled()[start..];
        let mut line_start = 0;
        for newline in memchr::memchr_iter(b'\n', read) {
            let length = this.line.saturating_add(newline - line_start);
            this.line = 0;
            line_start = newline + 1;
            if length > this.max {
                // Hand out the read up to this newline only.
                this.held.splice(0..0, read[line_start..].iter().copied());
                buf.set_filled(start + line_start);
                this.dropped.store(length, Ordering::Release);
                return Poll::Ready(Ok(()));
            }
        }
        this.line = this.line.saturating_add(read.len() - line_start);
        Poll::Ready(Ok(()))
    }
}

/// The notes of a [`LineLimit`], for the [`BoundedLines`] around its transport.
pub(crate) struct DroppedLines {
    dropped: Dropped,
    max: usize,
}

impl DroppedLines {
    /// The length of a dropped line not answered yet, taking it.
    fn take(&self) -> Option<usize> {
        match self.dropped.swap(0, Ordering::AcqRel) {
            0 => None,
            length => Some(length),
        }
    }
}

/// An error being sent, kept across a cancelled `receive`.
type Sending = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A server transport reading through a [`LineLimit`] that answers each line it
/// dropped with [`too_long`], before reading on.
pub(crate) struct BoundedLines<T> {
    inner: T,
    dropped: DroppedLines,
    sending: Option<Sending>,
}

impl<T> BoundedLines<T> {
    /// `inner`, whose reader is the [`LineLimit`] that `dropped` comes from.
    pub(crate) fn new(inner: T, dropped: DroppedLines) -> Self {
        Self {
            inner,
            dropped,
            sending: None,
        }
    }
}

/// What a turn of [`BoundedLines::receive`] got.
// A value on the stack for a moment: boxing the message would cost an allocation each.
#[expect(clippy::large_enum_variant)]
enum Received {
    Message(Option<ClientJsonRpcMessage>),
    Dropped(usize),
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for BoundedLines<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    // rmcp polls `receive` in a `select!`: a cancelled one keeps its error being
    // sent in `sending`, and rmcp's own `receive` keeps a partial line.
    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if let Some(sending) = &mut self.sending {
                sending.await;
                self.sending = None;
            }
            let received = {
                let Self { inner, dropped, .. } = &mut *self;
                let mut receive = pin!(inner.receive());
                poll_fn(|cx| {
                    if let Some(length) = dropped.take() {
                        return Poll::Ready(Received::Dropped(length));
                    }
                    match receive.as_mut().poll(cx) {
                        Poll::Ready(message) => Poll::Ready(Received::Message(message)),
                        Poll::Pending => dropped.take().map_or(Poll::Pending, |length| {
                            Poll::Ready(Received::Dropped(length))
                        }),
                    }
                })
                .await
            };
            match received {
                Received::Message(message) => return message,
                Received::Dropped(length) => {
                    // Should stdout be gone, the session ends on its own.
                    let send = self.inner.send(too_long(length, self.dropped.max));
                    self.sending = Some(Box::pin(async move {
                        let _ = send.await;
                    }));
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// The JSON-RPC error for a dropped line of `length` bytes: no `id`, as the line
/// was never read.
fn too_long(length: usize, max: usize) -> TxJsonRpcMessage<RoleServer> {
    let error = ErrorData::new(
        ErrorCode::INVALID_REQUEST,
        format!(
            "the message is {length} bytes long, over this server's limit of {max} bytes; it was dropped: send a shorter one"
        ),
        Some(serde_json::json!({
            "kind": "message_too_long", "length": length, "max_bytes": max,
        })),
    );
    JsonRpcMessage::error(error, None)
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    /// A reader that hands out at most `chunk` bytes a read.
    struct Trickle<'a> {
        input: &'a [u8],
        chunk: usize,
    }

    impl AsyncRead for Trickle<'_> {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let taken = self.chunk.min(self.input.len()).min(buf.remaining());
            buf.put_slice(&self.input[..taken]);
            self.input = &self.input[taken..];
            Poll::Ready(Ok(()))
        }
    }

    /// Reads `reader` to its end, taking each note as it comes: the bytes, and the
    /// notes with how many bytes had been read when each came.
    async fn read_all(
        mut reader: LineLimit<impl AsyncRead + Unpin>,
        notes: &DroppedLines,
    ) -> (Vec<u8>, Vec<(usize, usize)>) {
        let (mut read, mut taken) = (Vec::new(), Vec::new());
        loop {
            let mut buf = [0; 16];
            match reader.read(&mut buf).await.unwrap() {
                0 => return (read, taken),
                n => read.extend_from_slice(&buf[..n]),
            }
            if let Some(length) = notes.take() {
                taken.push((read.len(), length));
            }
        }
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_noted_at_its_newline_and_nothing_past_it_is_read_before() {
        let input = b"short\n0123456789abcdef\nnext\n01234567\n";
        for chunk in [1, 3, 7, 64] {
            let (reader, notes) = LineLimit::new(Trickle { input, chunk }, 8);
            let (read, taken) = read_all(reader, &notes).await;
            assert_eq!(read, input, "chunk {chunk}");
            // Noted right after its newline, 16 bytes long; a line of 8 passes.
            assert_eq!(taken, [(23, 16)], "chunk {chunk}");
        }
    }

    #[test]
    fn the_error_is_an_invalid_request_without_id() {
        let error = serde_json::to_value(too_long(16, 8)).unwrap();
        assert_eq!(error["error"]["code"], -32600);
        assert_eq!(error["error"]["data"]["kind"], "message_too_long");
        assert_eq!(error["error"]["data"]["length"], 16);
        assert!(error.get("id").is_none(), "{error}");
    }
}
