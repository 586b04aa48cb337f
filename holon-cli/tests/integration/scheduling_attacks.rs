//! Attacks of a command on the runtime that started it (its `$PPID`) through the
//! system calls Landlock does not scope: `prlimit` (a CPU limit of 0 kills it, a file
//! size of 0 kills it at its next write, 8 open files wedge it), `renice`, `chrt`,
//! `ionice`, `taskset`; and the sockets a command without the `web` family may
//! create. The seccomp filter refuses each with `EPERM`, under `call`, `session` and
//! `serve`, and the runtime goes on serving; the same calls on the command itself
//! still work. Skipped, with the reason, where the kernel has no seccomp filters or a
//! tool the attack needs is missing.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use holon_gates::process::syscall_filter;
use serde_json::{Value, json};

use crate::cli_support::holon_command;
use crate::serve::{handshake, lines, response, send, spawn_stdio};
use crate::task_support::text;

/// Whether commands get the filter here, and every tool the attacks use is on
/// `PATH`; says why the test does not run when not.
fn can_run(tools: &[&str]) -> bool {
    if let Some(why) = syscall_filter::probe().missing {
        eprintln!("skipped: commands get no seccomp filter here: {why}");
        return false;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for tool in tools {
        if !std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()) {
            eprintln!("skipped: the attack needs `{tool}`, which is not on PATH");
            return false;
        }
    }
    true
}

const UTIL_LINUX: &[&str] = &[
    "prlimit", "renice", "chrt", "ionice", "taskset", "setsid", "setpriv",
];

/// The user the attack starts a process as, so that `renice -u` and `ionice -u` of
/// it reach one harmless process (without the filter) rather than every process of
/// the user running the tests.
const STRANGER: &str = "54321";

/// Up to 5 s for a condition of the shell, checked every 10 ms.
fn wait_until(condition: &str) -> String {
    format!("n=0; until {condition} || [ $n -ge 500 ]; do sleep 0.01; n=$((n+1)); done; ")
}

/// The attack, one `name=<status> <message>` line per system call; "after" last.
/// Another process group is a `setsid sleep` the command starts (it leads a group of
/// its own); another user's process (root only) a `setpriv` one.
fn attack(as_root: bool) -> String {
    let mut script = String::from("setsid sleep 300 >/dev/null 2>&1 & other=$!; ");
    script.push_str(&wait_until(
        "[ \"$(cut -d' ' -f5 /proc/$other/stat)\" = \"$other\" ]",
    ));
    let mut steps = vec![
        ("nofile", "prlimit --pid $PPID --nofile=8:8".to_string()),
        ("fsize", "prlimit --pid $PPID --fsize=0:0".to_string()),
        ("as", "prlimit --pid $PPID --as=1000000:1000000".to_string()),
        ("renice", "renice -n 19 -p $PPID".to_string()),
        ("renice_group", "renice -n 19 -g $other".to_string()),
        ("chrt", "chrt -i -p 0 $PPID".to_string()),
        ("ionice", "ionice -c 3 -p $PPID".to_string()),
        ("ionice_group", "ionice -c 3 -P $other".to_string()),
        ("taskset", "taskset -p 1 $PPID".to_string()),
    ];
    if as_root {
        script.push_str(&format!(
            "setpriv --reuid {STRANGER} --regid {STRANGER} --clear-groups sleep 300 \
             >/dev/null 2>&1 & stranger=$!; "
        ));
        script.push_str(&wait_until(&format!(
            "grep -q '^Uid:.{STRANGER}' /proc/$stranger/status"
        )));
        steps.push(("renice_user", format!("renice -n 19 -u {STRANGER}")));
        steps.push(("ionice_user", format!("ionice -c 3 -u {STRANGER}")));
    }
    steps.push(("cpu", "prlimit --pid $PPID --cpu=0:0".to_string()));
    for (name, step) in &steps {
        script.push_str(&format!("out=$({step} 2>&1); echo \"{name}=$? $out\"; "));
    }
    script.push_str("kill $other $stranger; echo after");
    script
}

/// Whether the tests run as root (the attack on another user needs it).
fn as_root() -> bool {
    let root = rustix::process::getuid().is_root();
    if !root {
        eprintln!("not root: the attack on another user's process (PRIO_USER) is left out");
    }
    root
}

/// Every step of [`attack`] was refused with EPERM, and the command went on to the end.
fn assert_refused(stdout: &str, as_root: bool) {
    let mut names = vec![
        "nofile",
        "fsize",
        "as",
        "renice",
        "renice_group",
        "chrt",
        "ionice",
        "ionice_group",
        "taskset",
        "cpu",
    ];
    if as_root {
        names.extend(["renice_user", "ionice_user"]);
    }
    for name in names {
        let line = stdout
            .lines()
            .find(|line| line.starts_with(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name} in {stdout}"));
        assert!(
            !line.starts_with(&format!("{name}=0")) && line.contains("Operation not permitted"),
            "{name} was not refused with EPERM: {stdout}"
        );
    }
    assert!(stdout.lines().any(|line| line == "after"), "{stdout}");
}

/// What a command may still do to itself, one `name=<status> <output>` line each.
const SELF_DIRECTED: &str = "ulimit -n 100; echo \"ulimit=$? $(ulimit -n)\"; \
     nice -n 5 true; echo \"nice=$?\"; \
     renice -n 5 -p $$ >/dev/null; echo \"renice=$?\"; \
     renice -n 6 -g $$ >/dev/null; echo \"renice_group=$?\"; \
     prlimit --pid $$ --nofile=50:50; echo \"prlimit=$? $(ulimit -n)\"; \
     prlimit --pid $PPID --nofile >/dev/null; echo \"prlimit_read=$?\"; \
     chrt -b -p 0 $$; echo \"chrt=$?\"; \
     ionice -c 3 -p $$; echo \"ionice=$?\"; \
     taskset -p -c \"$(taskset -p -c $$ | sed 's/.*: //')\" $$ >/dev/null; echo \"taskset=$?\"";

/// `holon-tools call ExecCommand` of `cmd` (bash) with the caller's `families`; the
/// envelope, whatever the exit status (a killed runtime prints none).
fn call(workspace: &Path, families: &str, cmd: &str) -> (Option<i32>, Value) {
    let output = holon_command(workspace)
        .args(["call", "--json", "--families", families, "ExecCommand"])
        .arg(json!({"cmd": cmd, "shell": "bash"}).to_string())
        .output()
        .unwrap();
    let envelope = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "the runtime printed no result (exit status {:?}): {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code(), envelope)
}

fn stdout_of(structured: &Value) -> String {
    text(&structured["output_preview"]["stdout"]).to_string()
}

#[test]
fn call_a_command_cannot_lower_the_runtimes_limits_or_priority() {
    if !can_run(UTIL_LINUX) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = as_root();
    let (status, envelope) = call(dir.path(), "all", &attack(root));
    assert_eq!(status, Some(0), "{envelope}");
    assert_refused(&stdout_of(&envelope["structured"]), root);
    // A later call still works.
    let (status, envelope) = call(dir.path(), "all", "echo alive");
    assert_eq!(status, Some(0), "{envelope}");
    assert_eq!(stdout_of(&envelope["structured"]).trim(), "alive");
}

#[test]
fn a_command_still_limits_and_schedules_itself() {
    if !can_run(UTIL_LINUX) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (status, envelope) = call(dir.path(), "all", SELF_DIRECTED);
    let stdout = stdout_of(&envelope["structured"]);
    assert_eq!(status, Some(0), "{envelope}");
    for expected in [
        "ulimit=0 100",
        "nice=0",
        "renice=0",
        "renice_group=0",
        "prlimit=0 50",
        "prlimit_read=0",
        "chrt=0",
        "ionice=0",
        "taskset=0",
    ] {
        assert!(
            stdout.lines().any(|line| line == expected),
            "{expected}: {stdout}"
        );
    }
}

#[test]
fn session_a_command_cannot_lower_the_runtimes_limits_or_priority() {
    if !can_run(UTIL_LINUX) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = as_root();
    let mut child = holon_command(dir.path())
        .args(["--policy", "none", "session", "--families", "all"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let stdin = child.stdin.as_mut().unwrap();
        for cmd in [attack(root), "echo alive".to_string()] {
            let line = json!({"name": "ExecCommand", "input": {"cmd": cmd, "shell": "bash"}});
            writeln!(stdin, "{line}").unwrap();
        }
    }
    let output = child.wait_with_output().unwrap();
    let answers: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(output.status.code(), Some(0), "{answers:?}");
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_refused(&stdout_of(&answers[0]["structured"]), root);
    assert_eq!(stdout_of(&answers[1]["structured"]).trim(), "alive");
}

#[test]
fn serve_a_command_cannot_lower_the_servers_limits_or_priority() {
    if !can_run(UTIL_LINUX) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = as_root();
    // The subject is the filter, not the approval policy (whose default asks before
    // ExecCommand).
    let mut command = holon_command(dir.path());
    command.args(["--policy", "none", "serve", "--families", "all"]);
    let mut child = spawn_stdio(command);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    handshake(&mut stdin, &stdout);
    let mut exec = |id: u64, cmd: &str| {
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "ExecCommand",
                "arguments": {"cmd": cmd, "shell": "bash", "yield_time_ms": 60000},
            }}),
        );
        let answer = response(&stdout, id);
        stdout_of(&answer["result"]["structuredContent"])
    };
    assert_refused(&exec(2, &attack(root)), root);
    assert_eq!(exec(3, "echo alive").trim(), "alive");
    let _ = child.kill();
    let _ = child.wait();
}

/// A UDP datagram of a command to a loopback port this test listens on, and one to a
/// Unix datagram socket in its directory (`logger -u`): the lines the command printed
/// and whether each arrived.
fn send_datagrams(families: &str) -> (String, bool, bool) {
    let dir = tempfile::tempdir().unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let port = udp.local_addr().unwrap().port();
    let unix_path = dir.path().join("log.sock");
    let unix = std::os::unix::net::UnixDatagram::bind(&unix_path).unwrap();
    unix.set_nonblocking(true).unwrap();
    let (_, envelope) = call(
        dir.path(),
        families,
        &format!(
            "out=$( (echo udp > /dev/udp/127.0.0.1/{port}) 2>&1); echo \"udp=$? $out\"; \
             logger -u {unix} unix; echo \"unix=$?\"",
            unix = unix_path.display()
        ),
    );
    let stdout = stdout_of(&envelope["structured"]);
    let mut buffer = [0u8; 512];
    let udp_arrived = udp.recv(&mut buffer).is_ok();
    let unix_arrived = unix.recv(&mut buffer).is_ok();
    (stdout, udp_arrived, unix_arrived)
}

#[test]
fn a_command_without_the_web_family_gets_unix_sockets_only() {
    if !can_run(&["logger"]) {
        return;
    }
    let (stdout, udp, unix) = send_datagrams("core_agent,local_environment");
    assert!(!udp, "a UDP datagram left without web: {stdout}");
    assert!(
        stdout.contains("Operation not permitted") && !stdout.contains("udp=0"),
        "{stdout}"
    );
    assert!(unix, "a Unix socket is reachable without web: {stdout}");
    let (stdout, udp, unix) = send_datagrams("all");
    assert!(udp && unix, "the web family sends both: {stdout}");
}

/// The sockets Python opens and the errno of each it cannot, one line each.
const SOCKET_PROBE: &str = "import socket
for name, args in [
    ('raw', (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)),
    ('ping', (socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)),
    ('raw6', (socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)),
    ('netlink', (socket.AF_NETLINK, socket.SOCK_RAW, 0)),
    ('unix', (socket.AF_UNIX, socket.SOCK_STREAM, 0)),
]:
    try:
        socket.socket(*args).close()
        print(name, 'open')
    except OSError as error:
        print(name, error.errno)
";

/// EPERM, as Python prints it.
const EPERM: &str = "1";

/// Raw ICMP and netlink, which only Python (not the shell) opens; with the web family
/// Python opens at least the netlink socket.
#[test]
fn a_command_without_the_web_family_gets_no_raw_icmp_or_netlink_socket() {
    if !can_run(&["python3"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("probe.py"), SOCKET_PROBE).unwrap();
    let (_, envelope) = call(
        dir.path(),
        "core_agent,local_environment",
        "python3 probe.py",
    );
    let stdout = stdout_of(&envelope["structured"]);
    for refused in ["raw", "ping", "raw6", "netlink"] {
        assert!(
            stdout
                .lines()
                .any(|line| line == format!("{refused} {EPERM}")),
            "{refused}: {envelope}"
        );
    }
    assert!(stdout.lines().any(|line| line == "unix open"), "{envelope}");
    let (_, envelope) = call(dir.path(), "all", "python3 probe.py");
    let stdout = stdout_of(&envelope["structured"]);
    assert!(
        stdout.lines().any(|line| line == "netlink open"),
        "{envelope}"
    );
}
