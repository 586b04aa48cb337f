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

use crate::input::json_text;
use crate::input::problems::join_path;
use crate::input::text_path::{locate, message_of};

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
fn check_located(text: &str) -> Option<bool> {
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
struct Top {
    label: String,
    count: u8,
    #[serde(default)]
    ratio: Option<f64>,
    items: Vec<Item>,
    #[serde(default)]
    mode: Option<Mode>,
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
enum Mode {
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

    use serde::Deserialize;
    use serde_json::{Value, json};

    use super::*;

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
