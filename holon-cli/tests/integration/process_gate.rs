//! The process gate on real commands: what their environment hides, the resource
//! limits they run under, and the cap on their log files.

use holon_runtime::{Runtime, RuntimeConfig};
use serde_json::{Value, json};

use crate::cli_support::holon_command;
use crate::task_support::{call, text};

/// The structured result of `holon-tools call ExecCommand INPUT` run with `env` added
/// to its environment and `flags` before the command. The CLI itself starts with
/// core dumps allowed (the soft limit raised to the hard one), so that a command's
/// `ulimit -c` of 0 is the gate's doing.
fn exec_through_cli(flags: &[&str], env: &[(&str, &str)], input: Value) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let cli = holon_command(dir.path());
    let mut command = std::process::Command::new("sh");
    command
        .args(["-c", r#"ulimit -S -c "$(ulimit -H -c)" && exec "$0" "$@""#])
        .arg(cli.get_program())
        .args(cli.get_args())
        .args(flags)
        .args(["call", "--json", "ExecCommand", &input.to_string()]);
    for (name, value) in cli.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    let envelope: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    envelope["structured"].clone()
}

#[test]
fn commands_see_the_operators_variables_but_no_credential_the_runtime_reads() {
    let result = exec_through_cli(
        &[
            "--command-env",
            "HOLON_PROC_TEST_PLAIN,HOLON_XAI_API_KEY,OPENAI_API_KEY",
        ],
        &[
            ("HOLON_XAI_API_KEY", "xai-secret"),
            ("HOLON_IMAGE_API_KEY", "image-secret"),
            ("HOLON_MCP_TOKEN", "mcp-secret"),
            // A provider's credential_env in the embedded catalog.
            ("OPENAI_API_KEY", "openai-secret"),
            ("HOLON_PROC_TEST_PLAIN", "visible"),
        ],
        json!({"cmd": "env"}),
    );
    let stdout = text(&result["output_preview"]["stdout"]);
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(stdout.contains("HOLON_PROC_TEST_PLAIN=visible"), "{stdout}");
    assert!(stdout.contains("PATH="), "{stdout}");
    for secret in ["xai-secret", "image-secret", "mcp-secret", "openai-secret"] {
        assert!(!stdout.contains(secret), "{secret} leaked: {stdout}");
    }
}

/// The server's bearer token is the CLI's own credential, not one the runtime reads:
/// the CLI names it to the runtime, which hides it even from an operator who allows it.
#[test]
fn the_servers_token_stays_hidden_even_when_the_operator_allows_it() {
    let result = exec_through_cli(
        &["--command-env", "HOLON_MCP_TOKEN,HOLON_PROC_TEST_PLAIN"],
        &[
            ("HOLON_MCP_TOKEN", "mcp-secret"),
            ("HOLON_PROC_TEST_PLAIN", "visible"),
        ],
        json!({"cmd": "env"}),
    );
    let stdout = text(&result["output_preview"]["stdout"]);
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(stdout.contains("HOLON_PROC_TEST_PLAIN=visible"), "{stdout}");
    assert!(!stdout.contains("mcp-secret"), "the token leaked: {stdout}");
}

/// The environment is an allow-list: a credential of the operator's shell the runtime
/// knows nothing of never reaches a command, unless the operator names it.
#[test]
fn commands_see_only_allowed_variables_and_what_the_operator_names() {
    let secrets = [
        ("GITHUB_TOKEN", "ghp-secret"),
        ("AWS_SECRET_ACCESS_KEY", "aws-secret"),
        (
            "HOLON_SEARCH_URL",
            "https://search.example/?key=search-secret",
        ),
        ("LC_HOLON_TEST", "a-locale"),
    ];
    let result = exec_through_cli(&[], &secrets, json!({"cmd": "env"}));
    let stdout = text(&result["output_preview"]["stdout"]);
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(stdout.contains("PATH="), "{stdout}");
    assert!(
        stdout.contains("LC_HOLON_TEST=a-locale"),
        "LC_* passes: {stdout}"
    );
    for secret in ["ghp-secret", "aws-secret", "search-secret"] {
        assert!(!stdout.contains(secret), "{secret} leaked: {stdout}");
    }
    let result = exec_through_cli(
        &["--command-env", "GITHUB_TOKEN"],
        &secrets,
        json!({"cmd": "env"}),
    );
    let stdout = text(&result["output_preview"]["stdout"]);
    assert!(
        stdout.contains("GITHUB_TOKEN=ghp-secret"),
        "named: {stdout}"
    );
    for secret in ["aws-secret", "search-secret"] {
        assert!(!stdout.contains(secret), "{secret} leaked: {stdout}");
    }
    let dir = tempfile::tempdir().unwrap();
    let output = holon_command(dir.path())
        .args(["--command-env", "MY VAR", "call", "Sleep", "{}"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`MY VAR` is not a variable name"),
        "{stderr}"
    );
}

#[test]
fn commands_run_without_core_dumps_and_under_the_operators_limits() {
    let result = exec_through_cli(
        &[],
        &[],
        json!({"cmd": "ulimit -H -c; ulimit -c; ulimit -f"}),
    );
    // bash and dash print `ulimit -f` in 512-byte (bash: 1024-byte) blocks.
    let stdout = text(&result["output_preview"]["stdout"]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[..2],
        ["0", "0"],
        "no core dump, not even raised: {result}"
    );
    assert_ne!(lines.get(2), Some(&"unlimited"), "{result}");

    let result = exec_through_cli(
        &["--command-limits", "core=none,fsize=1M,cpu=7"],
        &[],
        json!({"cmd": "ulimit -t; head -c 2000000 /dev/zero > big; echo status $?; wc -c < big"}),
    );
    let stdout = text(&result["output_preview"]["stdout"]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "7", "{result}");
    // Writing past RLIMIT_FSIZE kills the writer (SIGXFSZ): the file stops at 1 MiB.
    assert_ne!(lines[1], "status 0", "{result}");
    assert_eq!(lines[2].trim(), "1048576", "{result}");
}

#[test]
fn a_limits_list_the_gate_cannot_read_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let output = holon_command(dir.path())
        .args(["--command-limits", "fsize=lots", "call", "Sleep", "{}"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`lots` is not a number or `none`"),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_command_writing_past_the_log_cap_leaves_its_head_a_note_and_its_tail() {
    let workspace = tempfile::tempdir().unwrap();
    let mut config = RuntimeConfig::in_memory(workspace.path());
    config.commands.log_cap_bytes = 1000;
    let runtime = Runtime::open(config).unwrap();
    let envelope = call(&runtime, "ExecCommand", json!({"cmd": "seq 1 100000"})).await;
    let result = &envelope["structured"];
    assert_eq!(result["exit_status"], 0, "{envelope}");
    let log = std::fs::read_to_string(text(&result["stdout_log"])).unwrap();
    let whole: String = (1..=100_000).map(|n| format!("{n}\n")).collect();
    assert!(log.len() < 1000 + 200, "{} bytes", log.len());
    assert!(whole.starts_with(&log[..500]), "the head: {log}");
    assert!(whole.ends_with(&log[log.len() - 500..]), "the tail: {log}");
    let cut = whole.len() - 1000;
    assert!(
        log.contains(&format!("[... holon-tools: {cut} bytes of stdout cut here")),
        "{log}"
    );
    let folder = std::path::Path::new(text(&result["stdout_log"]))
        .parent()
        .unwrap();
    let files: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(files.len(), 2, "stdout.log and stderr.log only: {files:?}");
}

/// Git is started by the process gate too: a hook of the operator's repository (here
/// `post-checkout`, which `git worktree add` runs) sees the operator's variables but
/// no credential the runtime reads.
#[test]
fn git_hooks_run_without_the_runtimes_credentials() {
    use holon_tool_fixtures::workspace::init_repo;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    init_repo(&home);
    let seen = dir.path().join("hook-env.txt");
    let hook = home.join(".git/hooks/post-checkout");
    std::fs::write(&hook, format!("#!/bin/sh\nenv > '{}'\n", seen.display())).unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let input = json!({"workspace_id": "home", "branch": "hooked", "base_ref": "main"});
    let output = holon_command(&home)
        .env("HOLON_XAI_API_KEY", "xai-secret")
        .env("HOLON_IMAGE_API_KEY", "image-secret")
        .env("HOLON_PROC_TEST_PLAIN", "visible")
        .args(["--command-env", "HOLON_PROC_TEST_PLAIN,HOLON_XAI_API_KEY"])
        .args(["call", "--json", "CreateWorktree", &input.to_string()])
        .output()
        .unwrap();
    let envelope: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(envelope["status"], "success", "{envelope}");
    let env = std::fs::read_to_string(&seen).expect("the hook ran");
    assert!(env.contains("HOLON_PROC_TEST_PLAIN=visible"), "{env}");
    for secret in ["xai-secret", "image-secret"] {
        assert!(
            !env.contains(secret),
            "{secret} reached the git hook: {env}"
        );
    }
}

/// Whether this machine lets a process make a cgroup with the pids controller: root,
/// with cgroup v1's `pids` hierarchy or cgroup v2 offering `pids` where it is mounted.
fn machine_has_pids_cgroups() -> bool {
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(2) == Some("0"));
    let v1 = std::path::Path::new("/sys/fs/cgroup/pids/cgroup.procs").exists();
    let v2 = [
        "/sys/fs/cgroup/cgroup.controllers",
        "/sys/fs/cgroup/unified/cgroup.controllers",
    ]
    .iter()
    .any(|path| {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .split_whitespace()
            .any(|name| name == "pids")
    });
    root && (v1 || v2)
}

/// Whether the runtime gives commands a cgroup here (as `doctor` finds, making one as
/// the runtime would); says why the test does not run when not. On a machine that
/// has them (as root) they must be enforced.
pub(crate) fn cgroups_enforced(flags: &[&str]) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let output = holon_command(dir.path())
        .args(flags)
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    if report["cgroups"]["enforced"] != true {
        assert!(
            !machine_has_pids_cgroups(),
            "this machine has pids cgroups, yet commands get none: {report}"
        );
        eprintln!(
            "skipped: commands get no cgroup here: {}",
            report["cgroups"]["reason"]
        );
        return false;
    }
    true
}

/// A command tries 1,500 forks (each child sleeps): as root, `RLIMIT_NPROC` does not
/// bind, so only the pids cap of the command's cgroup stops it. The count is the
/// forks that succeeded, as the command saw them.
#[test]
fn a_fork_bomb_gets_at_most_the_process_cap() {
    let flags = ["--command-limits", "pids=64"];
    if !cgroups_enforced(&flags) {
        return;
    }
    let result = exec_through_cli(
        &flags,
        &[],
        json!({"cmd": "exec perl -e 'my @kids; for (1..1500) { my $p = fork(); next unless defined $p; if ($p == 0) { sleep 60; exit 0 } push @kids, $p } print scalar(@kids), \"\\n\"; kill 9, @kids; waitpid($_, 0) for @kids'"}),
    );
    let stdout = text(&result["output_preview"]["stdout"]);
    let forked: u64 = stdout.trim().parse().unwrap_or_else(|_| panic!("{result}"));
    assert!(forked > 0 && forked < 64, "{forked} forks: {result}");
    assert_eq!(result["limit_hit"], "process_cap", "{result}");
    assert!(text(&result["hint"]).contains("pids="), "{result}");
}

/// A command that allocates far past the memory cap is killed by the kernel, and the
/// result says which cap it ran into and what to do.
#[test]
fn a_memory_hog_is_killed_at_the_memory_cap_and_told_why() {
    let flags = ["--command-limits", "mem=64M"];
    if !cgroups_enforced(&flags) {
        return;
    }
    let result = exec_through_cli(
        &flags,
        &[],
        json!({"cmd": "perl -e '$x = \"a\" x (1024 * 1024 * 1024); print length($x), \"\\n\"'"}),
    );
    assert_eq!(result["status"], "failed", "{result}");
    assert_eq!(result["limit_hit"], "memory_cap", "{result}");
    assert!(text(&result["hint"]).contains("memory cap"), "{result}");
    assert!(text(&result["hint"]).contains("67108864"), "{result}");
    assert!(
        !text(&result["output_preview"]["stdout"]).contains("1073741824"),
        "{result}"
    );
}
