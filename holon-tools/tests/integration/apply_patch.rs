//! ApplyPatch through `registry.dispatch`, on real files in a temporary workspace.

use std::path::Path;
use std::sync::Arc;

use holon_core::{FamilyPolicy, ToolCall};
use holon_runtime::{Runtime, RuntimeConfig};
use serde_json::{Value, json};

fn workspace() -> (tempfile::TempDir, Arc<Runtime>) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = Runtime::open(RuntimeConfig::in_memory(dir.path())).unwrap();
    (dir, runtime)
}

async fn freeform(runtime: &Arc<Runtime>, patch: &str) -> Value {
    let result = runtime
        .dispatch(FamilyPolicy::all(), ToolCall::freeform("ApplyPatch", patch))
        .await;
    serde_json::to_value(&result).unwrap()
}

/// ApplyPatch through dispatch with `{"patch": ...}`, as a JSON envelope.
pub(crate) async fn json_patch(runtime: &Arc<Runtime>, patch: &str) -> Value {
    let result = runtime
        .dispatch(
            FamilyPolicy::all(),
            ToolCall::new("ApplyPatch", json!({ "patch": patch })),
        )
        .await;
    serde_json::to_value(&result).unwrap()
}

fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap()
}

#[tokio::test]
async fn the_parser_accepts_exactly_the_corpus_the_grammar_accepts() {
    // The same corpus is fed to the Lark grammar by `check_grammar.py` in CI.
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/apply_patch_corpus");
    let (_dir, runtime) = workspace();
    let mut checked = 0;
    for (folder, valid) in [("valid", true), ("invalid", false)] {
        for entry in std::fs::read_dir(corpus.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let envelope = freeform(&runtime, &text).await;
            let rejected_as_syntax = envelope["error"]["kind"] == "invalid_patch";
            assert_eq!(rejected_as_syntax, !valid, "{}: {envelope}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 30);
}

#[tokio::test]
async fn adds_updates_moves_and_deletes_files() {
    let (dir, runtime) = workspace();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(dir.path().join("gone.txt"), "bye\n").unwrap();
    let patch = "*** Begin Patch\n\
*** Add File: docs/new.md\n+# New\n+body\n\
*** Update File: a.txt\n*** Move to: moved/a.txt\n@@ one\n-two\n+2\n three\n\
*** Delete File: gone.txt\n\
*** End Patch\n";
    let envelope = freeform(&runtime, patch).await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    assert_eq!(read(dir.path(), "docs/new.md"), "# New\nbody\n");
    assert_eq!(read(dir.path(), "moved/a.txt"), "one\n2\nthree\n");
    assert!(!dir.path().join("a.txt").exists());
    assert!(!dir.path().join("gone.txt").exists());

    let files = envelope["structured"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["action"], "add");
    assert_eq!(files[0]["lines_added"], 2);
    assert_eq!(files[1]["action"], "move");
    assert_eq!(files[1]["moved_to"], "moved/a.txt");
    assert_eq!(files[1]["lines_removed"], 1);
    assert_eq!(files[2]["action"], "delete");
    let preview = envelope["structured"]["diff_preview"].as_str().unwrap();
    assert!(
        preview.contains("-two") && preview.contains("+2"),
        "{preview}"
    );
    assert!(
        envelope["receipt"]
            .as_str()
            .unwrap()
            .contains("move a.txt -> moved/a.txt")
    );
}

#[tokio::test]
async fn applies_unified_diffs_from_the_json_surface() {
    let (dir, runtime) = workspace();
    std::fs::write(dir.path().join("lib.rs"), "fn main() {\n    old();\n}\n").unwrap();
    let diff = "--- a/lib.rs\n+++ b/lib.rs\n@@ -1,3 +1,4 @@\n fn main() {\n-    old();\n+    new();\n+    more();\n }\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+note\n";
    let envelope = json_patch(&runtime, diff).await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    assert_eq!(
        read(dir.path(), "lib.rs"),
        "fn main() {\n    new();\n    more();\n}\n"
    );
    assert_eq!(read(dir.path(), "notes.txt"), "note\n");
}

#[tokio::test]
async fn a_hunk_that_does_not_match_changes_nothing() {
    let (dir, runtime) = workspace();
    std::fs::write(dir.path().join("first.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(
        dir.path().join("second.rs"),
        "fn a() {\n    one();\n}\nfn b() {\n    two();\n}\n",
    )
    .unwrap();
    let patch = "*** Begin Patch\n\
*** Update File: first.txt\n-alpha\n+ALPHA\n\
*** Update File: second.rs\n fn b() {\n-    three();\n+    four();\n }\n\
*** End Patch\n";
    let envelope = freeform(&runtime, patch).await;
    assert_eq!(envelope["error"]["kind"], "hunk_mismatch", "{envelope}");
    let message = envelope["error"]["message"].as_str().unwrap();
    assert!(message.contains("hunk 1 of second.rs"), "{message}");
    assert!(
        message.contains("nearest match starts at line 4"),
        "{message}"
    );
    assert_eq!(
        read(dir.path(), "first.txt"),
        "alpha\nbeta\n",
        "nothing may be written"
    );
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused_and_untouched() {
    let (dir, runtime) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "keep\n").unwrap();
    std::fs::write(dir.path().join("inside.txt"), "in\n").unwrap();

    let relative_escape = format!(
        "*** Begin Patch\n*** Update File: inside.txt\n-in\n+changed\n*** Delete File: ../{}/victim.txt\n*** End Patch\n",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    let absolute = format!(
        "*** Begin Patch\n*** Update File: {}\n-keep\n+owned\n*** End Patch\n",
        victim.display()
    );
    let mut patches = vec![relative_escape, absolute];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        patches.push(
            "*** Begin Patch\n*** Update File: link/victim.txt\n-keep\n+owned\n*** End Patch\n"
                .into(),
        );
        patches.push("*** Begin Patch\n*** Add File: link/new.txt\n+x\n*** End Patch\n".into());
    }
    for patch in patches {
        let envelope = freeform(&runtime, &patch).await;
        assert_eq!(
            envelope["error"]["kind"], "path_outside_workspace",
            "{patch}: {envelope}"
        );
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
    assert!(!outside.path().join("new.txt").exists());
    assert_eq!(read(dir.path(), "inside.txt"), "in\n");
}

#[tokio::test]
async fn bad_targets_are_typed_errors() {
    let (dir, runtime) = workspace();
    std::fs::write(dir.path().join("exists.txt"), "x\n").unwrap();
    std::fs::write(dir.path().join("binary.bin"), [0xff, 0xfe, 0x00, 0x01]).unwrap();
    let cases = [
        (
            "*** Begin Patch\n*** Update File: missing.txt\n-x\n+y\n*** End Patch\n",
            "file_not_found",
        ),
        (
            "*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch\n",
            "file_not_found",
        ),
        (
            "*** Begin Patch\n*** Add File: exists.txt\n+y\n*** End Patch\n",
            "file_exists",
        ),
        (
            "*** Begin Patch\n*** Update File: binary.bin\n-x\n+y\n*** End Patch\n",
            "not_a_text_file",
        ),
        ("not a patch at all", "invalid_patch"),
    ];
    for (patch, kind) in cases {
        let envelope = freeform(&runtime, patch).await;
        assert_eq!(envelope["error"]["kind"], kind, "{patch}: {envelope}");
        assert!(envelope["error"]["recovery_hint"].is_string());
    }
    let envelope = json_patch(&runtime, "").await;
    assert_eq!(envelope["error"]["kind"], "invalid_tool_input");
    let envelope = json_patch(&runtime, "garbage").await;
    assert_eq!(envelope["error"]["kind"], "invalid_patch");
}

#[tokio::test]
async fn loose_matching_keeps_line_endings() {
    let (dir, runtime) = workspace();
    std::fs::write(dir.path().join("win.txt"), "a\r\nb  \r\nc\r\n").unwrap();
    let envelope = freeform(
        &runtime,
        "*** Begin Patch\n*** Update File: win.txt\n a\n-b\n+B\n*** End Patch\n",
    )
    .await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    assert_eq!(read(dir.path(), "win.txt"), "a\r\nB\r\nc\r\n");
    // `b  ` matched `b` only ignoring white space: the result says so.
    let file = &envelope["structured"]["files"][0];
    assert_eq!(
        file["whitespace_tolerant_hunks"],
        serde_json::json!([1]),
        "{file}"
    );
    let summary = envelope["summary"].as_str().unwrap();
    assert!(summary.contains("ignoring white space"), "{summary}");
}

#[tokio::test]
async fn rewriting_every_line_of_a_big_file_counts_every_line() {
    // Big enough that the bounded diff behind the counts gives up on the smallest edit
    // (it would take time quadratic in the size); the counts stay exact.
    const LINES: usize = 5_000;
    let (dir, runtime) = workspace();
    let before: String = (0..LINES).map(|i| format!("old {i}\n")).collect();
    std::fs::write(dir.path().join("big.txt"), &before).unwrap();
    let removed: String = (0..LINES).map(|i| format!("-old {i}\n")).collect();
    let added: String = (0..LINES).map(|i| format!("+new {i}\n")).collect();
    let patch =
        format!("*** Begin Patch\n*** Update File: big.txt\n@@\n{removed}{added}*** End Patch\n");
    let envelope = freeform(&runtime, &patch).await;
    let file = &envelope["structured"]["files"][0];
    assert_eq!(file["lines_added"], LINES, "{file}");
    assert_eq!(file["lines_removed"], LINES, "{file}");
    let after: String = (0..LINES).map(|i| format!("new {i}\n")).collect();
    assert_eq!(read(dir.path(), "big.txt"), after);
    let preview = envelope["structured"]["diff_preview"].as_str().unwrap();
    assert!(preview.contains("-old 0") && preview.contains("more diff line(s) not shown"));
}
