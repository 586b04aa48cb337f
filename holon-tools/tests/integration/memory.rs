//! MemorySearch and MemoryGet through `registry.dispatch`: notes and workspace
//! Markdown indexed with FTS5, incremental re-indexing, and refs confined to the
//! indexed sources.

use holon_tool_fixtures::workspace::Fixture;
use serde_json::{Value, json};

fn fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write(
        "home/README.md",
        "# Project\n\nGeneral words about the project.\n\n## Deployment\n\nDeploy to staging with the release script.\nThen check the dashboards.\n",
    );
    fx.write(
        "home/docs/guide.md",
        "# Guide\n\nOnboarding steps; staging is mentioned once.\n",
    );
    fx.write(
        "home/notes.txt",
        "deployment staging text file, not indexed\n",
    );
    fx.write(
        "home/target/build.md",
        "deployment staging in a build directory\n",
    );
    fx.write(
        "home/node_modules/pkg/README.md",
        "deployment staging in a dependency\n",
    );
    fx
}

fn refs(result: &Value) -> Vec<String> {
    result["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["source_ref"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn search_ranks_sections_and_get_reads_them_back() {
    let fx = fixture();
    fx.runtime
        .put_memory_note(
            "release-notes",
            "# Releases\n\nThe staging deployment needs a VPN.\n",
        )
        .unwrap();
    let found = fx
        .ok("MemorySearch", json!({"query": "deployment staging"}))
        .await;
    let refs = refs(&found);
    assert_eq!(found["searched_root_ids"], json!(["home"]));
    assert_eq!(found["indexed_files"], 2, "{found}");
    assert_eq!(refs.len(), 3, "{found}");
    // The section with "Deployment" in its heading and both words ranks first; the
    // guide mentions one of the words once and ranks last.
    assert_eq!(refs[0], "workspace:home:README.md#L5-L8");
    assert_eq!(refs[2], "workspace:home:docs/guide.md#L1-L3");
    assert!(refs.contains(&"note:release-notes#L1-L3".to_string()));
    let top = &found["hits"][0];
    assert_eq!(top["heading"], "Deployment");
    assert_eq!(top["source_kind"], "workspace");
    assert_eq!(top["root_id"], "home");
    assert_eq!(top["location"], "README.md");
    assert!(
        top["snippet"].as_str().unwrap().contains("«staging»"),
        "{top}"
    );
    let scores: Vec<f64> = found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");

    let section = fx.ok("MemoryGet", json!({"source_ref": refs[0]})).await;
    assert_eq!(
        section["text"],
        "## Deployment\n\nDeploy to staging with the release script.\nThen check the dashboards."
    );
    assert_eq!(section["start_line"], 5);
    assert_eq!(section["end_line"], 8);
    assert_eq!(section["total_lines"], 8);
    assert_eq!(section["truncated"], false);
    let note = fx
        .ok("MemoryGet", json!({"source_ref": "note:release-notes"}))
        .await;
    assert_eq!(note["source_kind"], "note");
    assert!(note["text"].as_str().unwrap().contains("VPN"));
    let whole = fx
        .ok(
            "MemoryGet",
            json!({"source_ref": "workspace:home:docs/guide.md"}),
        )
        .await;
    assert_eq!(whole["end_line"], 3);

    let limited = fx
        .ok(
            "MemorySearch",
            json!({"query": "deployment staging", "limit": 1}),
        )
        .await;
    assert_eq!(limited["hits"].as_array().unwrap().len(), 1);
    let stemmed = fx.ok("MemorySearch", json!({"query": "deploying"})).await;
    assert!(!stemmed["hits"].as_array().unwrap().is_empty(), "{stemmed}");
}

#[tokio::test]
async fn the_index_follows_apply_patch_edits_incrementally() {
    let fx = fixture();
    let first = fx.ok("MemorySearch", json!({"query": "zebra"})).await;
    assert_eq!(first["hits"], json!([]));
    assert_eq!(first["reindexed_files"], 2);
    let unchanged = fx.ok("MemorySearch", json!({"query": "zebra"})).await;
    assert_eq!(
        unchanged["reindexed_files"], 0,
        "nothing changed, nothing is read"
    );

    let patch = "*** Begin Patch\n*** Update File: docs/guide.md\n@@\n # Guide\n \n-Onboarding steps; staging is mentioned once.\n+Onboarding steps; feed the zebra first.\n*** Add File: docs/zoo.md\n+# Zoo\n+A zebra and a giraffe.\n*** End Patch\n";
    fx.ok("ApplyPatch", json!({"patch": patch})).await;
    let after = fx.ok("MemorySearch", json!({"query": "zebra"})).await;
    assert_eq!(after["reindexed_files"], 2, "{after}");
    let mut found = refs(&after);
    found.sort();
    assert_eq!(
        found,
        [
            "workspace:home:docs/guide.md#L1-L3",
            "workspace:home:docs/zoo.md#L1-L2"
        ]
    );
    let staging = fx
        .ok("MemorySearch", json!({"query": "onboarding staging"}))
        .await;
    assert!(
        !staging["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["snippet"].as_str().unwrap().contains("mentioned once")),
        "the old text is gone from the index: {staging}"
    );

    let delete = "*** Begin Patch\n*** Delete File: docs/zoo.md\n*** End Patch\n";
    fx.ok("ApplyPatch", json!({"patch": delete})).await;
    let gone = fx.ok("MemorySearch", json!({"query": "giraffe"})).await;
    assert_eq!(gone["removed_files"], 1);
    assert_eq!(gone["hits"], json!([]));
    fx.fails(
        "MemoryGet",
        json!({"source_ref": "workspace:home:docs/zoo.md"}),
        "source_not_found",
    )
    .await;
}

#[tokio::test]
async fn a_same_size_rewrite_right_after_indexing_is_seen() {
    let fx = fixture();
    fx.write("home/a.md", "alpha\n");
    fx.ok("MemorySearch", json!({"query": "alpha"})).await;
    // Same size, likely the same timestamp tick: the hash catches it.
    fx.write("home/a.md", "omega\n");
    let found = fx.ok("MemorySearch", json!({"query": "omega"})).await;
    assert_eq!(refs(&found), ["workspace:home:a.md#L1-L1"]);
}

#[tokio::test]
async fn other_workspaces_are_searched_only_when_asked() {
    let fx = fixture();
    let other = fx.mkdir("other");
    fx.write("other/plan.md", "# Plan\n\nThe quokka migration.\n");
    fx.ok("AttachWorkspace", json!({"path": other.to_str().unwrap()}))
        .await;
    let active_only = fx.ok("MemorySearch", json!({"query": "quokka"})).await;
    assert_eq!(active_only["hits"], json!([]));
    let all = fx
        .ok(
            "MemorySearch",
            json!({"query": "quokka", "include_all_workspaces": true}),
        )
        .await;
    assert_eq!(all["searched_root_ids"], json!(["home", "ws-other"]));
    assert_eq!(refs(&all), ["workspace:ws-other:plan.md#L1-L3"]);
    let text = fx
        .ok("MemoryGet", json!({"source_ref": refs(&all)[0]}))
        .await;
    assert!(text["text"].as_str().unwrap().contains("quokka"));

    // After a switch the other workspace is the one searched by default.
    fx.ok("SwitchWorkspace", json!({"workspace_id": "ws-other"}))
        .await;
    let switched = fx.ok("MemorySearch", json!({"query": "quokka"})).await;
    assert_eq!(switched["searched_root_ids"], json!(["ws-other"]));
    assert_eq!(switched["hits"].as_array().unwrap().len(), 1);

    // A detached workspace's refs no longer resolve.
    fx.ok("SwitchWorkspace", json!({"workspace_id": "home"}))
        .await;
    fx.ok("DetachWorkspace", json!({"workspace_id": "ws-other"}))
        .await;
    fx.fails(
        "MemoryGet",
        json!({"source_ref": refs(&all)[0]}),
        "unknown_source_root",
    )
    .await;
    // And its files leave the index.
    let after = fx
        .ok(
            "MemorySearch",
            json!({"query": "quokka", "include_all_workspaces": true}),
        )
        .await;
    assert_eq!(after["removed_files"], 1, "{after}");
    assert_eq!(after["hits"], json!([]));
}

#[tokio::test]
async fn memory_get_refuses_refs_outside_the_indexed_sources() {
    let fx = fixture();
    fx.write("outside.md", "# Secret\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(fx.path("outside.md"), fx.path("home/link.md")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(fx.path(""), fx.path("home/up")).unwrap();
    let cases = [
        ("workspace:home:../outside.md", "source_outside_index"),
        (
            "workspace:home:docs/../../outside.md",
            "source_outside_index",
        ),
        ("workspace:home:/etc/passwd", "source_outside_index"),
        ("workspace:hom:README.md", "unknown_source_root"),
        ("workspace:home:notes.txt", "source_not_indexed"),
        ("workspace:home:target/build.md", "source_not_indexed"),
        (
            "workspace:home:node_modules/pkg/README.md",
            "source_not_indexed",
        ),
        ("workspace:home:link.md", "source_not_indexed"),
        ("workspace:home:up/outside.md", "source_not_indexed"),
        ("workspace:home:missing.md", "source_not_found"),
        ("note:nope", "source_not_found"),
        ("note:../../x", "source_not_found"),
        ("file:///etc/passwd", "invalid_source_ref"),
        ("workspace:home:README.md#L0-L2", "invalid_source_ref"),
        (
            "workspace:home:README.md#L9-L20",
            "line_range_out_of_bounds",
        ),
    ];
    for (source_ref, kind) in cases {
        let error = fx
            .fails("MemoryGet", json!({"source_ref": source_ref}), kind)
            .await;
        assert_eq!(error["field"], "source_ref", "{source_ref}: {error}");
        assert!(error["recovery_hint"].is_string(), "{source_ref}: {error}");
    }
    let hint = fx
        .fails(
            "MemoryGet",
            json!({"source_ref": "workspace:hom:README.md"}),
            "unknown_source_root",
        )
        .await;
    assert!(hint["recovery_hint"].as_str().unwrap().contains("`home`"));
}

#[tokio::test]
async fn max_chars_is_bounded_by_the_schema_and_cuts_at_lines() {
    let fx = fixture();
    for max_chars in [json!(0), json!(50_001), json!(-1), json!("10")] {
        fx.fails(
            "MemoryGet",
            json!({"source_ref": "workspace:home:README.md", "max_chars": max_chars}),
            "invalid_tool_input",
        )
        .await;
    }
    let cut = fx
        .ok(
            "MemoryGet",
            json!({"source_ref": "workspace:home:README.md", "max_chars": 20}),
        )
        .await;
    assert_eq!(cut["text"], "# Project\n");
    assert_eq!(cut["end_line"], 2);
    assert_eq!(cut["truncated"], true);
    assert_eq!(cut["next_ref"], "workspace:home:README.md#L3-L8");
    let rest = fx
        .ok(
            "MemoryGet",
            json!({"source_ref": cut["next_ref"].clone(), "max_chars": 50_000}),
        )
        .await;
    assert_eq!(rest["start_line"], 3);
    assert_eq!(rest["truncated"], false);
    assert_eq!(rest["next_ref"], Value::Null);
    let tiny = fx
        .ok(
            "MemoryGet",
            json!({"source_ref": "workspace:home:README.md#L7", "max_chars": 6}),
        )
        .await;
    assert_eq!(tiny["text"], "Deploy");
    assert_eq!(tiny["truncated"], true);
    assert_eq!(tiny["next_ref"], Value::Null);
}

#[tokio::test]
async fn search_inputs_are_checked() {
    let fx = fixture();
    fx.fails("MemorySearch", json!({"query": "?! **"}), "invalid_query")
        .await;
    for input in [
        json!({"query": ""}),
        json!({"query": "x", "limit": 0}),
        json!({"query": "x", "limit": 51}),
        json!({}),
    ] {
        fx.fails("MemorySearch", input, "invalid_tool_input").await;
    }
    fx.fails(
        "MemorySearch",
        json!({"query": "x", "source_ref": "note:a"}),
        "unknown_field",
    )
    .await;
    // FTS5 syntax in a query is just words.
    fx.ok(
        "MemorySearch",
        json!({"query": "NEAR(\"a\" b) OR -c* :col"}),
    )
    .await;
    let note = fx.runtime.put_memory_note("bad id", "x").unwrap_err();
    assert!(note.to_string().contains("not a valid note id"));
    fx.runtime.put_memory_note("n1", "the okapi").unwrap();
    assert!(fx.runtime.delete_memory_note("n1").unwrap());
    let gone = fx.ok("MemorySearch", json!({"query": "okapi"})).await;
    assert_eq!(gone["hits"], json!([]));
}
