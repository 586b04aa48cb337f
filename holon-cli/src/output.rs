//! Writing to standard output without panicking when the reader goes away
//! (`holon-tools schema X | head`): a closed pipe just ends the output.

use std::io::Write;
use std::process::ExitCode;

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

/// Prints `value` as pretty JSON; a value that does not serialize is reported on stderr.
pub(crate) fn emit_json(value: Result<serde_json::Value, serde_json::Error>) -> ExitCode {
    match value.and_then(|value| serde_json::to_string_pretty(&value)) {
        Ok(text) => {
            emit_line(&text);
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("holon-tools: {error}");
            ExitCode::FAILURE
        }
    }
}
