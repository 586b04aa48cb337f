//! `holon-tools doctor`: what confines the commands of the model on this machine, as
//! the runtime would start them with these options, and whether the operator's files
//! (state directory, policy, audit log) lie out of the model's reach.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use holon_gates::process::sandbox::{self, LandlockSupport};
use holon_gates::process::syscall_filter::{self, SyscallFilterSupport};
use holon_gates::process::{AllowedEnv, CgroupRoot, CommandNetwork, LeftCgroup};
use holon_runtime::tasks::left_cgroup;
use holon_runtime::{Bindings, RuntimeConfig, STORE_FILE_NAME, Store};
use serde::Serialize;

use super::operator_files::workspace_holding;
use super::{Cli, policy};

/// What the doctor found.
#[derive(Debug, Serialize)]
struct Report {
    landlock: LandlockSupport,
    /// Whether commands get the seccomp filter.
    syscall_filter: SyscallFilterSupport,
    /// What commands are not protected from here.
    gaps: Vec<String>,
    network_rule: &'static str,
    process: ProcessReport,
    cgroups: CgroupReport,
    environment: Vec<String>,
    rlimits: String,
    /// The operator's files and whether each lies inside a workspace root.
    operator_files: Vec<OperatorFile>,
}

/// One of the operator's files, and the workspace root it lies in, if any.
#[derive(Debug, Serialize)]
struct OperatorFile {
    /// `state_directory`, `policy` or `audit_log`.
    what: &'static str,
    path: PathBuf,
    /// The workspace root it lies in, where the model can rewrite it; `null` when it
    /// lies outside every one.
    inside_workspace: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
struct ProcessReport {
    /// Whether the runtime's process stays dumpable after it makes itself not.
    dumpable: bool,
}

#[derive(Debug, Serialize)]
struct CgroupReport {
    /// Whether commands get a pids and memory cap from a cgroup.
    enforced: bool,
    /// What caps them and where, or why nothing does.
    reason: String,
    /// What happens at start to the jobs a runtime that is gone left running.
    leftover_jobs: String,
}

/// The store of these options' state directory, when it exists (doctor creates none).
fn existing_store(cli: &Cli) -> Option<Store> {
    let workspace = cli
        .workspace
        .clone()
        .or_else(|| std::env::current_dir().ok())?;
    let state_dir = cli
        .state_dir
        .clone()
        .or_else(|| RuntimeConfig::new(&workspace).state_dir)?;
    let store_file = state_dir.join(STORE_FILE_NAME);
    holon_gates::fs::FileId::of_path(&store_file)?;
    Store::open(&store_file).ok()
}

/// Whether the runtime could give each command a cgroup, by making the runtime's
/// cgroup as it would (and removing it again); making it sweeps as the runtime's
/// start does, with the state directory's store.
fn cgroup_report(cli: &Cli) -> CgroupReport {
    let limits = cli.command_limits.unwrap_or_default();
    let caps = limits.cgroup_caps();
    let store = existing_store(cli);
    let judge = |dir: &Path| {
        store
            .as_ref()
            .map_or(LeftCgroup::Unknown, |store| left_cgroup(store, dir))
    };
    match CgroupRoot::create(caps, &judge) {
        Ok(root) => {
            let mut reason = format!(
                "pids={} mem={} per command, in {}",
                limits
                    .pids_max
                    .map_or("none".to_string(), |v| v.to_string()),
                limits
                    .memory_bytes
                    .map_or("none".to_string(), |v| v.to_string()),
                root.describe()
            );
            for missing in root.missing() {
                reason.push_str(&format!("; not: {missing}"));
            }
            CgroupReport {
                enforced: true,
                reason,
                leftover_jobs: format!(
                    "ended at start: a runtime kills what the commands of runtimes that are \
                     gone (their cgroup's lock is free) left running in the cgroups its state \
                     directory recorded, a `setsid`, `nohup` or double-forked job included, \
                     and spares a background task still running (TaskStop ends it, with its \
                     cgroup); this run ended {}",
                    root.swept()
                ),
            }
        }
        Err(why) => CgroupReport {
            enforced: false,
            reason: format!(
                "commands get no cgroup, so no pids or memory cap beyond the rlimits \
                 (RLIMIT_NPROC does not bind root): {why}"
            ),
            leftover_jobs: "not found: without a cgroup, the jobs a killed runtime's \
                            commands left running outlive it and no later runtime stops them"
                .to_string(),
        },
    }
}

/// The workspace roots of these options: the workspace, and the directories the
/// state directory's store binds (attached workspaces, worktrees) when it exists.
fn workspace_roots(workspace: &Path, state_dir: &Path) -> Vec<PathBuf> {
    let mut roots = vec![workspace.to_path_buf()];
    let store_file = state_dir.join(STORE_FILE_NAME);
    // Only a store that exists: doctor creates none.
    if holon_gates::fs::FileId::of_path(&store_file).is_some()
        && let Ok(store) = Store::open(&store_file)
        && let Ok(bindings) = Bindings::open(Arc::new(store), workspace, Some(state_dir))
    {
        roots.extend(bindings.roots().roots().iter().cloned());
    }
    roots
}

/// The state directory, policy file and audit log these options use, each with the
/// workspace root it lies in.
fn operator_files(cli: &Cli) -> Vec<OperatorFile> {
    let Some(workspace) = cli
        .workspace
        .clone()
        .or_else(|| std::env::current_dir().ok())
    else {
        return Vec::new();
    };
    let Some(state_dir) = cli
        .state_dir
        .clone()
        .or_else(|| RuntimeConfig::new(&workspace).state_dir)
    else {
        return Vec::new();
    };
    let roots = workspace_roots(&workspace, &state_dir);
    let policy_file = match cli.policy.as_deref() {
        Some("none" | "builtin") => None,
        Some(file) => Some(PathBuf::from(file)),
        None => holon_runtime::state_dir::config_file(&state_dir, policy::POLICY_FILE_NAME),
    };
    let audit_file = cli.audit_file.clone().or_else(|| {
        cli.audit
            .then(|| state_dir.join(holon_runtime::audit_log::AUDIT_FILE_NAME))
    });
    [
        ("state_directory", Some(state_dir.clone())),
        ("policy", policy_file),
        ("audit_log", audit_file),
    ]
    .into_iter()
    .filter_map(|(what, path)| {
        let path = path?;
        Some(OperatorFile {
            what,
            inside_workspace: workspace_holding(&path, &roots),
            path,
        })
    })
    .collect()
}

/// The name of an operator file's kind, for a sentence.
fn named(what: &str) -> &str {
    match what {
        "state_directory" => "state directory",
        "audit_log" => "audit log",
        other => other,
    }
}

/// Prints the report, as text or (`json`) as one JSON document.
pub(crate) fn doctor(cli: &Cli, json: bool) -> ExitCode {
    let landlock = sandbox::probe();
    let syscall_filter = syscall_filter::probe();
    let mut gaps = landlock.gaps();
    gaps.extend(syscall_filter.gap());
    let operator_files = operator_files(cli);
    for file in &operator_files {
        if let Some(workspace) = &file.inside_workspace {
            gaps.push(format!(
                "the {} {} lies inside the workspace {}: commands of the model can rewrite it there (Landlock grants a workspace whole); move it outside every workspace",
                named(file.what),
                file.path.display(),
                workspace.display()
            ));
        }
    }
    // The same call the runtime makes at start, checked here.
    let undumpable = sandbox::make_undumpable();
    let mut environment = AllowedEnv::default();
    for name in cli.command_env.iter().flat_map(|names| &names.0) {
        environment.allow(name.clone());
    }
    let report = Report {
        landlock,
        syscall_filter,
        gaps,
        network_rule: match cli.command_network.unwrap_or_default() {
            CommandNetwork::ByFamily => "by-family",
            CommandNetwork::Allow => "allow",
            CommandNetwork::Deny => "deny",
        },
        process: ProcessReport {
            dumpable: undumpable.is_err() || sandbox::is_dumpable(),
        },
        cgroups: cgroup_report(cli),
        environment: environment.entries(),
        rlimits: cli.command_limits.unwrap_or_default().to_arg(),
        operator_files,
    };
    if json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => super::output::emit_line(&text),
            Err(error) => {
                eprintln!("holon-tools: {error}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        super::output::emit_line(text(&report).trim_end());
    }
    ExitCode::SUCCESS
}

fn yes(enforced: bool) -> &'static str {
    if enforced { "enforced" } else { "not enforced" }
}

fn text(report: &Report) -> String {
    let landlock = &report.landlock;
    let mut out = String::new();
    match &landlock.missing {
        Some(why) if landlock.abi == 0 => {
            out.push_str(&format!("landlock: not available ({why})\n"));
        }
        _ => out.push_str(&format!("landlock: ABI {}\n", landlock.abi)),
    }
    let state_dir_exposed = report
        .operator_files
        .iter()
        .any(|file| file.what == "state_directory" && file.inside_workspace.is_some());
    let writes = if state_dir_exposed {
        "writes only in the workspace and TMPDIR, the state directory inside the workspace included"
    } else {
        "writes only in the workspace and TMPDIR, no state directory"
    };
    out.push_str(&format!(
        "  filesystem ({writes}): {}\n",
        yes(landlock.filesystem)
    ));
    for file in &report.operator_files {
        let place = match &file.inside_workspace {
            Some(workspace) => format!(
                "inside the workspace {}: not protected",
                workspace.display()
            ),
            None => "outside every workspace".to_string(),
        };
        out.push_str(&format!(
            "  {} {}: {place}\n",
            named(file.what),
            file.path.display()
        ));
    }
    out.push_str(&format!(
        "  network (TCP connect/bind, rule {}): {}\n",
        report.network_rule,
        yes(landlock.network)
    ));
    out.push_str(&format!(
        "  scoped signals and abstract unix sockets: {}\n",
        yes(landlock.scoped_signals)
    ));
    out.push_str(&format!(
        "  ptrace and /proc/<pid>/mem of the runtime: {}\n",
        yes(landlock.filesystem)
    ));
    out.push_str(&format!(
        "seccomp filter (no prlimit, renice, chrt, ionice, taskset of the runtime; \
         Unix sockets only without web): {}\n",
        yes(report.syscall_filter.enforced)
    ));
    out.push_str(&format!(
        "non-dumpable runtime process: {}\n",
        yes(!report.process.dumpable)
    ));
    out.push_str(&format!(
        "cgroup limits: {}: {}\n",
        yes(report.cgroups.enforced),
        report.cgroups.reason
    ));
    out.push_str(&format!(
        "leftover jobs of a killed runtime: {}\n",
        report.cgroups.leftover_jobs
    ));
    out.push_str(&format!(
        "environment allow-list: {}\n",
        report.environment.join(" ")
    ));
    out.push_str(&format!("rlimits: {}\n", report.rlimits));
    for gap in &report.gaps {
        out.push_str(&format!("gap: {gap}\n"));
    }
    out
}
