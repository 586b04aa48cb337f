//! Attacks of a command on the runtime that started it: reading its token, signalling
//! it, writing its store, writing outside the workspace, reaching the network without
//! the `web` family. Landlock (ABI 6 for signals, 4 for the network) stops them; on a
//! kernel without it the tests say why they do not run.

use std::path::PathBuf;

use holon_gates::process::sandbox;
use serde_json::{Value, json};

use crate::cli_support::holon_command;
use crate::task_support::text;

/// A workspace and a state directory beside it (outside it, as by default).
struct Setup {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    state: PathBuf,
    outside: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    let state = dir.path().join("state");
    let outside = dir.path().join("outside");
    for path in [&workspace, &state, &outside] {
        std::fs::create_dir(path).unwrap();
    }
    Setup {
        _dir: dir,
        workspace,
        state,
        outside,
    }
}

/// `holon-tools call ExecCommand` of `cmd` (under bash) in `setup`, with the MCP token
/// in the runtime's environment and the caller's families `families`; the structured
/// result and the command's stdout.
fn exec(setup: &Setup, families: &str, cmd: &str) -> (Value, String) {
    let output = holon_command(&setup.workspace)
        .arg("--state-dir")
        .arg(&setup.state)
        .env("HOLON_MCP_TOKEN", "mcp-token-secret")
        .args(["call", "--json", "--families", families, "ExecCommand"])
        .arg(json!({"cmd": cmd, "shell": "bash"}).to_string())
        .output()
        .unwrap();
    let envelope: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    let result = envelope["structured"].clone();
    let stdout = text(&result["output_preview"]["stdout"]).to_string();
    (result, stdout)
}

/// Whether this kernel has Landlock ABI `abi`; says why not when it has not.
fn landlock_at_least(abi: u8) -> bool {
    let support = sandbox::probe();
    if support.abi < abi {
        eprintln!(
            "skipped: needs Landlock ABI {abi}, this kernel has {} ({})",
            support.abi,
            support.missing.as_deref().unwrap_or("an older ABI")
        );
        return false;
    }
    true
}

const NO_WEB: &str = "core_agent,local_environment";

/// The runtime's memory (where its token is) and its signals are closed to its
/// commands. (`/proc/<pid>/environ` is not, on this kernel: see docs/sandbox.md.)
#[test]
fn a_command_cannot_read_the_runtimes_memory_or_signal_it() {
    if !landlock_at_least(6) {
        return;
    }
    let setup = setup();
    let (result, stdout) = exec(
        &setup,
        "all",
        "head -c 64 /proc/$PPID/mem >/dev/null 2>&1; echo mem=$?; \
         ls -l /proc/$PPID/cwd >/dev/null 2>&1; echo cwd=$?; \
         kill -STOP $PPID; stop=$?; kill -CONT $PPID; echo stop=$stop; \
         kill -TERM $PPID; echo term=$?",
    );
    for refused in ["mem=1", "cwd=2", "stop=1", "term=1"] {
        assert!(stdout.contains(refused), "{refused}: {result}");
    }
}

#[test]
fn a_command_cannot_reach_the_state_directory_or_write_outside_the_workspace() {
    if !landlock_at_least(1) {
        return;
    }
    let setup = setup();
    // A first call creates the store.
    exec(&setup, "all", "true");
    let store = setup.state.join(holon_runtime::STORE_FILE_NAME);
    let escaped = setup.outside.join("escaped");
    let (result, stdout) = exec(
        &setup,
        "all",
        &format!(
            "printf 'ATT%s' ACK >> {store}; echo store=$?; ls {state} >/dev/null; echo list=$?; \
             echo x > {escaped}; echo outside=$?; echo y > inside; echo inside=$?; \
             echo z > \"$TMPDIR/scratch\"; echo tmp=$?",
            store = store.display(),
            state = setup.state.display(),
            escaped = escaped.display(),
        ),
    );
    for expected in ["store=1", "list=2", "outside=1", "inside=0", "tmp=0"] {
        assert!(stdout.contains(expected), "{expected}: {result}");
    }
    // The marker is not in the command's text, which the store records.
    let written = std::fs::read(&store).unwrap();
    assert!(
        !written.windows(6).any(|window| window == b"ATTACK"),
        "the command wrote the store"
    );
    assert!(
        !escaped.exists(),
        "a file was written outside the workspace"
    );
    assert_eq!(
        std::fs::read_to_string(setup.workspace.join("inside")).unwrap(),
        "y\n"
    );
}

/// Opens a loopback listener and runs a command that connects to it: whether it
/// connected, by the listener's count.
fn connects(setup: &Setup, families: &str) -> bool {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let (result, stdout) = exec(
        setup,
        families,
        &format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"),
    );
    let accepted = listener.accept().is_ok();
    assert_eq!(accepted, stdout.contains("connected"), "{result}");
    accepted
}

#[test]
fn a_command_without_the_web_family_gets_no_tcp() {
    if !landlock_at_least(4) {
        return;
    }
    let setup = setup();
    assert!(!connects(&setup, NO_WEB), "connected without web");
    assert!(connects(&setup, "all"), "the web family connects");
}

/// `doctor` reports what this kernel enforces, as the runtime finds it, in text and
/// JSON.
#[test]
fn doctor_reports_landlock_as_this_kernel_has_it() {
    let dir = tempfile::tempdir().unwrap();
    let support = sandbox::probe();
    let output = holon_command(dir.path())
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(report["landlock"]["abi"], support.abi, "{report}");
    assert_eq!(report["process"]["dumpable"], false, "{report}");
    assert_eq!(report["network_rule"], "by-family", "{report}");
    assert!(
        report["environment"]
            .as_array()
            .unwrap()
            .contains(&json!("PATH"))
    );
    let output = holon_command(dir.path())
        .args(["--command-env", "GITHUB_TOKEN", "doctor"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    if support.abi == 0 {
        assert!(text.contains("landlock: not available"), "{text}");
    } else {
        assert!(
            text.contains(&format!("landlock: ABI {}", support.abi)),
            "{text}"
        );
        assert!(text.contains("scoped signals"), "{text}");
    }
    assert!(text.contains("GITHUB_TOKEN"), "{text}");
    assert!(text.contains("cgroup limits:"), "{text}");
}

/// `doctor` says whether commands get the seccomp filter, and a command's own
/// `/proc/self/status` agrees: filtered where it says enforced; a `gap:` where not.
#[test]
fn doctor_reports_the_seccomp_filter_as_commands_get_it() {
    let setup = setup();
    let filter = holon_gates::process::syscall_filter::probe();
    let output = holon_command(&setup.workspace)
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(
        report["syscall_filter"]["enforced"], filter.enforced,
        "{report}"
    );
    let gaps = report["gaps"].to_string();
    assert_eq!(
        gaps.contains("no seccomp filter"),
        !filter.enforced,
        "{report}"
    );
    let text = String::from_utf8_lossy(
        &holon_command(&setup.workspace)
            .arg("doctor")
            .output()
            .unwrap()
            .stdout,
    )
    .to_string();
    let expected = if filter.enforced {
        "enforced"
    } else {
        "not enforced"
    };
    assert!(
        text.lines()
            .any(|line| line.starts_with("seccomp filter")
                && line.ends_with(&format!(": {expected}"))),
        "{text}"
    );
    let (result, stdout) = exec(&setup, "all", "grep '^Seccomp:' /proc/self/status");
    let mode = if filter.enforced { "2" } else { "0" };
    assert_eq!(stdout.split_whitespace().nth(1), Some(mode), "{result}");
}
