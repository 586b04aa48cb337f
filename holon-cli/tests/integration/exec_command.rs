//! ExecCommand and ExecCommandBatch through `registry.dispatch`, on real processes.

use crate::task_support::{call, runtime, text};
use holon_core::Registry;
use serde_json::{Value, json};

#[tokio::test]
async fn a_finished_command_reports_exit_status_previews_and_logs() {
    let (runtime, _workspace) = runtime();
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "echo out; echo err >&2; exit 3"}),
    )
    .await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    let result = &envelope["structured"];
    assert_eq!(result["disposition"], "completed");
    assert_eq!(result["status"], "failed");
    assert_eq!(result["exit_status"], 3);
    assert_eq!(result["output_preview"]["stdout"], "out\n");
    assert_eq!(result["output_preview"]["stderr"], "err\n");
    assert_eq!(result["output_preview"]["cut_bytes"], 0);
    assert!(result["task_handle"].is_null());
    let stdout_log = text(&result["stdout_log"]);
    assert_eq!(std::fs::read_to_string(stdout_log).unwrap(), "out\n");
    let artifacts = envelope["artifacts"].as_array().unwrap();
    assert_eq!(artifacts[0]["path"], stdout_log);
    assert_eq!(artifacts[0]["role"], "stdout");
    assert_eq!(artifacts[1]["role"], "stderr");

    let receipt = text(&envelope["receipt"]);
    assert!(receipt.starts_with("exit code 3 after "), "{receipt}");
    let stdout_at = receipt.find("stdout:\nout").unwrap();
    let stderr_at = receipt.find("stderr:\nerr").unwrap();
    assert!(stdout_at < stderr_at, "{receipt}");

    let envelope = call(&runtime, "ExecCommand", json!({"cmd": "true"})).await;
    assert_eq!(envelope["structured"]["status"], "completed");
    assert_eq!(envelope["structured"]["exit_status"], 0);
    assert!(text(&envelope["receipt"]).contains("stdout: (empty)"));
}

#[tokio::test]
async fn long_output_keeps_head_and_tail_within_the_budget() {
    let (runtime, _workspace) = runtime();
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "seq 1 100000", "max_output_tokens": 100}),
    )
    .await;
    let preview = &envelope["structured"]["output_preview"];
    let stdout = text(&preview["stdout"]);
    assert!(stdout.starts_with("1\n2\n3\n"), "{stdout}");
    assert!(stdout.ends_with("99999\n100000\n"), "{stdout}");
    assert!(stdout.contains("bytes of stdout cut here"), "{stdout}");
    assert!(stdout.len() < 400 + 100, "{}", stdout.len());
    let total = preview["stdout_bytes"].as_u64().unwrap();
    assert!(preview["cut_bytes"].as_u64().unwrap() >= total - 400);
    let log = std::fs::read_to_string(text(&envelope["structured"]["stdout_log"])).unwrap();
    assert_eq!(log.len() as u64, total);
    assert!(log.ends_with("100000\n"));

    // The budget is capped: asking for more than 64,000 tokens is not an error.
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "echo capped", "max_output_tokens": 10_000_000}),
    )
    .await;
    assert_eq!(
        envelope["structured"]["output_preview"]["stdout"],
        "capped\n"
    );
}

#[tokio::test]
async fn result_fields_are_never_valid_input() {
    let (runtime, _workspace) = runtime();
    for field in [
        "status",
        "task_handle",
        "disposition",
        "exit_status",
        "output_preview",
    ] {
        let mut input = json!({"cmd": "true"});
        input[field] = json!(null);
        let envelope = call(&runtime, "ExecCommand", input).await;
        let error = &envelope["error"];
        assert_eq!(error["kind"], "result_field_in_input", "{envelope}");
        assert_eq!(error["field"], field);
        assert!(text(&error["message"]).contains("result"), "{error}");
        assert!(text(&error["message"]).contains(field), "{error}");
    }
}

#[tokio::test]
async fn exec_command_and_batch_accept_different_fields() {
    let (runtime, _workspace) = runtime();
    for field in ["items", "stop_on_error"] {
        let mut input = json!({"cmd": "true"});
        input[field] = json!(true);
        let envelope = call(&runtime, "ExecCommand", input).await;
        assert_eq!(envelope["error"]["kind"], "unknown_field", "{envelope}");
        assert_eq!(envelope["error"]["field"], field);
    }
    for field in ["tty", "accepts_input", "duplicate_policy"] {
        let mut item = json!({"cmd": "true"});
        item[field] = json!(true);
        let envelope = call(&runtime, "ExecCommandBatch", json!({"items": [item]})).await;
        assert_eq!(envelope["error"]["kind"], "unknown_field", "{envelope}");
        assert_eq!(envelope["error"]["field"], format!("items[0].{field}"));

        let mut input = json!({"items": [{"cmd": "true"}]});
        input[field] = json!(true);
        let envelope = call(&runtime, "ExecCommandBatch", input).await;
        assert_eq!(envelope["error"]["kind"], "unknown_field", "{envelope}");
        assert_eq!(envelope["error"]["field"], field);
    }
    let envelope = call(&runtime, "ExecCommand", json!({"cmd": ""})).await;
    assert_eq!(envelope["error"]["kind"], "invalid_tool_input");
    assert_eq!(envelope["error"]["field"], "cmd");
    let envelope = call(&runtime, "ExecCommand", json!({"cmd": "  "})).await;
    assert_eq!(envelope["error"]["field"], "cmd", "{envelope}");
    let envelope = call(&runtime, "ExecCommand", json!({})).await;
    assert_eq!(envelope["error"]["field"], "cmd");
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "true", "yield_time_ms": 600_001}),
    )
    .await;
    assert_eq!(envelope["error"]["field"], "yield_time_ms", "{envelope}");
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "true", "duplicate_policy": "reuse"}),
    )
    .await;
    assert_eq!(envelope["error"]["field"], "duplicate_policy", "{envelope}");
}

#[tokio::test]
async fn workdir_must_stay_inside_the_workspace() {
    let (runtime, workspace) = runtime();
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "pwd", "workdir": "sub"}),
    )
    .await;
    let root = workspace.path().canonicalize().unwrap();
    assert_eq!(
        envelope["structured"]["output_preview"]["stdout"],
        format!("{}\n", root.join("sub").display())
    );
    let absolute = root.join("sub").display().to_string();
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "pwd", "workdir": absolute}),
    )
    .await;
    assert_eq!(envelope["structured"]["status"], "completed", "{envelope}");

    for workdir in ["..", "/etc", "sub/../../x"] {
        let envelope = call(
            &runtime,
            "ExecCommand",
            json!({"cmd": "pwd", "workdir": workdir}),
        )
        .await;
        assert_eq!(
            envelope["error"]["kind"], "workdir_outside_workspace",
            "{workdir}: {envelope}"
        );
        assert_eq!(envelope["error"]["field"], "workdir");
    }
    let envelope = call(
        &runtime,
        "ExecCommandBatch",
        json!({"items": [{"cmd": "pwd"}, {"cmd": "pwd", "workdir": "/"}]}),
    )
    .await;
    assert_eq!(envelope["error"]["kind"], "workdir_outside_workspace");
    assert_eq!(envelope["error"]["field"], "items[1].workdir");
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "pwd", "workdir": "missing"}),
    )
    .await;
    assert_eq!(envelope["error"]["kind"], "workdir_not_found");
    let envelope = call(
        &runtime,
        "ExecCommand",
        json!({"cmd": "true", "shell": "no-such-shell-here"}),
    )
    .await;
    assert_eq!(envelope["error"]["kind"], "shell_not_found", "{envelope}");
    assert_eq!(envelope["error"]["field"], "shell");
}

#[tokio::test]
async fn tty_runs_under_a_real_terminal() {
    let (runtime, _workspace) = runtime();
    let probe = "if test -t 0 && test -t 1; then echo is-a-tty; else echo no-tty; fi";
    let envelope = call(&runtime, "ExecCommand", json!({"cmd": probe, "tty": true})).await;
    let result = &envelope["structured"];
    assert_eq!(result["status"], "completed", "{envelope}");
    assert!(
        text(&result["output_preview"]["stdout"]).contains("is-a-tty"),
        "{envelope}"
    );
    assert!(result["stderr_log"].is_null());
    assert!(
        text(&envelope["receipt"]).contains("terminal:\n"),
        "{envelope}"
    );

    let envelope = call(&runtime, "ExecCommand", json!({"cmd": probe})).await;
    assert_eq!(
        envelope["structured"]["output_preview"]["stdout"],
        "no-tty\n"
    );
}

#[tokio::test]
async fn a_batch_runs_in_order_with_defaults_timeouts_and_stop_on_error() {
    let (runtime, workspace) = runtime();
    let root = workspace.path().canonicalize().unwrap();
    let envelope = call(
        &runtime,
        "ExecCommandBatch",
        json!({
            "workdir": "sub",
            "items": [
                {"cmd": "pwd"},
                {"cmd": "echo bad >&2; exit 2", "workdir": "."},
                {"cmd": "sleep 300", "yield_time_ms": 200},
                {"cmd": "echo last"},
            ],
        }),
    )
    .await;
    assert_eq!(envelope["status"], "success", "{envelope}");
    let result = &envelope["structured"];
    assert_eq!(
        result["counts"],
        json!({"completed": 2, "failed": 1, "skipped": 0, "timed_out": 1})
    );
    let items = result["results"].as_array().unwrap();
    assert_eq!(items.len(), 4);
    for (index, item) in items.iter().enumerate() {
        assert_eq!(item["index"], index);
    }
    assert_eq!(
        items[0]["output_preview"]["stdout"],
        format!("{}\n", root.join("sub").display())
    );
    assert_eq!(items[1]["status"], "failed");
    assert_eq!(items[1]["exit_status"], 2);
    assert_eq!(items[1]["output_preview"]["stderr"], "bad\n");
    assert_eq!(items[2]["status"], "timed_out");
    assert_eq!(items[2]["cmd"], "sleep 300");
    assert_eq!(items[3]["status"], "completed");
    assert!(items[3]["duration_ms"].is_u64());
    let receipt = text(&envelope["receipt"]);
    assert!(
        receipt.contains("[1] $ echo bad >&2; exit 2\nexit code 2"),
        "{receipt}"
    );
    assert!(receipt.contains("timed out"), "{receipt}");
    // A batch leaves no background task.
    let listed = call(&runtime, "ListTasks", json!({})).await;
    assert_eq!(listed["structured"]["total_count"], 0);

    let envelope = call(
        &runtime,
        "ExecCommandBatch",
        json!({
            "stop_on_error": true,
            "items": [{"cmd": "true"}, {"cmd": "false"}, {"cmd": "echo never"}],
        }),
    )
    .await;
    let result = &envelope["structured"];
    assert_eq!(
        result["counts"],
        json!({"completed": 1, "failed": 1, "skipped": 1, "timed_out": 0})
    );
    assert_eq!(result["results"][2]["status"], "skipped");
    assert!(result["results"][2]["output_preview"].is_null());
}

#[tokio::test]
async fn batch_and_list_bounds_are_in_the_schema() {
    let (runtime, _workspace) = runtime();
    let too_many: Vec<Value> = (0..13).map(|_| json!({"cmd": "true"})).collect();
    for items in [json!([]), json!(too_many)] {
        let envelope = call(&runtime, "ExecCommandBatch", json!({"items": items})).await;
        assert_eq!(
            envelope["error"]["kind"], "invalid_tool_input",
            "{envelope}"
        );
        assert_eq!(envelope["error"]["field"], "items");
    }
    let envelope = call(
        &runtime,
        "ExecCommandBatch",
        json!({"items": [{"cmd": "true", "yield_time_ms": 0}]}),
    )
    .await;
    assert_eq!(
        envelope["error"]["field"], "items[0].yield_time_ms",
        "{envelope}"
    );
    for limit in [0, 101] {
        let envelope = call(&runtime, "ListTasks", json!({"limit": limit})).await;
        assert_eq!(envelope["error"]["kind"], "invalid_tool_input");
        assert_eq!(envelope["error"]["field"], "limit");
    }
    let schema = &Registry::global()
        .get("ExecCommandBatch")
        .unwrap()
        .spec
        .input_schema;
    assert_eq!(schema["properties"]["items"]["minItems"], 1);
    assert_eq!(schema["properties"]["items"]["maxItems"], 12);
    let schema = &Registry::global()
        .get("ListTasks")
        .unwrap()
        .spec
        .input_schema;
    assert_eq!(schema["properties"]["limit"]["maximum"], 100);
    let inventory = holon_lint::inventory(Registry::global());
    assert!(
        !inventory.to_string().contains("\"TaskList\""),
        "aliases are never advertised"
    );
}
