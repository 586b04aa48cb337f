//! Writing to standard output without panicking when the reader goes away
//! (`holon-tools schema X | head`): a closed pipe just ends the output.

use std::io::Write;

/// Writes `text` to stdout; a closed pipe or other write error is not a crash.
pub(crate) fn emit(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// Writes `text` and a newline to stdout.
pub(crate) fn emit_line(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}").and_then(|()| stdout.flush());
}
