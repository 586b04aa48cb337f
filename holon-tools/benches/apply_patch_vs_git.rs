//! ApplyPatch against `git apply` on the same machine, on the same patches: a
//! 10,000-line rewrite, 200 edited files, and a 50,000-line file with 5,000 hunks.
//! Each side runs 5 times on a fresh copy of the tree; the medians and their ratio
//! are printed. ApplyPatch runs through the registry's dispatch (parse, plan, write);
//! `git apply` is the `git` process. Run: `cargo bench -p holon-tools --bench
//! apply_patch_vs_git`; `cargo test -p holon-tools --bench apply_patch_vs_git` (or
//! `cargo bench ... -- --test`) checks each workload once, without timing it.

// A benchmark harness: it sets up files, servers and processes of its own.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use holon_core::{FamilyPolicy, ToolCall};
use holon_runtime::{Runtime, RuntimeConfig};

use holon_test_support::bench::test_mode;
use holon_tool_fixtures::require_tool;
// The bench dispatches the built-in tools by name: rustc links holon-tools only when
// the code names it, and without it the registry would hold no tools at all.
use holon_tools as _;

/// Runs of each side a measurement takes the median of.
const RUNS: usize = 5;

struct Workload {
    name: &'static str,
    old: Vec<(String, String)>,
    new: Vec<(String, String)>,
}

fn write(root: &Path, files: &[(String, String)]) {
    for (path, content) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
}

fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let output = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(args)
        .output()
        .expect("git must be installed");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// The patch `git diff` makes from the old tree to the new one.
fn patch(work: &Path, workload: &Workload) -> String {
    let repo = work.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    write(&repo, &workload.old);
    git(&repo, &["add", "-A"]);
    git(
        &repo,
        &[
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "commit",
            "-qm",
            "old",
        ],
    );
    write(&repo, &workload.new);
    String::from_utf8(git(&repo, &["diff"])).unwrap()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn workloads() -> Vec<Workload> {
    let rewrite_old = (0..10_000).map(|i| format!("old line {i}\n")).collect();
    let rewrite_new = (0..10_000).map(|i| format!("new line {i}\n")).collect();
    let files = |tag: &str| -> Vec<(String, String)> {
        (0..200)
            .map(|f| {
                let body: String = (0..40)
                    .map(|i| {
                        if i == 20 {
                            format!("{tag} {f}\n")
                        } else {
                            format!("file {f} line {i}\n")
                        }
                    })
                    .collect();
                (format!("src/m{}/f{f}.rs", f % 10), body)
            })
            .collect()
    };
    let hunks_old = (0..50_000).map(|i| format!("line {i}\n")).collect();
    let hunks_new = (0..50_000)
        .map(|i| {
            if i % 10 == 5 {
                format!("changed {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    vec![
        Workload {
            name: "10,000-line rewrite",
            old: vec![("big.txt".into(), rewrite_old)],
            new: vec![("big.txt".into(), rewrite_new)],
        },
        Workload {
            name: "200 files",
            old: files("old"),
            new: files("new"),
        },
        Workload {
            name: "5,000 hunks in 50,000 lines",
            old: vec![("many.txt".into(), hunks_old)],
            new: vec![("many.txt".into(), hunks_new)],
        },
    ]
}

fn main() {
    require_tool("ApplyPatch");
    let runs = if test_mode() { 1 } else { RUNS };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for workload in workloads() {
        let work = tempfile::tempdir().unwrap();
        let text = patch(work.path(), &workload);
        let patch_file = work.path().join("change.patch");
        std::fs::write(&patch_file, &text).unwrap();
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for run in 0..runs {
            let git_dir = work.path().join(format!("git{run}"));
            write(&git_dir, &workload.old);
            let started = Instant::now();
            git(&git_dir, &["apply", patch_file.to_str().unwrap()]);
            theirs.push(started.elapsed());

            let our_dir = work.path().join(format!("ours{run}"));
            write(&our_dir, &workload.old);
            let runtime = Runtime::open(RuntimeConfig::in_memory(&our_dir)).unwrap();
            let call = ToolCall::new("ApplyPatch", serde_json::json!({ "patch": text }));
            let started = Instant::now();
            let result = rt.block_on(runtime.dispatch(FamilyPolicy::all(), call));
            ours.push(started.elapsed());
            let result = serde_json::to_value(&result).unwrap();
            assert_eq!(result["status"], "success", "{result}");
            for (path, content) in &workload.new {
                assert_eq!(
                    &std::fs::read_to_string(our_dir.join(path)).unwrap(),
                    content
                );
            }
        }
        let (ours, theirs) = (median(ours), median(theirs));
        println!(
            "{:<28} patch {:>7} lines  ApplyPatch {:>8.1} ms  git apply {:>8.1} ms  ratio {:.2}x",
            workload.name,
            text.lines().count(),
            ours.as_secs_f64() * 1e3,
            theirs.as_secs_f64() * 1e3,
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    }
}
