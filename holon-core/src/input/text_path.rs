//! Where in JSON text a typed parse failed, as a field path (`todo_list[2].state`).
//!
//! serde_json gives the position of a failed parse (the bytes it had consumed); this
//! reads the text up to that position and names the value it was in. It replaces
//! `serde_path_to_error`, which wraps the deserializer and so compiles every argument
//! type's `Deserialize` once more, for errors only (the compile-cost benchmark,
//! `scripts/compile-cost-200-tools`, measured that copy). The differential tests of
//! `fuzz.rs` (its fuzz target and a generated set) hold it to `serde_path_to_error`'s
//! paths.

use crate::input::problems::join_path;

/// A problem of a typed parse, located: the path of the value it is about, and
/// serde's message.
pub(crate) struct Located {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// serde_json's bare message where a value it peeked cannot start an enum.
const EXPECTED_VALUE: &str = "expected value";

/// Locates the problem that stopped serde_json, as `error`, in `text` (the valid
/// JSON text it parsed). The path is empty for the top level, or when the error has
/// no position.
pub(crate) fn locate(text: &str, error: &serde_json::Error) -> Located {
    let message = message_of(error);
    let Some(offset) = offset_of(text, error.line(), error.column()) else {
        return Located {
            path: String::new(),
            message,
        };
    };
    let mut scan = scan(text, offset);
    let message = if message == EXPECTED_VALUE {
        enum_problem(text, offset, &mut scan)
    } else {
        // The key was an enum's variant, which is not part of the path until known.
        if matches!(scan.last, Last::Key) && message.starts_with("unknown variant") {
            scan.clear_key();
        }
        message
    };
    Located {
        path: scan.path(),
        message,
    }
}

/// serde_json says only "expected value" where an enum gets a value that cannot be
/// one: it stops past the first byte of that value, or, when the enum's map has a
/// second entry, before the comma after the first. This says it as serde words it for
/// a `Value` (``invalid type: integer `3`, expected string or map``) and points at the
/// value, not into it.
fn enum_problem(text: &str, offset: usize, scan: &mut Scan) -> String {
    use serde::de::{Error as _, Unexpected};
    let bytes = text.as_bytes();
    let before = |at: usize| bytes[..at].iter().rev().find(|b| !b.is_ascii_whitespace());
    if offset == 0 {
        return EXPECTED_VALUE.to_string();
    }
    let starts_value = matches!(
        bytes[offset - 1],
        b'{' | b'[' | b't' | b'f' | b'n' | b'-' | b'0'..=b'9'
    ) && matches!(before(offset - 1), Some(b':' | b',' | b'['));
    let single_key =
        || serde_json::Error::invalid_value(Unexpected::Map, &"map with a single key").to_string();
    if !starts_value {
        // Past the `}` of an empty map, the scan already stands at the map; before
        // the comma after a first entry, it stands at that entry.
        if !(bytes[offset - 1] == b'}' && before(offset - 1) == Some(&b'{')) {
            scan.clear_key();
        }
        return single_key();
    }
    if matches!(scan.last, Last::Opened) {
        scan.frames.pop();
    }
    let value = serde_json::Deserializer::from_str(&text[offset - 1..])
        .into_iter::<serde_json::Value>()
        .next()
        .and_then(Result::ok);
    let unexpected = match &value {
        Some(serde_json::Value::Object(_)) | None => return single_key(),
        Some(serde_json::Value::Null) => Unexpected::Unit,
        Some(serde_json::Value::Bool(b)) => Unexpected::Bool(*b),
        Some(serde_json::Value::Number(n)) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (_, Some(i), _) => Unexpected::Signed(i),
            (_, _, f) => Unexpected::Float(f.unwrap_or_default()),
        },
        Some(serde_json::Value::Array(_)) => Unexpected::Seq,
        Some(serde_json::Value::String(s)) => Unexpected::Str(s),
    };
    serde_json::Error::invalid_type(unexpected, &"string or map").to_string()
}

/// serde_json's message without the position it appends (` at line 1 column 9`).
pub(crate) fn message_of(error: &serde_json::Error) -> String {
    let message = error.to_string();
    if error.line() == 0 {
        return message;
    }
    let position = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&position) {
        Some(message) => message.to_string(),
        None => message,
    }
}

/// The byte offset of serde_json's (1-based line, bytes-consumed-on-that-line
/// column) position; `None` for line 0, an error without a position.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = match line {
        0 => return None,
        1 => 0,
        _ => {
            text.bytes()
                .enumerate()
                .filter(|(_, byte)| *byte == b'\n')
                .nth(line - 2)?
                .0
                + 1
        }
    };
    Some((start + column).min(text.len()))
}

/// Where a container of the text stands.
enum Frame {
    /// An object, and the key whose value is read or was read last.
    Object { key: Option<String> },
    /// An array, and the index of the element read or read last.
    Array { index: usize },
}

/// The last token read.
enum Last {
    /// `{` or `[`.
    Opened,
    /// An object's key.
    Key,
    /// Anything else.
    Other,
}

/// The containers open after the first `offset` bytes of valid JSON text, and the
/// last token read.
struct Scan {
    frames: Vec<Frame>,
    last: Last,
}

impl Scan {
    /// Points at the innermost object itself, not at its last key.
    fn clear_key(&mut self) {
        if let Some(Frame::Object { key }) = self.frames.last_mut() {
            *key = None;
        }
    }

    /// The path, as the errors write it: `todo_list[2].state`.
    fn path(&self) -> String {
        let mut path = String::new();
        for frame in &self.frames {
            match frame {
                Frame::Object { key: Some(key) } => path = join_path(&path, key),
                Frame::Array { index } => path.push_str(&format!("[{index}]")),
                Frame::Object { key: None } => {}
            }
        }
        path
    }
}

fn scan(text: &str, offset: usize) -> Scan {
    let bytes = text.as_bytes();
    let mut frames: Vec<Frame> = Vec::new();
    let mut last = Last::Other;
    let mut expecting_key = false;
    let mut at = 0;
    while at < offset.min(bytes.len()) {
        let byte = bytes[at];
        at += 1;
        match byte {
            b'{' => {
                frames.push(Frame::Object { key: None });
                expecting_key = true;
                last = Last::Opened;
            }
            b'[' => {
                frames.push(Frame::Array { index: 0 });
                last = Last::Opened;
            }
            b'}' | b']' => {
                frames.pop();
                expecting_key = false;
                last = Last::Other;
            }
            b',' => {
                match frames.last_mut() {
                    Some(Frame::Array { index }) => *index += 1,
                    Some(Frame::Object { .. }) => expecting_key = true,
                    None => {}
                }
                last = Last::Other;
            }
            b'"' => {
                let start = at - 1;
                at = string_end(bytes, start);
                last = Last::Other;
                if expecting_key && let Some(Frame::Object { key }) = frames.last_mut() {
                    // A key of valid JSON text always decodes.
                    *key = serde_json::from_str::<String>(&text[start..at]).ok();
                    expecting_key = false;
                    last = Last::Key;
                }
            }
            byte if byte.is_ascii_whitespace() => {}
            _ => last = Last::Other,
        }
    }
    Scan { frames, last }
}

/// The offset just past the string that opens at `start` (a `"`).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}
