//! ExecCommand's `workdir` exchanged with a symlink to the outside while commands
//! start in it: not one command may run in the outside directory. The workdir is
//! resolved once, beneath the workspace root's handle, and the command's working
//! directory is set from that handle, so a swap after the check changes nothing.

use serde_json::json;

use super::Swapper;
use holon_tool_fixtures::workspace::Fixture;

/// Commands started.
const CALLS: usize = 2_000;

const OUTSIDE_MARKER: &str = "outside-secret-workdir-5c1e";

#[tokio::test]
async fn exec_command_never_runs_in_a_swapped_symlinked_workdir() {
    let fx = Fixture::new();
    fx.write("home/d/inside-marker", "");
    fx.write(&format!("outside/{OUTSIDE_MARKER}"), "");
    std::os::unix::fs::symlink(fx.path("outside"), fx.path("home/l")).unwrap();
    let swapper = Swapper::start(&fx.home(), "d", "l");
    let (mut leaked, mut ran) = (0, 0);
    for _ in 0..CALLS {
        let envelope = fx
            .call(
                "ExecCommand",
                json!({ "cmd": "ls", "workdir": "d", "shell": "sh" }),
            )
            .await;
        if envelope["status"] == "success" {
            let stdout = envelope["structured"]["output_preview"]["stdout"]
                .as_str()
                .unwrap_or_default();
            ran += usize::from(stdout.contains("inside-marker"));
            leaked += usize::from(stdout.contains(OUTSIDE_MARKER));
        }
    }
    let swaps = swapper.finish();
    assert_eq!(
        leaked, 0,
        "ExecCommand ran in the outside directory in {leaked} of {CALLS} calls ({swaps} swaps)"
    );
    assert!(
        ran > 0,
        "no command ran in the inside directory ({swaps} swaps)"
    );
}
