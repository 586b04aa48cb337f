//! Resource limits of commands, and the helper mode that applies them.
//!
//! A limit must be in place before the command runs, and the workspace forbids
//! `unsafe` (so no `pre_exec` hook between fork and exec). Setting it from the parent
//! with `prlimit` right after the spawn races with whatever the command forks first.
//! So the gate starts the host's binary in its helper mode,
//! `<host> __holon-limits <limits> -- <program> <args>...`: it sets the limits on
//! itself (inherited across exec) and execs the program, which then starts under
//! them. Process group, environment, working directory and open files pass through
//! the exec unchanged. The host's `main` calls [`helper_main`] first; the launcher
//! checks that it does when it is made ([`check_helper`]).

use std::ffi::OsString;
use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{Resource, Rlimit};

/// The first argument that selects the helper mode.
pub const LIMITS_HELPER_ARG: &str = "__holon-limits";

/// The helper's only argument when the launcher checks that a program is the helper.
pub const PROBE_ARG: &str = "--probe";

/// What the helper prints on stdout for [`PROBE_ARG`]: its mode and the version of
/// its arguments.
pub const PROBE_ANSWER: &str = "holon-limits 1\n";

/// How long the launcher waits for a program's answer to [`PROBE_ARG`].
const PROBE_WAIT: Duration = Duration::from_secs(10);

/// The helper's argument before a [`Confinement`](super::Confinement), between the
/// limits and `--`.
pub const CONFINE_ARG: &str = "--confine";

/// The helper's argument before a `cgroup.procs` file it joins (one per hierarchy),
/// between the limits and `--`.
pub const CGROUP_ARG: &str = "--cgroup";

/// The default headroom of `RLIMIT_NPROC`: processes (threads) a command may add to
/// those its user runs when it starts. The kernel counts every process of the user,
/// so a fixed number would fail on a busy desktop and be loose on an idle server.
pub const DEFAULT_PROCESS_HEADROOM: u64 = 1024;

/// The default `RLIMIT_FSIZE`: 4 GiB, above any file a build writes, below a disk.
pub const DEFAULT_FILE_SIZE_BYTES: u64 = 4 << 30;

/// The limits a command runs under; `None` leaves a limit as the runtime has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceLimits {
    /// `RLIMIT_NPROC`: how many processes beyond those of its user at launch.
    pub process_headroom: Option<u64>,
    /// `RLIMIT_FSIZE`: the largest file it may write, in bytes.
    pub file_size_bytes: Option<u64>,
    /// `RLIMIT_CORE`: the largest core dump, in bytes (0: none).
    pub core_bytes: Option<u64>,
    /// `RLIMIT_AS`: the most address space of one process, in bytes.
    pub address_space_bytes: Option<u64>,
    /// `RLIMIT_CPU`: the most CPU time of one process, in seconds.
    pub cpu_seconds: Option<u64>,
    /// The `pids` cap of the command's cgroup: its processes and threads together.
    pub pids_max: Option<u64>,
    /// The `memory` cap of the command's cgroup: its processes together, in bytes.
    pub memory_bytes: Option<u64>,
}

impl Default for ResourceLimits {
    /// 1024 processes of headroom, files up to 4 GiB, no core dumps; address space and
    /// CPU time as the runtime has them; a cgroup of at most 1024 processes and 8 GiB.
    fn default() -> Self {
        Self {
            process_headroom: Some(DEFAULT_PROCESS_HEADROOM),
            file_size_bytes: Some(DEFAULT_FILE_SIZE_BYTES),
            core_bytes: Some(0),
            address_space_bytes: None,
            cpu_seconds: None,
            pids_max: Some(super::cgroup::DEFAULT_PIDS_MAX),
            memory_bytes: Some(super::cgroup::DEFAULT_MEMORY_BYTES),
        }
    }
}

/// A limits list that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the command limits `{text}` cannot be read: {problem}; write them as a comma-separated list of key=value with keys nproc, fsize, core, as, cpu, pids, mem and values a number (sizes may end in K, M or G) or `none`, e.g. `nproc=1024,fsize=4G,core=0,as=none,cpu=none,pids=1024,mem=8G`"
)]
pub struct LimitsError {
    /// The text as given.
    pub text: String,
    /// What is wrong.
    pub problem: String,
}

const KEYS: [&str; 7] = ["nproc", "fsize", "core", "as", "cpu", "pids", "mem"];

impl ResourceLimits {
    fn slot(&mut self, key: &str) -> Option<&mut Option<u64>> {
        Some(match key {
            "nproc" => &mut self.process_headroom,
            "fsize" => &mut self.file_size_bytes,
            "core" => &mut self.core_bytes,
            "as" => &mut self.address_space_bytes,
            "cpu" => &mut self.cpu_seconds,
            "pids" => &mut self.pids_max,
            "mem" => &mut self.memory_bytes,
            _ => return None,
        })
    }

    fn get(&self, key: &str) -> Option<u64> {
        match key {
            "nproc" => self.process_headroom,
            "fsize" => self.file_size_bytes,
            "core" => self.core_bytes,
            "as" => self.address_space_bytes,
            "pids" => self.pids_max,
            "mem" => self.memory_bytes,
            _ => self.cpu_seconds,
        }
    }

    /// The caps of the command's cgroup.
    pub fn cgroup_caps(&self) -> super::cgroup::CgroupCaps {
        super::cgroup::CgroupCaps {
            pids: self.pids_max,
            memory_bytes: self.memory_bytes,
        }
    }

    /// The defaults changed by `text`, a list such as `fsize=1G,cpu=600,as=none`.
    pub fn parse(text: &str) -> Result<Self, LimitsError> {
        let error = |problem: String| LimitsError {
            text: text.to_string(),
            problem,
        };
        let mut limits = Self::default();
        for item in text
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| error(format!("`{item}` has no `=`")))?;
            let slot = limits
                .slot(key.trim())
                .ok_or_else(|| error(format!("`{}` is not a limit", key.trim())))?;
            *slot = parse_value(value.trim())
                .ok_or_else(|| error(format!("`{}` is not a number or `none`", value.trim())))?;
        }
        Ok(limits)
    }

    /// The list [`ResourceLimits::parse`] reads back as these limits.
    pub fn to_arg(&self) -> String {
        KEYS.iter()
            .map(|key| match self.get(key) {
                Some(value) => format!("{key}={value}"),
                None => format!("{key}=none"),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Sets the rlimits on this process (and so on what it execs; the cgroup caps are
    /// the launcher's). A limit above the
    /// hard limit the process has is lowered to it: a limit can only tighten.
    pub fn apply_to_self(&self) -> std::io::Result<()> {
        let settings = [
            (
                Resource::Nproc,
                self.process_headroom
                    .map(|headroom| user_processes().saturating_add(headroom)),
            ),
            (Resource::Fsize, self.file_size_bytes),
            (Resource::Core, self.core_bytes),
            (Resource::As, self.address_space_bytes),
            (Resource::Cpu, self.cpu_seconds),
        ];
        for (resource, value) in settings {
            let Some(value) = value else { continue };
            let hard = rustix::process::getrlimit(resource).maximum;
            let value = hard.map_or(value, |hard| value.min(hard));
            rustix::process::setrlimit(
                resource,
                Rlimit {
                    current: Some(value),
                    maximum: Some(value),
                },
            )?;
        }
        Ok(())
    }
}

fn parse_value(value: &str) -> Option<Option<u64>> {
    if value == "none" {
        return Some(None);
    }
    let (digits, shift) = match value.as_bytes().last()? {
        b'K' | b'k' => (&value[..value.len() - 1], 10),
        b'M' | b'm' => (&value[..value.len() - 1], 20),
        b'G' | b'g' => (&value[..value.len() - 1], 30),
        _ => (value, 0),
    };
    let number: u64 = digits.parse().ok()?;
    number.checked_mul(1u64 << shift).map(Some)
}

/// How many processes (threads: the kernel counts those) the real user of this
/// process runs, from `/proc`; 0 where there is none.
fn user_processes() -> u64 {
    let uid = rustix::process::getuid().as_raw().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|name| name.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("status")).ok())
        .filter_map(|status| {
            let field = |name: &str| {
                status
                    .lines()
                    .find_map(|line| line.strip_prefix(name))
                    .and_then(|rest| rest.split_whitespace().next())
            };
            (field("Uid:")? == uid).then(|| field("Threads:")?.parse::<u64>().ok())?
        })
        .sum()
}

/// Set by [`helper_main`]: this program runs the helper mode when started in it.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The helper mode, when this process was started in it: applies the limits and
/// execs the command, returning only if that failed. `None` when the first argument
/// is not [`LIMITS_HELPER_ARG`]. Call it first thing in `main`, before anything reads
/// the arguments: a launcher that names this program as its helper is refused
/// otherwise ([`check_helper`]).
pub fn helper_main() -> Option<ExitCode> {
    INSTALLED.store(true, Ordering::Relaxed);
    let mut args = std::env::args_os().skip(1);
    if args.next()? != LIMITS_HELPER_ARG {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    if rest.len() == 1 && rest[0] == PROBE_ARG {
        use std::io::Write as _;
        let answered = std::io::stdout().write_all(PROBE_ANSWER.as_bytes());
        return Some(match answered {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(HELPER_FAILED),
        });
    }
    Some(run_helper(rest))
}

/// Why a launcher cannot set the limits of commands with the helper it names.
#[derive(Debug, thiserror::Error)]
pub enum HelperError {
    /// The helper is this very program, and its `main` never called [`helper_main`]:
    /// every command would start this program's `main` again instead.
    #[error(
        "commands get their resource limits from this program ({}), whose `main` never called `holon_gates::process::limits::helper_main()`: call it first thing in `main`, or name no limits helper",
        .program.display()
    )]
    NotInstalled {
        /// The program.
        program: PathBuf,
    },
    /// The helper cannot be started.
    #[error("the limits helper {} cannot be started: {source}", .program.display())]
    Spawn {
        /// The program.
        program: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The program does not answer as the helper does.
    #[error(
        "{} does not answer as the limits helper ({answer}): its `main` must call `holon_gates::process::limits::helper_main()` first thing",
        .program.display()
    )]
    NoAnswer {
        /// The program.
        program: PathBuf,
        /// What it did instead.
        answer: String,
    },
}

/// Checks that `program` sets the limits when started as the helper: this very
/// program only if its `main` called [`helper_main`] (nothing is started), another
/// program only if it answers [`PROBE_ARG`] with [`PROBE_ANSWER`] (it is started once,
/// with `environment`, and killed after 10 s without an answer).
pub fn check_helper(
    program: &Path,
    environment: &[(OsString, OsString)],
) -> Result<(), HelperError> {
    let spawn_error = |source| HelperError::Spawn {
        program: program.to_path_buf(),
        source,
    };
    let target = std::fs::metadata(program).map_err(spawn_error)?;
    let this = std::fs::metadata("/proc/self/exe")
        .is_ok_and(|this| (this.dev(), this.ino()) == (target.dev(), target.ino()));
    if this {
        return match INSTALLED.load(Ordering::Relaxed) {
            true => Ok(()),
            false => Err(HelperError::NotInstalled {
                program: program.to_path_buf(),
            }),
        };
    }
    let no_answer = |answer: String| HelperError::NoAnswer {
        program: program.to_path_buf(),
        answer,
    };
    let mut child = std::process::Command::new(program)
        .args([LIMITS_HELPER_ARG, PROBE_ARG])
        .env_clear()
        .envs(environment.iter().map(|(name, value)| (name, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(spawn_error)?;
    let deadline = Instant::now() + PROBE_WAIT;
    let status = loop {
        match child.try_wait().map_err(spawn_error)? {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(no_answer(format!(
                    "no answer within {} s",
                    PROBE_WAIT.as_secs()
                )));
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let mut answer = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        // What is there now: a process it left behind may hold the pipe open.
        let _ = rustix::io::ioctl_fionbio(&stdout, true);
        let _ = stdout.read_to_end(&mut answer);
    }
    if status.success() && answer == PROBE_ANSWER.as_bytes() {
        return Ok(());
    }
    let shown: String = String::from_utf8_lossy(&answer)
        .trim()
        .chars()
        .take(200)
        .collect();
    Err(no_answer(format!(
        "it exited with {status}, saying `{shown}`"
    )))
}

/// Exit status of the helper when it cannot run the command (as a shell's 126).
const HELPER_FAILED: u8 = 126;

/// `<limits> [--cgroup <cgroup.procs>]... [--confine <confinement>] -- <program>
/// <args>...`: joins the command's cgroups, sets the limits, confines itself (Landlock,
/// then the seccomp filter), then execs the program.
fn run_helper(args: Vec<OsString>) -> ExitCode {
    // The command's stderr: the helper is that process until it execs the command.
    let fail = |message: String| {
        eprintln!("{LIMITS_HELPER_ARG}: {message}");
        ExitCode::from(HELPER_FAILED)
    };
    let usage = || {
        format!(
            "expected `<limits> [{CGROUP_ARG} <cgroup.procs>]... [{CONFINE_ARG} <confinement>] -- <program> [<args>...]`"
        )
    };
    let Some((limits, mut rest)) = args.split_first() else {
        return fail(usage());
    };
    let mut cgroups = Vec::new();
    let mut confinement = None;
    let (program, rest) = loop {
        match rest {
            [flag, value, more @ ..] if flag == CGROUP_ARG => {
                cgroups.push(value.clone());
                rest = more;
            }
            [flag, value, more @ ..] if flag == CONFINE_ARG => {
                confinement = Some(match value.to_str().map(super::Confinement::parse) {
                    Some(Ok(parsed)) => parsed,
                    Some(Err(error)) => return fail(error.to_string()),
                    None => return fail("the confinement is not UTF-8".to_string()),
                });
                rest = more;
            }
            [separator, program, more @ ..] if separator == "--" => break (program, more),
            _ => return fail(usage()),
        }
    };
    // First of all, before anything can fork: the command's processes are counted
    // from this one on.
    let own_pid = std::process::id().to_string();
    for procs in &cgroups {
        if let Err(error) = std::fs::write(procs, &own_pid) {
            return fail(format!(
                "cannot join the cgroup {}: {error}",
                std::path::Path::new(procs).display()
            ));
        }
    }
    let limits = match limits.to_str().map(ResourceLimits::parse) {
        Some(Ok(limits)) => limits,
        Some(Err(error)) => return fail(error.to_string()),
        None => return fail("the limits are not UTF-8".to_string()),
    };
    if let Err(error) = limits.apply_to_self() {
        return fail(format!("cannot set the resource limits: {error}"));
    }
    if let Some(confinement) = confinement {
        if let Err(error) = confinement.restrict_self() {
            return fail(format!("cannot confine the command: {error}"));
        }
        // Last, after the helper's own setrlimit calls: from here on this process may
        // not change another's limits or scheduling. A kernel without seccomp filters
        // runs the command without (the runtime reports that gap).
        if super::syscall_filter::kernel_lacks_filters().is_none()
            && let Err(error) = super::syscall_filter::install_on_self(confinement.network)
        {
            return fail(format!("cannot filter the command's system calls: {error}"));
        }
    }
    let error = std::process::Command::new(program).args(rest).exec();
    fail(format!(
        "cannot run `{}`: {error}",
        program.to_string_lossy()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limits_list_reads_back_and_refuses_what_it_does_not_know() {
        let limits = ResourceLimits::parse("fsize=1G, cpu=600,as=none,nproc=64k").unwrap();
        assert_eq!(limits.file_size_bytes, Some(1 << 30));
        assert_eq!(limits.cpu_seconds, Some(600));
        assert_eq!(limits.address_space_bytes, None);
        assert_eq!(limits.process_headroom, Some(64 << 10));
        assert_eq!(limits.core_bytes, Some(0), "a default kept");
        let caps = ResourceLimits::parse("pids=64,mem=none").unwrap();
        assert_eq!((caps.pids_max, caps.memory_bytes), (Some(64), None));
        assert_eq!(ResourceLimits::parse(&limits.to_arg()).unwrap(), limits);
        assert_eq!(
            ResourceLimits::parse("").unwrap(),
            ResourceLimits::default()
        );
        for bad in [
            "fsize",
            "rss=1",
            "cpu=ten",
            "fsize=99999999999999G",
            "core=-1",
            "pids=many",
        ] {
            let error = ResourceLimits::parse(bad).unwrap_err();
            assert!(error.to_string().contains("nproc, fsize"), "{error}");
        }
    }

    #[test]
    fn counts_the_processes_of_this_user() {
        // This test's own threads are among them.
        assert!(user_processes() >= 1);
    }
}
