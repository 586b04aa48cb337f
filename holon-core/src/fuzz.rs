//! The fuzz targets' harness for holon-core's two hand-written readers (`fuzz/`,
//! cargo-fuzz, feature `fuzz`), each held to the reference it stands beside; the
//! targets' corpora are replayed by the tests below on every `cargo test`. A finding is
//! a panic.
//!
//! - [`json_reader`]: the duplicate-key JSON reader (`json_text`) against serde_json's
//!   own `Value` parse.
//! - [`text_path`]: the error paths `text_path` finds in JSON text against
//!   `serde_path_to_error`'s, on one argument type with nested structs, sequences,
//!   maps, tuples and enums ([`Top`]).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::json_text;
use crate::problems::join_path;
use crate::text_path::{locate, message_of};

/// Bytes as JSON text, read by the duplicate-key reader and by serde_json: both accept
/// the same texts; without a repeated key both build the same value; the reader's own
/// writer gives text that reads back as that value.
pub fn json_reader(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match (json_text::parse(text), serde_json::from_str::<Value>(text)) {
        (Ok(ours), Ok(theirs)) => {
            if ours.duplicates.is_empty() {
                assert_eq!(ours.value, theirs, "the same text read differently");
            }
            let written = json_text::write(&ours.value);
            let reread: Value = serde_json::from_str(&written).expect("written text reads");
            assert_eq!(reread, ours.value, "written text reads back differently");
        }
        (Err(_), Err(_)) => {}
        (ours, theirs) => panic!(
            "the reader {} where serde_json {}",
            if ours.is_ok() { "accepted" } else { "refused" },
            if theirs.is_ok() {
                "accepted"
            } else {
                "refused"
            },
        ),
    }
}

/// Bytes as JSON text of a [`Top`]: where the typed parse fails, the path `locate`
/// finds is `serde_path_to_error`'s, or (about an enum) one of them contains the other.
/// Texts that are not JSON, or that repeat a key (a typed parse and a `Value` keep
/// different ones), are skipped.
pub fn text_path(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(parsed) = json_text::parse(text) else {
        return;
    };
    if !parsed.duplicates.is_empty() {
        return;
    }
    check_located(text);
}

/// Checks `locate` on `text` against the oracle; returns whether the two agreed
/// exactly (path and message), `None` when `text` is a valid [`Top`].
pub(crate) fn check_located(text: &str) -> Option<bool> {
    let (path, message) = oracle(text)?;
    let error = serde_json::from_str::<Top>(text).expect_err("the oracle failed on it");
    let ours = locate(text, &error);
    // serde_json says only "expected value" where an enum gets a value that cannot be
    // one; `locate` words it as serde words it for a `Value`, on purpose.
    let same_message = ours.message.starts_with(&message) || message == "expected value";
    if ours.path == path && same_message {
        return Some(true);
    }
    // About an enum, serde_json positions some errors at the enclosing container (a
    // unit variant named where a struct variant was expected) or one key deeper (an
    // enum's two-entry map whose first entry is a single digit, `{"square": 4, "x":
    // 1}`, reads as a digit given for the enum); and where a sequence has more items
    // than its type reads, `locate` names the first extra item, the oracle the
    // sequence. The two paths then lie on one line.
    let on_one_line = path.starts_with(&ours.path) || ours.path.starts_with(&path);
    assert!(
        (about_an_enum(&message) || message == "trailing characters") && on_one_line,
        "input: {text}\nours: {} ({})\noracle: {path} ({message})",
        ours.path,
        ours.message
    );
    Some(false)
}

/// The path `serde_path_to_error` gives for the same text, rendered as the errors
/// write paths, and its message; `None` when `text` is a valid [`Top`].
fn oracle(text: &str) -> Option<(String, String)> {
    use serde_path_to_error::Segment;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let error = serde_path_to_error::deserialize::<_, Top>(&mut deserializer).err()?;
    let mut rendered = String::new();
    for segment in error.path().iter() {
        match segment {
            Segment::Seq { index } => rendered.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                rendered = join_path(&rendered, key);
            }
            Segment::Unknown => {}
        }
    }
    Some((rendered, message_of(error.inner())))
}

/// Whether serde's message is about an enum (its bare "expected value" is said only of
/// a value an enum cannot start with).
fn about_an_enum(message: &str) -> bool {
    message.contains("variant")
        || message.contains("map with a single key")
        || message == "expected value"
}

/// An argument type with every shape the paths go through.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct Top {
    label: String,
    count: u8,
    #[serde(default)]
    ratio: Option<f64>,
    items: Vec<Item>,
    #[serde(default)]
    pub(crate) mode: Option<Mode>,
    #[serde(default)]
    labels: BTreeMap<String, u32>,
    #[serde(default)]
    pair: Option<(u32, String)>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Item {
    name: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    nested: Option<Box<Item>>,
    #[serde(default)]
    shape: Option<Shape>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Mode {
    Eager,
    Lazy,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
#[allow(dead_code)]
enum Shape {
    Circle { radius: f64 },
    Square(u32),
}

#[cfg(test)]
mod tests {
    // The corpora are read with std::fs.
    #![cfg_attr(test, allow(clippy::disallowed_methods))]

    use std::path::Path;

    fn replay(target: &str, run: fn(&[u8])) {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/corpus")
            .join(target);
        let mut inputs: Vec<_> = std::fs::read_dir(&corpus)
            .unwrap_or_else(|error| panic!("{}: {error}", corpus.display()))
            .map(|entry| entry.expect("a corpus entry").path())
            .collect();
        inputs.sort();
        assert!(inputs.len() >= 10, "the {target} corpus is missing");
        for path in &inputs {
            run(&std::fs::read(path).expect("a corpus file"));
        }
    }

    #[test]
    fn the_json_reader_corpus_replays() {
        replay("json_reader", super::json_reader);
    }

    #[test]
    fn the_text_path_corpus_replays() {
        replay("text_path", super::text_path);
    }
}
