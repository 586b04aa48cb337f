//! A FIFO where a tool expects a file: every tool answers `not_a_regular_file` at
//! once. The calls run on a blocking thread under a timeout only so that a hang
//! fails the test instead of stalling it (a hang guard, not a speed threshold).

use std::time::Duration;

use serde_json::{Value, json};

use holon_tool_fixtures::workspace::Fixture;

/// Long enough that only a hang reaches it.
const HANG_GUARD: Duration = Duration::from_secs(60);

fn mkfifo(path: &std::path::Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
}

/// Lets a reader blocked in `open` of the FIFO go, so a hung call can end.
fn release(path: &std::path::Path) {
    use rustix::fs::{Mode, OFlags};
    let _ = rustix::fs::open(path, OFlags::WRONLY | OFlags::NONBLOCK, Mode::empty());
}

async fn call_guarded(fx: &Fixture, fifo: &std::path::Path, name: &str, input: Value) -> Value {
    let runtime = std::sync::Arc::clone(&fx.runtime);
    let handle = tokio::runtime::Handle::current();
    let name_owned = name.to_string();
    let call = tokio::task::spawn_blocking(move || {
        handle.block_on(holon_tool_fixtures::workspace::call_with(
            &runtime,
            holon_core::FamilyPolicy::all(),
            &name_owned,
            input,
        ))
    });
    match tokio::time::timeout(HANG_GUARD, call).await {
        Ok(envelope) => envelope.unwrap(),
        Err(_) => {
            // Release the blocked call so the test can end, and report the hang.
            for _ in 0..100 {
                release(fifo);
                std::thread::sleep(Duration::from_millis(10));
            }
            json!({ "status": "hung", "error": { "kind": "blocked on the FIFO" } })
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_refuses_a_fifo_at_once() {
    let fx = Fixture::new();
    let fifo = fx.path("home/pipe.md");
    mkfifo(&fifo);
    let calls = [
        ("ViewImage", json!({ "path": "pipe.md" })),
        (
            "MemoryGet",
            json!({ "source_ref": "workspace:home:pipe.md" }),
        ),
        (
            "ApplyPatch",
            json!({ "patch": "*** Begin Patch\n*** Update File: pipe.md\n-a\n+b\n*** End Patch\n" }),
        ),
        (
            "ApplyPatch",
            json!({ "patch": "--- a/pipe.md\n+++ b/pipe.md\n@@ -1 +1 @@\n-a\n+b\n" }),
        ),
    ];
    let mut wrong = Vec::new();
    for (name, input) in calls {
        let envelope = call_guarded(&fx, &fifo, name, input.clone()).await;
        if envelope["error"]["kind"] != "not_a_regular_file" {
            wrong.push(format!("{name} {input}: {}", envelope["error"]["kind"]));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
