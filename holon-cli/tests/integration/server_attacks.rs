//! A command the model runs through `holon-tools serve --http` attacks the server that
//! started it (its `$PPID`): reads its token from `/proc/$PPID/environ`, from the
//! `--token-file` named in `/proc/$PPID/cmdline`, from `/proc/$PPID/mem`; stops it,
//! traces it; writes its store with `sqlite3`. Each is refused; which protection
//! refuses it is said at each check. Skipped, with the reason, where the kernel lacks
//! Landlock ABI 6 or a tool the attack needs.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::cli_support::holon_command;
use crate::serve::{Server, bearer, post_in_session, post_initialize, session_id, start_http};

const ENV_SECRET: &str = "env-secret-6a1f0c9d2b7e";
const FILE_SECRET: &str = "file-secret-3c8e5a1b9d0f";

/// Whether `program` is on `PATH`; says why the test does not run when not.
fn have(program: &str) -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()));
    if !found {
        eprintln!("skipped: the attack needs `{program}`, which is not on PATH");
    }
    found
}

/// A workspace, the state directory and the token file beside it (outside it).
struct Setup {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    state: PathBuf,
    token_file: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    let state = dir.path().join("state");
    let secrets = dir.path().join("secrets");
    for path in [&workspace, &state, &secrets] {
        std::fs::create_dir(path).unwrap();
    }
    let token_file = secrets.join("token");
    std::fs::write(&token_file, format!("{FILE_SECRET}\n")).unwrap();
    Setup {
        _dir: dir,
        workspace,
        state,
        token_file,
    }
}

/// `serve --http` on loopback with its token in `--token-file` and another secret in
/// `HOLON_MCP_TOKEN` (which the file overrides, but which is in its environment).
fn serve(setup: &Setup) -> (Server, String) {
    let mut command = holon_command(&setup.workspace);
    command
        .arg("--state-dir")
        .arg(&setup.state)
        // What a command can read, not whether it is asked about: run it unasked.
        .args(["--policy", "none"])
        .env("HOLON_MCP_TOKEN", ENV_SECRET)
        .args(["serve", "--http", "127.0.0.1:0", "--token-file"])
        .arg(&setup.token_file);
    let (server, authority, _) = start_http(command);
    (server, authority)
}

/// Calls ExecCommand with `cmd` (bash) over MCP; the command's stdout.
fn exec_over_mcp(authority: &str, cmd: &str) -> String {
    let session = session_id(&post_initialize(authority, &[bearer(FILE_SECRET)]));
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "ExecCommand",
        "arguments": {"cmd": cmd, "shell": "bash", "yield_time_ms": 60000},
    }});
    let answer = post_in_session(authority, FILE_SECRET, &session, &request);
    let structured = &answer["result"]["structuredContent"];
    let stdout = structured["output_preview"]["stdout"]
        .as_str()
        .unwrap_or_else(|| panic!("no stdout in {answer}"));
    assert_eq!(structured["status"], "completed", "{answer}");
    stdout.to_string()
}

/// Every secret-looking string in `stdout`, and the lines that say which attack
/// found it.
fn leaked(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|line| line.contains(ENV_SECRET) || line.contains(FILE_SECRET))
        .collect()
}

/// The store's path.
fn store(setup: &Setup) -> PathBuf {
    setup.state.join(holon_runtime::STORE_FILE_NAME)
}

fn table_count(store: &Path) -> String {
    let output = std::process::Command::new("sqlite3")
        .arg(store)
        .arg("select count(*) from sqlite_master where name = 'attack'")
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[test]
fn a_command_cannot_read_the_servers_token_stop_it_trace_it_or_write_its_store() {
    let support = holon_gates::process::sandbox::probe();
    if support.abi < 6 {
        eprintln!(
            "skipped: needs Landlock ABI 6 (scoped signals), this kernel has {}",
            support.abi
        );
        return;
    }
    if !have("sqlite3") || !have("strace") {
        return;
    }
    let setup = setup();
    let (server, authority) = serve(&setup);
    let store = store(&setup);
    let stdout = exec_over_mcp(
        &authority,
        &format!(
            // environ: Landlock (the server is outside the command's domain) and the
            // server being non-dumpable.
            "tr '\\0' '\\n' < /proc/$PPID/environ | grep HOLON_MCP_TOKEN | sed 's/^/environ: /'; \
             echo environ=${{PIPESTATUS[0]}}; \
             f=$(tr '\\0' '\\n' < /proc/$PPID/cmdline | grep -A1 -x -- --token-file | tail -n 1); \
             echo \"token file: $f\"; sed 's/^/token-file: /' \"$f\"; echo token_file=$?; \
             while read -r range perms rest; do \
               case $perms in r*) ;; *) continue;; esac; \
               start=$((16#${{range%-*}})); end=$((16#${{range#*-}})); \
               dd if=/proc/$PPID/mem iflag=skip_bytes,count_bytes skip=$start \
                  count=$((end - start)) 2>/dev/null | grep -a -o '[a-z]*-secret-[0-9a-f]*' \
                  | sed 's/^/mem: /'; \
             done < /proc/$PPID/maps; \
             head -c 1 /proc/$PPID/mem >/dev/null 2>&1; echo mem=$?; \
             kill -STOP $PPID; echo stop=$?; kill -CONT $PPID; \
             timeout 3 strace -qq -p $PPID -o /dev/null; echo ptrace=$?; \
             sqlite3 {store} 'create table attack(x)'; echo sqlite=$?",
            store = store.display(),
        ),
    );
    // The server still answers: it was neither stopped nor killed.
    let session = session_id(&post_initialize(&authority, &[bearer(FILE_SECRET)]));
    assert!(!session.is_empty());
    drop(server);
    assert_eq!(leaked(&stdout), Vec::<&str>::new(), "{stdout}");
    // The token file lies outside the workspace: Landlock grants it nothing (and the
    // file's contents never reach the command); its path is no secret.
    assert!(stdout.contains("token_file=2"), "{stdout}");
    // /proc/$PPID/environ and mem: refused by Landlock's ptrace rule (the server is
    // outside the command's domain) and, without it, by the server being non-dumpable
    // and the command lacking CAP_SYS_PTRACE.
    assert!(!stdout.contains("environ=0"), "{stdout}");
    assert!(stdout.contains("mem=1"), "{stdout}");
    // Signals: Landlock's scope (ABI 6). ptrace: Landlock's ptrace rule.
    assert!(stdout.contains("stop=1"), "{stdout}");
    assert!(stdout.contains("ptrace=1"), "{stdout}");
    // The store: Landlock grants the state directory nothing.
    assert!(!stdout.contains("sqlite=0"), "{stdout}");
    assert_eq!(table_count(&store), "0", "the command wrote the store");
}
