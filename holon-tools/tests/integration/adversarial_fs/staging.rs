//! Symlinks planted where ApplyPatch stages its writes: the staged content must never
//! go through them.

use serde_json::json;

use super::tree;
use holon_tool_fixtures::workspace::Fixture;

/// Symlinks at the names a patch by this process would stage at
/// (`.holon-patch-<pid>-<n>` and `.<name>.holon-patch-<pid>-<n>`), pointing outside.
fn plant(fx: &Fixture, dir: &str) {
    let pid = std::process::id();
    for n in 0..4 {
        for name in [
            format!(".holon-patch-{pid}-{n}"),
            format!(".a.txt.holon-patch-{pid}-{n}"),
        ] {
            let target = fx.path(&format!("outside/{name}"));
            std::os::unix::fs::symlink(target, fx.path(&format!("{dir}/{name}"))).unwrap();
        }
    }
}

#[tokio::test]
async fn a_patch_never_writes_through_a_symlink_planted_at_a_staging_name() {
    let fx = Fixture::new();
    fx.mkdir("outside");
    fx.write("home/b.txt", "one\n");
    plant(&fx, "home");
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+new\n*** Update File: b.txt\n-one\n+two\n*** End Patch\n";
    let envelope = fx.call("ApplyPatch", json!({ "patch": patch })).await;
    let outside = tree(&fx.path("outside"));
    assert!(
        outside.is_empty(),
        "files created through planted symlinks: {outside:?}"
    );
    assert_eq!(envelope["status"], "success", "{envelope}");
    assert_eq!(
        std::fs::read_to_string(fx.path("home/a.txt")).unwrap(),
        "new\n"
    );
    assert_eq!(
        std::fs::read_to_string(fx.path("home/b.txt")).unwrap(),
        "two\n"
    );
    // The planted links are left alone, and no staging file stays behind.
    let left: Vec<_> = tree(&fx.home())
        .into_iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|name| name.contains("holon-patch"))
        .collect();
    assert_eq!(left.len(), 8, "{left:?}");
}

#[tokio::test]
async fn a_patch_never_writes_through_a_symlinked_file_or_directory() {
    let fx = Fixture::new();
    fx.mkdir("outside");
    fx.write("outside/victim.txt", "outside\n");
    std::os::unix::fs::symlink(fx.path("outside/victim.txt"), fx.path("home/link.txt")).unwrap();
    std::os::unix::fs::symlink(fx.path("outside"), fx.path("home/out")).unwrap();
    for patch in [
        "*** Begin Patch\n*** Update File: link.txt\n-outside\n+changed\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: out/new.txt\n+x\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: out/victim.txt\n*** End Patch\n",
    ] {
        let envelope = fx.call("ApplyPatch", json!({ "patch": patch })).await;
        assert_eq!(envelope["status"], "error", "{patch}: {envelope}");
    }
    assert_eq!(
        std::fs::read_to_string(fx.path("outside/victim.txt")).unwrap(),
        "outside\n"
    );
    assert_eq!(tree(&fx.path("outside")).len(), 1);
}
