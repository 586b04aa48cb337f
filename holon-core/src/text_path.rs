//! Where in JSON text a typed parse failed, as a field path (`todo_list[2].state`).
//!
//! serde_json gives the position of a failed parse (the bytes it had consumed); this
//! reads the text up to that position and names the value it was in. It replaces
//! `serde_path_to_error`, which wraps the deserializer and so compiles every argument
//! type's `Deserialize` once more, for errors only (the compile-cost benchmark,
//! `scripts/compile-cost-200-tools`, measured that copy). The differential test below
//! holds it to `serde_path_to_error`'s paths.

use crate::problems::join_path;

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

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::{Value, json};

    use super::*;
    use crate::fuzz::{Mode, Top, check_located};

    /// A small deterministic generator (xorshift), so that a failure repeats by seed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len() as u64) as usize]
        }
    }

    /// A value of any JSON kind, some of them wrong for any field.
    fn any_value(rng: &mut Rng) -> Value {
        match rng.below(8) {
            0 => Value::Null,
            1 => json!(true),
            2 => json!(-7),
            3 => json!(3.5),
            4 => json!(300),
            5 => json!("text \"quoted\" \\ ,:{}[]"),
            6 => json!([1, "two"]),
            _ => json!({"odd key, with: \"marks\"": 1}),
        }
    }

    fn item(rng: &mut Rng, depth: u32) -> Value {
        let mut made = json!({ "name": "n" });
        if rng.below(2) == 0 {
            made["tags"] = json!(["a", "b", "c"]);
        }
        if depth < 3 && rng.below(3) == 0 {
            made["nested"] = item(rng, depth + 1);
        }
        if rng.below(3) == 0 {
            made["shape"] = match rng.below(2) {
                0 => json!({"circle": {"radius": 1.5}}),
                _ => json!({"square": 4}),
            };
        }
        made
    }

    /// A valid input of `Top`.
    fn valid(rng: &mut Rng) -> Value {
        let items: Vec<Value> = (0..rng.below(4)).map(|_| item(rng, 0)).collect();
        json!({
            "label": "l",
            "count": 3,
            "ratio": 0.5,
            "items": items,
            "mode": "lazy",
            "labels": {"x": 1, "y.z": 2},
            "pair": [1, "p"],
        })
    }

    /// Every place of a value, as a path of keys and indexes.
    fn places(value: &Value, at: &mut Vec<Value>, all: &mut Vec<Vec<Value>>) {
        all.push(at.clone());
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    at.push(json!(key));
                    places(child, at, all);
                    at.pop();
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    at.push(json!(index));
                    places(child, at, all);
                    at.pop();
                }
            }
            _ => {}
        }
    }

    fn at_mut<'v>(value: &'v mut Value, path: &[Value]) -> &'v mut Value {
        path.iter().fold(value, |value, step| match step {
            Value::String(key) => &mut value[key.as_str()],
            step => &mut value[step.as_u64().unwrap_or(0) as usize],
        })
    }

    /// One mutation at a random place: a wrong value, an unknown key, a removed key,
    /// a misspelled variant.
    fn mutate(rng: &mut Rng, value: &mut Value) {
        let mut all = Vec::new();
        places(value, &mut Vec::new(), &mut all);
        let place = all[rng.below(all.len() as u64) as usize].clone();
        let target = at_mut(value, &place);
        match rng.below(4) {
            0 => *target = any_value(rng),
            1 if target.is_object() => {
                let key = rng.pick(&["evil", "nam", "tags", "odd \"key\""]);
                target[key] = any_value(rng);
            }
            2 if target.is_object() => {
                let keys: Vec<String> = target
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.clone())
                    .collect();
                if let Some(key) = keys.get(rng.below(keys.len().max(1) as u64) as usize)
                    && let Some(map) = target.as_object_mut()
                {
                    map.remove(key);
                }
            }
            _ => *target = json!(rng.pick(&["eagr", "square", "circle", ""])),
        }
    }

    /// Compact and pretty text: the position arithmetic must hold on both.
    fn texts(value: &Value) -> [String; 2] {
        [
            value.to_string(),
            serde_json::to_string_pretty(value).unwrap_or_default(),
        ]
    }

    #[test]
    fn agrees_with_serde_path_to_error_on_generated_bad_inputs() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut compared, mut exact) = (0, 0);
        for _ in 0..4_000 {
            let mut value = valid(&mut rng);
            for _ in 0..=rng.below(2) {
                mutate(&mut rng, &mut value);
            }
            for text in texts(&value) {
                let Some(agreed) = check_located(&text) else {
                    break;
                };
                compared += 1;
                exact += usize::from(agreed);
            }
        }
        assert!(compared > 4_000, "only {compared} failing inputs");
        // Most problems are not about an enum's payload: those agree exactly.
        assert!(
            exact * 10 > compared * 9,
            "{exact} of {compared} agree exactly"
        );
    }

    #[test]
    fn a_wrong_value_for_an_enum_is_worded_as_for_a_value() {
        for (text, path, message) in [
            (
                r#"{"mode": 3}"#,
                "mode",
                "invalid type: integer `3`, expected string or map",
            ),
            (
                r#"{"mode": [1]}"#,
                "mode",
                "invalid type: sequence, expected string or map",
            ),
            (
                r#"{"mode": {}}"#,
                "mode",
                "invalid value: map, expected map with a single key",
            ),
            (
                r#"{"mode": "eagr"}"#,
                "mode",
                "unknown variant `eagr`, expected `eager` or `lazy`",
            ),
        ] {
            #[derive(Debug, Deserialize)]
            #[allow(dead_code)]
            struct Only {
                mode: Mode,
            }
            let error = serde_json::from_str::<Only>(text).expect_err("refused");
            let located = locate(text, &error);
            assert_eq!(
                (located.path.as_str(), located.message.as_str()),
                (path, message),
                "{text}"
            );
        }
    }

    #[test]
    fn a_position_past_a_closed_container_names_the_container() {
        let text = r#"{"items": [{"name": "a"}, {"tags": []}]}"#;
        let error = serde_json::from_str::<Top>(text).expect_err("missing name");
        assert_eq!(locate(text, &error).path, "items[1]");
    }
}
