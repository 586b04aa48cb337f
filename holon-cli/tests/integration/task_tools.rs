//! The task tools (ListTasks, TaskStatus, TaskOutput, TaskInput, TaskStop) through
//! `registry.dispatch`, on real background processes.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::task_support::{alive, call, gone, runtime, text};
use holon_runtime::{Runtime, RuntimeConfig, STORE_FILE_NAME, Store};
use serde_json::{Value, json};

#[tokio::test]
async fn a_slow_command_becomes_a_background_task_and_stops_with_its_group() {
    let (runtime, _workspace) = runtime();
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "sleep 300 & echo $!; sleep 300", "yield_time_ms": 300}),
    )
    .await;
    let result = &envelope["structured"];
    assert_eq!(result["disposition"], "promoted_to_task", "{envelope}");
    assert_eq!(result["status"], "running");
    assert!(result["exit_status"].is_null());
    let handle = &result["task_handle"];
    assert_eq!(handle["kind"], "command");
    assert_eq!(handle["status"], "running");
    let task_id = text(&handle["task_id"]).to_string();
    assert!(result["initial_output_preview"].is_object());
    assert!(text(&envelope["receipt"]).contains(&format!("now background task {task_id}")));

    let listed = call(&runtime, "ListTasks", json!({})).await;
    let tasks = listed["structured"]["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 1, "{listed}");
    assert_eq!(tasks[0]["task_id"], task_id.as_str());
    assert_eq!(tasks[0]["status"], "running");
    assert_eq!(listed["structured"]["running_count"], 1);
    let leader = tasks[0]["pid"].as_u64().unwrap();

    // The background child's pid is the first line of output.
    let output = call(&runtime, "TaskOutput", json!({"task_id": task_id})).await;
    assert_eq!(
        output["structured"]["retrieval_status"], "success",
        "{output}"
    );
    let child: u64 = text(&output["structured"]["output"]["stdout"])
        .trim()
        .parse()
        .unwrap();
    assert!(alive(leader) && alive(child));

    let stopped = call(&runtime, "TaskStop", json!({"task_id": task_id})).await;
    assert_eq!(stopped["structured"]["stopped"], true, "{stopped}");
    assert_eq!(stopped["structured"]["task"]["status"], "stopped");
    assert!(!alive(leader), "the leader is reaped when TaskStop returns");
    assert!(gone(child), "the whole group is killed");

    let status = call(&runtime, "TaskStatus", json!({"task_id": task_id})).await;
    assert_eq!(status["structured"]["task"]["status"], "stopped");
    let again = call(&runtime, "TaskStop", json!({"task_id": task_id})).await;
    assert_eq!(again["structured"]["stopped"], false);
    assert!(text(&again["structured"]["reason"]).contains("already ended"));
}

#[tokio::test]
async fn task_stop_kills_what_an_ended_task_left_running() {
    let (runtime, _workspace) = runtime();
    let started = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "sleep 300 & echo $!", "yield_time_ms": 0}),
    )
    .await;
    let task_id = started["structured"]["task_handle"]["task_id"].clone();
    let output = call(&runtime, "TaskOutput", json!({"task_id": task_id})).await;
    let child: u64 = text(&output["structured"]["output"]["stdout"])
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = call(&runtime, "TaskStatus", json!({"task_id": task_id})).await;
        if status["structured"]["task"]["status"] == "completed" {
            break;
        }
        assert!(Instant::now() < deadline, "{status}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(alive(child), "the background job outlives the shell");
    let stopped = call(&runtime, "TaskStop", json!({"task_id": task_id})).await;
    assert_eq!(stopped["structured"]["stopped"], true, "{stopped}");
    assert_eq!(stopped["structured"]["task"]["status"], "completed");
    assert!(text(&stopped["structured"]["reason"]).contains("left running"));
    assert!(gone(child));
}

#[tokio::test]
async fn jobs_left_running_with_their_output_redirected_are_found_by_their_group() {
    let (runtime, _workspace) = runtime();
    let pid_of = |envelope: &Value| -> u64 {
        let stdout = text(&envelope["structured"]["output_preview"]["stdout"]);
        stdout
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{envelope}"))
    };
    let redirected = json!({"cmd": "sleep 300 > /dev/null 2>&1 & echo $!"});
    let done = call(&runtime, "ExecCommand", redirected.clone()).await;
    assert_eq!(done["structured"]["disposition"], "completed", "{done}");
    let job = pid_of(&done);
    assert!(alive(job));
    assert!(
        text(&done["structured"]["hint"]).contains("TaskStop"),
        "the result says a job was left running: {done}"
    );
    let task_id = done["structured"]["task_handle"]["task_id"].clone();
    let stopped = call(&runtime, "TaskStop", json!({"task_id": task_id})).await;
    assert_eq!(stopped["structured"]["stopped"], true, "{stopped}");
    assert!(gone(job));
    let again = call(&runtime, "TaskStop", json!({"task_id": task_id})).await;
    assert_eq!(
        again["structured"]["stopped"], false,
        "nothing is left: {again}"
    );

    // A job that left the group on purpose (its own session, field 6 of its stat,
    // which the command waits for): without a cgroup it is not the task's; in the
    // command's cgroup, which it cannot leave, it is, and ends with the runtime.
    let in_cgroup = runtime.tasks().launcher().cgroups().is_some();
    let detached = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "setsid sleep 300 > /dev/null 2>&1 < /dev/null & d=$!; \
                       until [ \"$(cut -d' ' -f6 /proc/$d/stat)\" = \"$d\" ]; do sleep 0.01; done; \
                       echo $d"}),
    )
    .await;
    let daemon = pid_of(&detached);
    assert_eq!(
        detached["structured"]["task_handle"].is_null(),
        !in_cgroup,
        "{detached}"
    );
    assert_eq!(
        text(&detached["structured"]["hint"]).contains("TaskStop"),
        in_cgroup,
        "{detached}"
    );

    // A runtime that goes away ends the jobs its tasks left in their groups.
    let left = pid_of(&call(&runtime, "ExecCommand", redirected).await);
    drop(runtime);
    assert!(gone(left), "the runtime's leftovers end with it");
    if in_cgroup {
        assert!(
            gone(daemon),
            "a job in the command's cgroup ends with the runtime"
        );
    } else {
        assert!(
            alive(daemon),
            "a process in its own session is not the runtime's"
        );
        let _ = std::process::Command::new("kill")
            .arg(daemon.to_string())
            .status();
    }
}

#[tokio::test]
async fn yield_zero_promotes_at_once_and_duplicates_are_reused() {
    let (runtime, _workspace) = runtime();
    let input = json!({"cmd": "sleep 300", "yield_time_ms": 0});
    let first = call(&runtime, "ExecCommand", input.clone()).await;
    assert_eq!(first["structured"]["disposition"], "promoted_to_task");
    let first_id = first["structured"]["task_handle"]["task_id"].clone();

    let second = call(&runtime, "ExecCommand", input.clone()).await;
    assert_eq!(
        second["structured"]["disposition"], "already_running",
        "{second}"
    );
    assert_eq!(second["structured"]["task_handle"]["task_id"], first_id);
    assert_eq!(second["structured"]["status"], "running");
    assert!(text(&second["structured"]["hint"]).contains("start_new"));

    let mut start_new = input.clone();
    start_new["duplicate_policy"] = json!("start_new");
    let third = call(&runtime, "ExecCommand", start_new).await;
    assert_eq!(third["structured"]["disposition"], "promoted_to_task");
    assert_ne!(third["structured"]["task_handle"]["task_id"], first_id);

    // Another directory is another command.
    let elsewhere = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "sleep 300", "yield_time_ms": 0, "workdir": "sub"}),
    )
    .await;
    assert_eq!(elsewhere["structured"]["disposition"], "promoted_to_task");

    let listed = call(&runtime, "TaskList", json!({"limit": 2})).await;
    assert_eq!(listed["tool_name"], "ListTasks");
    assert_eq!(listed["structured"]["tasks"].as_array().unwrap().len(), 2);
    assert_eq!(listed["structured"]["total_count"], 3);
    for task in [first, third, elsewhere] {
        let id = task["structured"]["task_handle"]["task_id"].clone();
        let stopped = call(&runtime, "TaskStop", json!({"task_id": id})).await;
        assert_eq!(stopped["structured"]["stopped"], true);
    }
}

#[tokio::test]
async fn input_reaches_stdin_and_terminals_only_when_accepted() {
    let (runtime, _workspace) = runtime();
    let reader = "read line; echo \"got $line\"";
    for extra in [json!({"accepts_input": true}), json!({"tty": true})] {
        let mut input = json!({"cmd": reader, "yield_time_ms": 0});
        input
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let started = call(&runtime, "ExecCommand", input).await;
        let task_id = started["structured"]["task_handle"]["task_id"].clone();
        let sent = call(
            &runtime,
            "TaskInput",
            json!({"task_id": task_id, "input": "hello\n"}),
        )
        .await;
        assert_eq!(sent["structured"]["accepted_input"], true, "{sent}");
        assert_eq!(sent["structured"]["bytes_written"], 6);
        let mut seen = String::new();
        for _ in 0..20 {
            let output = call(
                &runtime,
                "TaskOutput",
                json!({"task_id": task_id, "timeout_ms": 10_000}),
            )
            .await;
            seen.push_str(text(&output["structured"]["output"]["stdout"]));
            if output["structured"]["task"]["status"] != "running" {
                break;
            }
        }
        assert!(seen.contains("got hello"), "{seen}");
    }

    let started = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "sleep 300", "yield_time_ms": 0}),
    )
    .await;
    let task_id = started["structured"]["task_handle"]["task_id"].clone();
    let sent = call(
        &runtime,
        "TaskInput",
        json!({"task_id": task_id, "input": "x"}),
    )
    .await;
    assert_eq!(sent["status"], "success");
    assert_eq!(sent["structured"]["accepted_input"], false);
    assert!(text(&sent["structured"]["reason"]).contains("accepts_input"));
    call(&runtime, "TaskStop", json!({"task_id": task_id})).await;
    let sent = call(
        &runtime,
        "TaskInput",
        json!({"task_id": task_id, "input": "x"}),
    )
    .await;
    assert_eq!(sent["structured"]["accepted_input"], false);
    assert!(text(&sent["structured"]["reason"]).contains("ended"));

    // Closing stdin ends a reader waiting for end of file.
    let started = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "wc -l", "yield_time_ms": 0, "accepts_input": true}),
    )
    .await;
    let task_id = started["structured"]["task_handle"]["task_id"].clone();
    call(
        &runtime,
        "TaskInput",
        json!({"task_id": task_id, "input": "a\nb\n", "close_input": true}),
    )
    .await;
    let output = call(&runtime, "TaskOutput", json!({"task_id": task_id})).await;
    assert_eq!(
        text(&output["structured"]["output"]["stdout"]).trim(),
        "2",
        "{output}"
    );
}

#[tokio::test]
async fn task_output_waits_reports_timeouts_and_reads_incrementally() {
    let (runtime, _workspace) = runtime();
    let started = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "echo first; read go; echo second", "yield_time_ms": 0, "accepts_input": true}),
    )
    .await;
    let task_id = started["structured"]["task_handle"]["task_id"].clone();
    let output = call(&runtime, "TaskOutput", json!({"task_id": task_id})).await;
    assert_eq!(output["structured"]["retrieval_status"], "success");
    assert_eq!(output["structured"]["output"]["stdout"], "first\n");

    let output = call(
        &runtime,
        "TaskOutput",
        json!({"task_id": task_id, "block": false}),
    )
    .await;
    assert_eq!(
        output["structured"]["retrieval_status"], "not_ready",
        "{output}"
    );
    assert!(output["structured"]["output"].is_null());
    let output = call(
        &runtime,
        "TaskOutput",
        json!({"task_id": task_id, "timeout_ms": 100}),
    )
    .await;
    assert_eq!(
        output["structured"]["retrieval_status"], "timeout",
        "{output}"
    );

    call(
        &runtime,
        "TaskInput",
        json!({"task_id": task_id, "input": "\n"}),
    )
    .await;
    let mut seen = String::new();
    let mut last = Value::Null;
    for _ in 0..20 {
        last = call(&runtime, "TaskOutput", json!({"task_id": task_id})).await;
        seen.push_str(text(&last["structured"]["output"]["stdout"]));
        if last["structured"]["task"]["status"] != "running" {
            break;
        }
    }
    assert_eq!(seen, "second\n");
    assert_eq!(last["structured"]["task"]["status"], "completed");
    assert_eq!(last["structured"]["task"]["exit_status"], 0);

    let envelope = call(&runtime, "TaskOutput", json!({"task_id": "task-999"})).await;
    assert_eq!(envelope["error"]["kind"], "unknown_task");
    assert_eq!(envelope["error"]["field"], "task_id");
    let envelope = call(&runtime, "TaskStatus", json!({"task_id": "nonsense"})).await;
    assert_eq!(envelope["error"]["kind"], "unknown_task");
}

#[tokio::test]
async fn a_reopened_runtime_reports_lost_tasks_as_interrupted() {
    let workspace = tempfile::tempdir().unwrap();
    let state = workspace.path().join("state");
    let config = || config_with_state_dir(workspace.path(), &state);
    let first = Runtime::open(config()).unwrap();
    let started = call(
        &first,
        "ExecCommand",
        json!({"cmd": "sleep 300", "yield_time_ms": 0}),
    )
    .await;
    let task_id = started["structured"]["task_handle"]["task_id"].clone();
    let log = text(&started["structured"]["stdout_log"]).to_string();
    assert!(
        Path::new(&log).starts_with(&state),
        "logs live under the state dir: {log}"
    );
    let status = call(&first, "TaskStatus", json!({"task_id": task_id})).await;
    let pid = status["structured"]["task"]["pid"].as_u64().unwrap();

    // A second runtime next to a live one leaves its tasks alone.
    let second = Runtime::open(config()).unwrap();
    let status = call(&second, "TaskStatus", json!({"task_id": task_id})).await;
    assert_eq!(status["structured"]["task"]["status"], "running");
    let stop = call(&second, "TaskStop", json!({"task_id": task_id})).await;
    assert_eq!(stop["structured"]["stopped"], false);
    drop(second);

    drop(first);
    assert!(gone(pid), "a runtime that goes away kills its tasks");
    let reopened = Runtime::open(config()).unwrap();
    let listed = call(&reopened, "ListTasks", json!({})).await;
    let task = &listed["structured"]["tasks"][0];
    assert_eq!(task["task_id"], task_id);
    assert_eq!(task["status"], "interrupted", "{listed}");
    assert!(text(&task["reason"]).contains("shut down"));
    assert_eq!(listed["structured"]["running_count"], 0);
    let output = call(&reopened, "TaskOutput", json!({"task_id": task_id})).await;
    assert_eq!(output["structured"]["retrieval_status"], "success");
    let sent = call(
        &reopened,
        "TaskInput",
        json!({"task_id": task_id, "input": "x"}),
    )
    .await;
    assert_eq!(sent["structured"]["accepted_input"], false);
}

#[tokio::test]
async fn a_runtime_opens_while_another_connection_is_writing_its_store() {
    // The reaper thread of a runtime just dropped may still be writing a task's exit
    // when the next runtime opens the same store: opening waits for the lock instead
    // of failing with "database is locked".
    let workspace = tempfile::tempdir().unwrap();
    let state = workspace.path().join("state");
    let config = || config_with_state_dir(workspace.path(), &state);
    drop(Runtime::open(config()).unwrap());
    let writer = Store::open(&state.join(STORE_FILE_NAME)).unwrap();
    let (locked, is_locked) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        let connection = writer.connection();
        connection
            .execute_batch("BEGIN IMMEDIATE; UPDATE workspace_bindings SET path = path;")
            .unwrap();
        locked.send(()).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        connection.execute_batch("COMMIT").unwrap();
    });
    is_locked.recv().unwrap();
    let runtime = Runtime::open(config());
    holder.join().unwrap();
    let runtime = runtime.unwrap();
    let listed = call(&runtime, "ListTasks", json!({})).await;
    assert_eq!(listed["structured"]["running_count"], 0, "{listed}");
}

#[tokio::test]
async fn the_logs_of_old_tasks_are_removed_at_start_and_their_records_stay() {
    let workspace = tempfile::tempdir().unwrap();
    let open = |retention: Option<Duration>| {
        let mut config = holon_tool_fixtures::runtime::config_with_state_in(workspace.path());
        config.task_log_retention = retention;
        Runtime::open(config).unwrap()
    };
    let runtime = open(None);
    let done = call(&runtime, "ExecCommand", json!({"cmd": "echo kept"})).await;
    assert_eq!(done["structured"]["status"], "completed", "{done}");
    let log = Path::new(text(&done["structured"]["stdout_log"]));
    let task_id = log
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    drop(runtime);

    // Within the retention, a new runtime keeps the logs.
    let runtime = open(Some(Duration::from_secs(3600)));
    assert!(log.is_file());
    let output = call(&runtime, "TaskOutput", json!({"task_id": task_id})).await;
    assert!(
        text(&output["structured"]["output"]["stdout"]).contains("kept"),
        "{output}"
    );
    drop(runtime);

    // Past it, the logs go; the record and its exit status stay.
    std::thread::sleep(Duration::from_millis(5));
    let runtime = open(Some(Duration::ZERO));
    assert!(!log.exists(), "the log is removed");
    assert!(!log.parent().unwrap().exists(), "with its folder");
    let status = call(&runtime, "TaskStatus", json!({"task_id": task_id})).await;
    let task = &status["structured"]["task"];
    assert_eq!(task["exit_status"], 0, "{status}");
    assert!(
        task["logs_removed_at_unix_ms"].as_u64().is_some(),
        "{status}"
    );
    let output = call(&runtime, "TaskOutput", json!({"task_id": task_id})).await;
    assert_eq!(output["error"]["kind"], "task_logs_removed", "{output}");
    assert!(text(&output["error"]["recovery_hint"]).contains("TaskStatus"));
}

/// A runtime on `workspace` that keeps its store and logs in `state`, so that several
/// runtimes can open the same ones in turn.
fn config_with_state_dir(workspace: &Path, state: &Path) -> RuntimeConfig {
    let mut config = holon_tool_fixtures::runtime::config_with_state_in(workspace);
    config.state_dir = Some(state.to_path_buf());
    config
}

/// A job started with `nohup ... &` and its output redirected, then one more
/// ExecCommand: the first task still owns the job, TaskStop ends it, and a runtime
/// that goes away takes it along.
#[tokio::test]
async fn a_redirected_background_job_stays_its_tasks_after_another_command() {
    for stop in [true, false] {
        let (runtime, _workspace) = runtime();
        let envelope = call(
            &runtime,
            "ExecCommand",
            json!({"cmd": "nohup sleep 1000 >/dev/null 2>&1 & echo $!"}),
        )
        .await;
        let result = &envelope["structured"];
        let pid: u64 = text(&result["output_preview"]["stdout"])
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{envelope}"));
        let task_id = text(&result["task_handle"]["task_id"]).to_string();
        assert!(!task_id.is_empty(), "the job is the task's: {envelope}");
        // The first task has settled: the next launch used to drop it from the live ones.
        let next = call(&runtime, "ExecCommand", json!({"cmd": "true"})).await;
        assert_eq!(next["structured"]["exit_status"], 0, "{next}");
        if stop {
            let stopped = call(&runtime, "TaskStop", json!({"task_id": task_id})).await;
            assert_eq!(stopped["structured"]["stopped"], true, "{stopped}");
        } else {
            drop(runtime);
        }
        assert!(
            gone(pid),
            "the job outlived {}",
            if stop { "TaskStop" } else { "the runtime" }
        );
    }
}

/// `call` says that the background task it started ends with it.
#[test]
fn call_says_its_background_task_ends_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let output = crate::cli_support::holon(
        dir.path(),
        &[
            "call",
            "ExecCommand",
            r#"{"cmd": "sleep 30", "yield_time_ms": 100}"#,
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("background as task-1"), "{stdout}");
    assert!(
        stdout.contains("note: task-1 ends now, with this `call`"),
        "{stdout}"
    );
}
