//! The stdio transport's lines, bounded: a line longer than the limit is dropped
//! as it streams in (never buffered whole) and answered with a JSON-RPC error, where
//! rmcp alone drops it without a word.
//!
//! rmcp reads and writes one end of an in-memory pipe; a task copies stdin's lines
//! to it, and another copies its lines to stdout, putting the errors for dropped
//! lines between whole lines.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// The longest line [`serve_stdio`](crate::serve_stdio) reads: 8 MiB (rmcp drops
/// lines past 16 MiB silently, so ours must be shorter).
pub const DEFAULT_MAX_LINE_BYTES: usize = 8 << 20;

/// The end of the pipe rmcp serves on, with the copying tasks started.
pub(crate) fn bounded_stdio(max_line_bytes: usize) -> DuplexStream {
    let (server_end, our_end) = tokio::io::duplex(64 << 10);
    let (from_server, to_server) = tokio::io::split(our_end);
    let (errors, errors_out) = mpsc::unbounded_channel();
    tokio::spawn(copy_lines_in(
        tokio::io::stdin(),
        to_server,
        errors,
        max_line_bytes,
    ));
    tokio::spawn(copy_lines_out(from_server, tokio::io::stdout(), errors_out));
    server_end
}

/// Copies `input`'s lines to `output`, each at most `max` bytes (newline aside); a
/// longer one is dropped and its error sent to `errors`. Closes `output` at the end.
async fn copy_lines_in(
    input: impl AsyncRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
    errors: mpsc::UnboundedSender<String>,
    max: usize,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    // The length so far of a line being dropped.
    let mut dropping: Option<usize> = None;
    loop {
        let (used, ended) = match input.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(available) => {
                let newline = available.iter().position(|&byte| byte == b'\n');
                let part = &available[..newline.unwrap_or(available.len())];
                match &mut dropping {
                    Some(seen) => *seen = seen.saturating_add(part.len()),
                    None if line.len() + part.len() > max => {
                        dropping = Some(line.len() + part.len());
                        line = Vec::new();
                    }
                    None => line.extend_from_slice(part),
                }
                (
                    part.len() + usize::from(newline.is_some()),
                    newline.is_some(),
                )
            }
        };
        input.consume(used);
        if !ended {
            continue;
        }
        match dropping.take() {
            Some(length) => {
                let _ = errors.send(too_long(length, max));
            }
            None => {
                line.push(b'\n');
                if output.write_all(&line).await.is_err() {
                    break;
                }
                line.clear();
            }
        }
    }
    let _ = output.shutdown().await;
}

/// Copies `input`'s lines to `output`, and each line of `errors` between them.
async fn copy_lines_out(
    input: impl AsyncRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
    mut errors: mpsc::UnboundedReceiver<String>,
) {
    let mut input = BufReader::new(input);
    // Kept across the loop: a read cancelled by an error keeps its bytes here.
    let mut line = Vec::new();
    loop {
        let whole = tokio::select! {
            read = input.read_until(b'\n', &mut line) => match read {
                Ok(0) | Err(_) => break,
                Ok(_) => std::mem::take(&mut line),
            },
            Some(error) = errors.recv() => error.into_bytes(),
        };
        if output.write_all(&whole).await.is_err() || output.flush().await.is_err() {
            break;
        }
    }
}

/// The JSON-RPC error line for a dropped line of `length` bytes.
fn too_long(length: usize, max: usize) -> String {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32600,
            "message": format!(
                "the message is {length} bytes long, over this server's limit of {max} bytes; it was dropped: send a shorter one"
            ),
            "data": { "kind": "message_too_long", "length": length, "max_bytes": max },
        },
    });
    format!("{error}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_line_over_the_limit_is_dropped_and_reported_and_the_next_passes() {
        let input = b"short\n0123456789abcdef\nnext\n".as_slice();
        let mut output = Vec::new();
        let (errors, mut reported) = mpsc::unbounded_channel();
        copy_lines_in(input, &mut output, errors, 8).await;
        assert_eq!(output, b"short\nnext\n");
        let error: serde_json::Value =
            serde_json::from_str(&reported.recv().await.expect("an error")).unwrap();
        assert_eq!(error["error"]["code"], -32600);
        assert_eq!(error["error"]["data"]["length"], 16);
    }
}
