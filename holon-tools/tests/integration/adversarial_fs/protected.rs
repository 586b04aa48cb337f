//! Patches aimed at `.git` and at the runtime's state directory: refused with a typed
//! error whatever the spelling, and nothing is written.

use holon_runtime::{Runtime, RuntimeConfig};
use serde_json::json;

use holon_tool_fixtures::workspace::{Fixture, call_with, init_repo};

fn add(path: &str) -> String {
    format!(
        "*** Begin Patch\n*** Add File: {path}\n+[core]\n+\tfsmonitor = touch pwned\n*** End Patch\n"
    )
}

fn update(path: &str, old: &str) -> String {
    format!("*** Begin Patch\n*** Update File: {path}\n-{old}\n+owned\n*** End Patch\n")
}

#[tokio::test]
async fn a_patch_cannot_write_into_any_git_directory() {
    let fx = Fixture::new();
    let home = fx.home();
    init_repo(&home);
    fx.mkdir("home/vendor/lib/.git");
    fx.write("home/vendor/lib/.git/HEAD", "ref: refs/heads/main\n");
    fx.write("home/.git/hooks/keep", "keep\n");
    let config_before = std::fs::read(home.join(".git/config")).unwrap();
    // Relative links: an absolute one is refused as leading out (the kernel resolves
    // beneath the root and cannot follow a link that starts at `/`).
    std::os::unix::fs::symlink(".git", home.join("g")).unwrap();
    std::os::unix::fs::symlink(".git/hooks", home.join("hooks")).unwrap();
    for patch in [
        add(".git/hooks/x"),
        add(".git/hooks/pre-commit"),
        add("./.git/info/attributes"),
        add("src/../.git/hooks/x"),
        add("vendor/lib/.git/config"),
        add("vendor/lib/.git"),
        add(".git"),
        update(".git/hooks/keep", "keep"),
        update(".git/config", "[core]"),
        "*** Begin Patch\n*** Update File: README.md\n*** Move to: .git/hooks/post-checkout\n@@\n-hello\n+owned\n*** End Patch\n".to_string(),
        "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1,2 @@\n [core]\n+\tfsmonitor = touch pwned\n".to_string(),
        "--- /dev/null\n+++ b/.git/hooks/x\n@@ -0,0 +1 @@\n+x\n".to_string(),
    ] {
        let error = fx.fails("ApplyPatch", json!({ "patch": patch }), "protected_path").await;
        assert!(
            error["recovery_hint"].as_str().is_some_and(|hint| !hint.is_empty()),
            "{patch}: {error}"
        );
    }
    // Through a symlink to `.git` or into it: refused as well (writes never follow
    // a symlink along the path, as `git apply` refuses a path beyond one).
    for patch in [
        add("g/hooks/x"),
        add("hooks/x"),
        update("g/config", "[core]"),
    ] {
        let envelope = fx.call("ApplyPatch", json!({ "patch": patch })).await;
        assert_eq!(
            envelope["error"]["kind"], "path_through_symlink",
            "{patch}: {envelope}"
        );
    }
    assert_eq!(
        std::fs::read(home.join(".git/config")).unwrap(),
        config_before
    );
    assert!(!home.join(".git/hooks/x").exists());
    assert!(!home.join(".git/hooks/pre-commit").exists());
    assert!(!home.join(".git/hooks/post-checkout").exists());
    assert!(!home.join(".git/info/attributes").exists());
    assert!(!home.join("vendor/lib/.git/config").exists());
    assert_eq!(
        std::fs::read_to_string(home.join(".git/hooks/keep")).unwrap(),
        "keep\n"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("README.md")).unwrap(),
        "# Project\n\nhello\n"
    );
    // Names that only look alike are ordinary files.
    fx.ok("ApplyPatch", json!({ "patch": add(".gitignore.d/x") }))
        .await;
    fx.ok("ApplyPatch", json!({ "patch": add("docs/.github/x") }))
        .await;
}

#[tokio::test]
async fn a_patch_cannot_write_into_the_state_directory() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let runtime = Runtime::open(RuntimeConfig {
        state_dir: Some(home.join("state")),
        ..RuntimeConfig::new(&home)
    })
    .unwrap();
    let home = home.canonicalize().unwrap();
    std::fs::write(home.join("state/model-catalog.json"), "{}").unwrap();
    std::os::unix::fs::symlink("state", home.join("alias")).unwrap();
    std::fs::create_dir(home.join("sub")).unwrap();
    for patch in [
        add("state/model-catalog2.json"),
        add("state/media/x.png"),
        add("sub/../state/x"),
        update("state/model-catalog.json", "{}"),
        "--- a/state/model-catalog.json\n+++ /dev/null\n@@ -1 +0,0 @@\n-{}\n\\ No newline at end of file\n".to_string(),
    ] {
        let envelope = call_with(
            &runtime,
            holon_core::FamilyPolicy::all(),
            "ApplyPatch",
            json!({ "patch": patch }),
        )
        .await;
        assert_eq!(envelope["error"]["kind"], "protected_path", "{patch}: {envelope}");
    }
    let envelope = call_with(
        &runtime,
        holon_core::FamilyPolicy::all(),
        "ApplyPatch",
        json!({ "patch": add("alias/x") }),
    )
    .await;
    assert_eq!(
        envelope["error"]["kind"], "path_through_symlink",
        "{envelope}"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("state/model-catalog.json")).unwrap(),
        "{}"
    );
    assert!(!home.join("state/model-catalog2.json").exists());
    assert!(!home.join("state/x").exists());
    assert!(!home.join("state/media/x.png").exists());
    // A directory of the same name elsewhere is ordinary.
    let envelope = call_with(
        &runtime,
        holon_core::FamilyPolicy::all(),
        "ApplyPatch",
        json!({ "patch": add("sub/state/x") }),
    )
    .await;
    assert_eq!(envelope["status"], "success", "{envelope}");
}
