//! The text receipts of the command tools: what a model reads first. The exit code,
//! then stdout, then stderr, then where the whole output is when the receipt does not
//! show all of it; the envelope's `structured` keeps every field.

use std::fmt::Write;

use super::exec_command::{Disposition, ExecCommandResult};
use super::exec_command_batch::{BatchItemStatus, ExecCommandBatchResult};
use holon_runtime::tasks::OutputPreview;

/// The receipt of ExecCommand.
pub fn exec_command(result: &ExecCommandResult) -> String {
    let mut out = String::new();
    let terminal = result.stderr_log.is_none();
    match result.disposition {
        Disposition::Completed => {
            let _ = write!(out, "{}", exit_line(result.exit_status, result.signal));
            let _ = writeln!(out, " after {} ms", result.duration_ms);
            if let Some(preview) = &result.output_preview {
                streams(&mut out, preview, terminal);
            }
        }
        Disposition::PromotedToTask => {
            if let Some(handle) = &result.task_handle {
                let _ = writeln!(
                    out,
                    "still running after {} ms: now background task {}",
                    result.duration_ms, handle.task_id
                );
            }
            if let Some(preview) = &result.initial_output_preview {
                out.push_str("output so far:\n");
                streams(&mut out, preview, terminal);
            }
        }
        Disposition::AlreadyRunning => {
            if let Some(handle) = &result.task_handle {
                let _ = writeln!(
                    out,
                    "already running as {} (for {} ms); nothing new was started",
                    handle.task_id, result.duration_ms
                );
            }
        }
    }
    // The paths matter when the receipt does not show everything: a cut preview, or
    // output still to come.
    let cut = [&result.output_preview, &result.initial_output_preview]
        .into_iter()
        .flatten()
        .any(|preview| preview.cut_bytes > 0);
    if cut || result.disposition != Disposition::Completed {
        logs(
            &mut out,
            Some(&result.stdout_log),
            result.stderr_log.as_deref(),
        );
    }
    if let Some(hint) = &result.hint {
        let _ = writeln!(out, "hint: {hint}");
    }
    finish(out)
}

/// The receipt of ExecCommandBatch.
pub fn exec_command_batch(result: &ExecCommandBatchResult) -> String {
    let counts = &result.counts;
    let mut out = format!(
        "{} items in {} ms: {} completed, {} failed, {} timed out, {} skipped\n",
        result.results.len(),
        result.duration_ms,
        counts.completed,
        counts.failed,
        counts.timed_out,
        counts.skipped
    );
    for item in &result.results {
        let _ = write!(out, "\n[{}] $ {}\n", item.index, item.cmd);
        match item.status {
            BatchItemStatus::Skipped => out.push_str("skipped\n"),
            BatchItemStatus::TimedOut => {
                let _ = writeln!(out, "timed out: killed after {} ms", item.duration_ms);
            }
            BatchItemStatus::Completed | BatchItemStatus::Failed => {
                if item.exit_status.is_some() {
                    let _ = writeln!(
                        out,
                        "{} after {} ms",
                        exit_line(item.exit_status, None),
                        item.duration_ms
                    );
                } else {
                    out.push_str("failed\n");
                }
            }
        }
        if let Some(error) = &item.error {
            let _ = writeln!(out, "error: {error}");
        }
        if let Some(preview) = &item.output_preview {
            streams(&mut out, preview, false);
            if preview.cut_bytes > 0 {
                logs(
                    &mut out,
                    item.stdout_log.as_deref(),
                    item.stderr_log.as_deref(),
                );
            }
        }
    }
    finish(out)
}

fn exit_line(exit_status: Option<i32>, signal: Option<i32>) -> String {
    match (exit_status, signal) {
        (Some(status), Some(signal)) => format!("exit code {status} (killed by signal {signal})"),
        (Some(status), None) => format!("exit code {status}"),
        (None, _) => "exited".to_string(),
    }
}

fn streams(out: &mut String, preview: &OutputPreview, terminal: bool) {
    if terminal {
        block(out, "terminal", &preview.stdout);
    } else {
        block(out, "stdout", &preview.stdout);
        block(out, "stderr", &preview.stderr);
    }
}

fn block(out: &mut String, name: &str, text: &str) {
    if text.is_empty() {
        let _ = writeln!(out, "{name}: (empty)");
        return;
    }
    let _ = writeln!(out, "{name}:");
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

fn logs(out: &mut String, stdout: Option<&str>, stderr: Option<&str>) {
    match (stdout, stderr) {
        (Some(stdout), Some(stderr)) => {
            let _ = writeln!(out, "full output: {stdout} (stdout), {stderr} (stderr)");
        }
        (Some(stdout), None) => {
            let _ = writeln!(out, "full output: {stdout}");
        }
        _ => {}
    }
}

fn finish(mut out: String) -> String {
    while out.ends_with('\n') {
        out.pop();
    }
    out
}
