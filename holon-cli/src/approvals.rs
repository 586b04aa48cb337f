//! `holon-tools approvals`: the operator's side of the approval policy. List and show
//! the calls the policy asked about; approve one (the signed approval is stored, and
//! the runtime that asked runs the call, once, when its caller makes it again) or deny
//! it (the model reads the message). Decisions are signed with the operator key in the
//! state directory; approving is never a tool.

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Subcommand, ValueEnum};
use holon_core::{FamilyPolicy, Registry, ToolResult};
use holon_policy::{Approvals, PendingCall, Standing, WithApprovals};
use holon_runtime::Runtime;

use super::EXIT_TOOL_ERROR;
use super::output::emit_line;

/// What `approvals` does.
#[derive(Debug, Subcommand)]
pub enum ApprovalsCommand {
    /// List the asked calls, newest first: the pending ones, or every one with --all.
    List {
        /// Every asked call, decided ones too.
        #[arg(long)]
        all: bool,
        /// One JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show one asked call: what will run, for whom, why, and its outcome.
    Show {
        /// The approval id.
        id: String,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Approve an asked call: nothing runs here; the runtime that asked runs it,
    /// exactly once, when its caller makes the same call again.
    Approve {
        /// The approval id.
        id: String,
        /// Also let later calls of the same tool run without asking, for the call's
        /// session or its principal.
        #[arg(long, value_name = "WHOM")]
        always: Option<Always>,
        /// A note kept with the decision.
        #[arg(long)]
        message: Option<String>,
        /// Who decides, as the audit record names them (signed with the decision).
        #[arg(long = "as", value_name = "NAME", default_value_t = operator_name())]
        decided_by: String,
        /// Print the approved call as JSON (as `approvals show --json`) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Deny an asked call: it never runs, and the model reads the message.
    Deny {
        /// The approval id.
        id: String,
        /// Why, for the model.
        #[arg(long)]
        message: Option<String>,
        /// Who decides, as the audit record names them (signed with the decision).
        #[arg(long = "as", value_name = "NAME", default_value_t = operator_name())]
        decided_by: String,
        /// Print the refusal envelope as JSON instead of the receipt.
        #[arg(long)]
        json: bool,
    },
}

/// For whom `--always` grants later calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Always {
    /// The call's session (MCP).
    Session,
    /// The call's principal (the authenticated client, or the calling agent).
    Principal,
}

/// The operator's name when none is given: the OS user (`$USER`, else `$LOGNAME`),
/// else `operator`.
pub(super) fn operator_name() -> String {
    ["USER", "LOGNAME"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok())
        .map(|name| name.trim().to_string())
        .find(|name| !name.is_empty())
        .unwrap_or_else(|| "operator".to_string())
}

/// Runs `command` on `runtime`'s approvals.
pub(super) async fn approvals(runtime: Arc<Runtime>, command: &ApprovalsCommand) -> ExitCode {
    let approvals = match runtime.approvals() {
        Ok(approvals) => approvals,
        Err(error) => {
            eprintln!("holon-tools: {error}");
            return ExitCode::FAILURE;
        }
    };
    match command {
        ApprovalsCommand::List { all, json } => list(&approvals, *all, *json),
        ApprovalsCommand::Show { id, json } => show(&approvals, id, *json),
        ApprovalsCommand::Approve {
            id,
            always,
            message,
            decided_by,
            json,
        } => {
            let standing = match always {
                None => Standing::Once,
                Some(Always::Session) => Standing::Session,
                Some(Always::Principal) => Standing::Principal,
            };
            let decision = Decided {
                approve: true,
                standing,
                message: message.clone(),
                by: decided_by,
            };
            print_approved(approve_later(&runtime, &approvals, id, decision), *json)
        }
        ApprovalsCommand::Deny {
            id,
            message,
            decided_by,
            json,
        } => {
            let decision = Decided {
                approve: false,
                standing: Standing::Once,
                message: message.clone(),
                by: decided_by,
            };
            let outcome = decide(&runtime, &approvals, id, decision).await;
            print_outcome(outcome, *json)
        }
    }
}

/// What the operator decided on one call, before it is signed.
pub(super) struct Decided<'a> {
    /// Run it, or refuse it.
    pub approve: bool,
    /// Whether an approval stands for later calls too.
    pub standing: Standing,
    /// The operator's note.
    pub message: Option<String>,
    /// Who decided.
    pub by: &'a str,
}

/// Signs the operator's approval of `id` and stores it: the runtime that asked runs
/// the call when its caller makes it again. Running it here would run it in this
/// process, as this process's principal, where the asking runtime's tasks do not exist
/// and a background command dies when the command exits.
fn approve_later(
    runtime: &Arc<Runtime>,
    approvals: &Arc<Approvals>,
    id: &str,
    decided: Decided<'_>,
) -> Result<PendingCall, holon_core::ToolError> {
    let decision = approvals.sign(
        id,
        decided.approve,
        decided.standing,
        decided.message,
        decided.by,
    )?;
    // The site of this context is checked against the call's: approve where it was asked.
    let context = runtime
        .context(FamilyPolicy::all())
        .with_approvals(Arc::clone(approvals));
    approvals.approve_later(&context, &decision)
}

fn print_approved(approved: Result<PendingCall, holon_core::ToolError>, json: bool) -> ExitCode {
    match approved {
        Ok(call) => {
            if json {
                match serde_json::to_string_pretty(&call) {
                    Ok(text) => emit_line(&text),
                    Err(error) => eprintln!("holon-tools: {error}"),
                }
            } else {
                emit_line(&format!(
                    "approved {}: {} runs when the model makes the same call again; `holon-tools approvals show {}` shows its outcome",
                    call.id, call.tool, call.id
                ));
            }
            ExitCode::SUCCESS
        }
        Err(error) => print_outcome(Err(error), json),
    }
}

/// Signs the operator's decision on `id` and carries it out now, in this runtime: a
/// denial from the CLI, or a decision at the `session` prompt, made in the runtime
/// that asked.
pub(super) async fn decide(
    runtime: &Arc<Runtime>,
    approvals: &Arc<Approvals>,
    id: &str,
    decided: Decided<'_>,
) -> Result<ToolResult, holon_core::ToolError> {
    let decision = approvals.sign(
        id,
        decided.approve,
        decided.standing,
        decided.message,
        decided.by,
    )?;
    // The approvals decide under them, so the call's audit record carries the decision.
    let context = runtime
        .context(FamilyPolicy::all())
        .with_approvals(Arc::clone(approvals));
    approvals
        .decide(Registry::global(), &context, &decision)
        .await
}

fn print_outcome(outcome: Result<ToolResult, holon_core::ToolError>, json: bool) -> ExitCode {
    match outcome {
        Ok(result) => {
            if json {
                match serde_json::to_string_pretty(&result) {
                    Ok(text) => emit_line(&text),
                    Err(error) => eprintln!("holon-tools: {error}"),
                }
            } else {
                emit_line(&result.receipt());
            }
            if result.error.is_some() {
                ExitCode::from(EXIT_TOOL_ERROR)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(error) => {
            eprintln!("holon-tools: {}: {}", error.kind, error.message);
            if let Some(hint) = &error.recovery_hint {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(EXIT_TOOL_ERROR)
        }
    }
}

fn list(approvals: &Approvals, all: bool, json: bool) -> ExitCode {
    let calls = match approvals.store().list() {
        Ok(calls) => calls,
        Err(error) => {
            eprintln!("holon-tools: {error}");
            return ExitCode::FAILURE;
        }
    };
    let calls: Vec<&PendingCall> = calls
        .iter()
        .filter(|call| all || call.state == holon_policy::ApprovalState::Pending)
        .collect();
    if json {
        match serde_json::to_string_pretty(&calls) {
            Ok(text) => emit_line(&text),
            Err(error) => eprintln!("holon-tools: {error}"),
        }
        return ExitCode::SUCCESS;
    }
    if calls.is_empty() {
        emit_line(if all {
            "no asked calls"
        } else {
            "no pending calls (--all lists the decided ones too)"
        });
    }
    for call in calls {
        let decided_by = call
            .decided_by
            .as_ref()
            .or(call
                .approved_awaiting_retry()
                .map(|approval| &approval.decided_by))
            .map(|by| format!("  by={by}"))
            .unwrap_or_default();
        emit_line(&format!(
            "{}  {:<8}  {:<18}  {}  {}{decided_by}",
            call.id,
            state_label(call),
            call.tool,
            call.principal,
            one_line(&call.arguments.to_string(), 60)
        ));
    }
    ExitCode::SUCCESS
}

fn show(approvals: &Approvals, id: &str, json: bool) -> ExitCode {
    let call = match approvals.store().get(id) {
        Ok(Some(call)) => call,
        Ok(None) => {
            eprintln!(
                "holon-tools: there is no asked call with the approval id `{id}`; `holon-tools approvals list --all` lists them"
            );
            return ExitCode::from(EXIT_TOOL_ERROR);
        }
        Err(error) => {
            eprintln!("holon-tools: {error}");
            return ExitCode::FAILURE;
        }
    };
    if json {
        match serde_json::to_string_pretty(&call) {
            Ok(text) => emit_line(&text),
            Err(error) => eprintln!("holon-tools: {error}"),
        }
    } else {
        emit_line(&describe(&call));
        if let Some(outcome) = &call.outcome {
            emit_line(&format!("outcome: {outcome}"));
        }
    }
    ExitCode::SUCCESS
}

/// The state `list` prints: `ready` for a call approved out of band that runs when
/// its caller makes it again.
fn state_label(call: &PendingCall) -> &'static str {
    if call.approved_awaiting_retry().is_some() {
        "ready"
    } else {
        call.state.as_str()
    }
}

/// What an asked call will do, as the operator reads it before deciding.
pub(super) fn describe(call: &PendingCall) -> String {
    let arguments = serde_json::to_string_pretty(&call.arguments)
        .unwrap_or_else(|_| call.arguments.to_string());
    let mut text = format!(
        "approval {}\nstate: {}\ntool: {}\narguments: {arguments}\nprincipal: {}\n",
        call.id,
        match call.approved_awaiting_retry() {
            Some(approval) => format!(
                "ready (approved by {}; runs when the model makes the same call again)",
                approval.decided_by
            ),
            None => call.state.as_str().to_string(),
        },
        call.tool,
        call.principal
    );
    if let Some(caller) = &call.caller {
        text.push_str(&format!("caller: {caller}\n"));
    }
    if let Some(session) = &call.session {
        text.push_str(&format!("session: {session}\n"));
    }
    // Where an approval may run it: the operator approves from there.
    if let Some(site) = &call.site {
        text.push_str(&format!(
            "workspace: {}
",
            site.workspace
        ));
        if let Some(state_dir) = &site.state_dir {
            text.push_str(&format!(
                "state directory: {state_dir}
"
            ));
        }
    }
    text.push_str(&format!("why: {}", call.reason));
    if let Some(decided_by) = &call.decided_by {
        text.push_str(&format!("\ndecided by: {decided_by}"));
    }
    if let Some(message) = &call.message {
        text.push_str(&format!("\nmessage: {message}"));
    }
    text
}

/// `text` on one line, cut to about `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    match flat.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", &flat[..at]),
        None => flat,
    }
}
