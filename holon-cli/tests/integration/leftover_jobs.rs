//! The jobs a SIGKILLed runtime's commands left running (`setsid`, `nohup`, a double
//! fork) are ended by the next runtime that starts: their cgroups outlive the runtime,
//! and the next one sweeps them. Against `call`, `session` and `serve`. A background
//! task still running is spared by the sweep, and TaskStop ends it with its jobs.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cli_support::holon_command;
use crate::process_gate::cgroups_enforced;
use crate::serve::{handshake, lines, response, send, spawn_stdio};

/// A guard against a hang only: what is tested happens long before.
const HANG: Duration = Duration::from_secs(60);

/// Starts three jobs that leave the command behind, each a different way, and writes
/// their pids to `jobs`, one a line, once all three run.
const JOBS: &str = "setsid sleep 1000 >/dev/null 2>&1 & a=$!; \
                    nohup sleep 1000 >/dev/null 2>&1 & b=$!; \
                    ( sleep 1000 >/dev/null 2>&1 & echo $! > double ); \
                    printf '%s\\n%s\\n%s\\n' $a $b $(cat double) > jobs.tmp && mv jobs.tmp jobs";

/// A background task's command: a `setsid` job (out of the task's process group),
/// then the leader runs on; writes the leader's pid and the job's to `task-pids`.
const TASK: &str = "setsid sleep 1000 >/dev/null 2>&1 & j=$!; \
                    printf '%s\\n%s\\n' $$ $j > task.tmp && mv task.tmp task-pids; sleep 300";

/// The pids a command wrote to `file` in `workspace`, once written (bounded wait).
fn pids_in(workspace: &Path, file: &str) -> Vec<u32> {
    let deadline = Instant::now() + HANG;
    loop {
        if let Ok(text) = std::fs::read_to_string(workspace.join(file)) {
            return text.lines().map(|line| line.parse().unwrap()).collect();
        }
        assert!(Instant::now() < deadline, "the command never wrote {file}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The job pids of `JOBS` in `workspace`, once written (bounded wait).
fn job_pids(workspace: &Path) -> Vec<u32> {
    pids_in(workspace, "jobs")
}

/// Whether `pid` is a live (not zombie) `sleep`, or `sh` (a task's leader).
fn is_running_sleep(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some((name, rest)) = stat.split_once(") ") else {
        return false;
    };
    (name.ends_with("(sleep") || name.ends_with("(sh")) && !rest.starts_with('Z')
}

/// Waits (bounded) until none of `pids` runs; those still running.
fn still_running_after_wait(pids: &[u32]) -> Vec<u32> {
    let deadline = Instant::now() + HANG;
    while pids.iter().any(|pid| is_running_sleep(*pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    pids.iter()
        .copied()
        .filter(|pid| is_running_sleep(*pid))
        .collect()
}

/// Kills the jobs still running when a test ends, so that a failure leaves nothing.
struct Jobs(Vec<u32>);

impl Drop for Jobs {
    fn drop(&mut self) {
        for pid in self.0.iter().filter(|pid| is_running_sleep(**pid)) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

/// SIGKILLs `runtime` once its command's jobs run, checks that they outlived it,
/// starts the next runtime on the same state directory, and waits (bounded) for the
/// jobs to be gone.
fn kill_and_restart(workspace: &Path, mut runtime: Child) {
    let jobs = Jobs(job_pids(workspace));
    assert_eq!(jobs.0.len(), 3, "{:?}", jobs.0);
    runtime.kill().unwrap();
    runtime.wait().unwrap();
    assert!(
        jobs.0.iter().all(|pid| is_running_sleep(*pid)),
        "the jobs outlive the SIGKILLed runtime until the next one starts: {:?}",
        jobs.0
    );
    let next = holon_command(workspace)
        .args(["--policy", "none", "call", "--json", "ExecCommand"])
        .arg(json!({"cmd": "true"}).to_string())
        .output()
        .unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    let left = still_running_after_wait(&jobs.0);
    assert!(
        left.is_empty(),
        "the next runtime left the dead one's jobs running: {left:?}"
    );
}

#[test]
fn the_jobs_of_a_killed_call_are_ended_by_the_next_runtime() {
    if !cgroups_enforced(&[]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Killed while the command still runs, after its jobs started.
    let input = json!({"cmd": format!("{JOBS}; sleep 1000"), "yield_time_ms": 600_000});
    let runtime = holon_command(dir.path())
        .args(["--policy", "none", "call", "--json", "ExecCommand"])
        .arg(input.to_string())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    kill_and_restart(dir.path(), runtime);
}

#[test]
fn the_jobs_of_a_finished_command_of_a_killed_session_are_ended_by_the_next_runtime() {
    if !cgroups_enforced(&[]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut command = holon_command(dir.path());
    command.args(["--policy", "none", "session"]);
    let mut runtime = spawn_stdio(command);
    let mut stdin = runtime.stdin.take().unwrap();
    let stdout = lines(runtime.stdout.take().unwrap());
    let call = json!({"name": "ExecCommand", "input": {"cmd": JOBS, "yield_time_ms": 2000}});
    writeln!(stdin, "{call}").unwrap();
    let line = stdout.recv_timeout(HANG).expect("the session answers");
    let envelope: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(envelope["status"], "success", "{envelope}");
    kill_and_restart(dir.path(), runtime);
}

#[test]
fn the_jobs_of_a_finished_command_of_a_killed_server_are_ended_by_the_next_runtime() {
    if !cgroups_enforced(&[]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut command = holon_command(dir.path());
    command.args(["--policy", "none", "serve", "--families", "all"]);
    let mut runtime = spawn_stdio(command);
    let mut stdin = runtime.stdin.take().unwrap();
    let stdout = lines(runtime.stdout.take().unwrap());
    handshake(&mut stdin, &stdout);
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ExecCommand", "arguments": {"cmd": JOBS, "yield_time_ms": 2000},
        }}),
    );
    let answer = response(&stdout, 2);
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    kill_and_restart(dir.path(), runtime);
}

/// The answer of `holon-tools call <tool> <input> --json` on `workspace`.
fn call_in(workspace: &Path, tool: &str, input: Value) -> Value {
    let output = holon_command(workspace)
        .args(["--policy", "none", "call", "--json", tool])
        .arg(input.to_string())
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn a_background_task_of_a_killed_session_is_spared_and_task_stop_ends_it_with_its_jobs() {
    if !cgroups_enforced(&[]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut command = holon_command(dir.path());
    command.args(["--policy", "none", "session"]);
    let mut runtime = spawn_stdio(command);
    let mut stdin = runtime.stdin.take().unwrap();
    let stdout = lines(runtime.stdout.take().unwrap());
    let mut ask = |input: Value| {
        writeln!(stdin, "{}", json!({"name": "ExecCommand", "input": input})).unwrap();
        let line = stdout.recv_timeout(HANG).expect("the session answers");
        serde_json::from_str::<Value>(&line).unwrap()
    };
    let started = ask(json!({"cmd": TASK, "yield_time_ms": 0}));
    assert_eq!(
        started["structured"]["task_handle"]["task_id"], "task-1",
        "{started}"
    );
    let task = Jobs(pids_in(dir.path(), "task-pids"));
    // A finished command's jobs, beside the task: the sweep must still end those.
    let finished = ask(json!({"cmd": JOBS, "yield_time_ms": 2000}));
    assert_eq!(finished["status"], "success", "{finished}");
    kill_and_restart(dir.path(), runtime);
    assert!(
        task.0.iter().all(|pid| is_running_sleep(*pid)),
        "the sweep ended the running background task (leader, its setsid job): {:?}",
        task.0
    );
    let status = call_in(dir.path(), "TaskStatus", json!({"task_id": "task-1"}));
    assert_eq!(
        status["structured"]["task"]["status"], "running",
        "{status}"
    );
    let stop = call_in(dir.path(), "TaskStop", json!({"task_id": "task-1"}));
    assert_eq!(stop["structured"]["stopped"], true, "{stop}");
    let left = still_running_after_wait(&task.0);
    assert!(
        left.is_empty(),
        "TaskStop left the task's leader or its setsid job running: {left:?} of {:?}",
        task.0
    );
}

#[test]
fn a_runtime_of_another_state_directory_leaves_a_killed_runtimes_jobs_alone() {
    if !cgroups_enforced(&[]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let mut command = holon_command(dir.path());
    command.args(["--policy", "none", "session"]);
    let mut runtime = spawn_stdio(command);
    let mut stdin = runtime.stdin.take().unwrap();
    let stdout = lines(runtime.stdout.take().unwrap());
    let call = json!({"name": "ExecCommand", "input": {"cmd": JOBS, "yield_time_ms": 2000}});
    writeln!(stdin, "{call}").unwrap();
    let line = stdout.recv_timeout(HANG).expect("the session answers");
    let envelope: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(envelope["status"], "success", "{envelope}");
    let jobs = Jobs(job_pids(dir.path()));
    runtime.kill().unwrap();
    runtime.wait().unwrap();
    // Its store does not know the dead runtime's cgroups: they are not its to judge.
    let answer = call_in(other.path(), "ExecCommand", json!({"cmd": "true"}));
    assert_eq!(answer["status"], "success", "{answer}");
    assert!(
        jobs.0.iter().all(|pid| is_running_sleep(*pid)),
        "a runtime of another state directory ended the jobs: {:?}",
        jobs.0
    );
    // The dead runtime's own state directory: its next runtime ends them.
    let answer = call_in(dir.path(), "ExecCommand", json!({"cmd": "true"}));
    assert_eq!(answer["status"], "success", "{answer}");
    let left = still_running_after_wait(&jobs.0);
    assert!(left.is_empty(), "{left:?}");
}
