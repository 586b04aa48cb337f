//! The process gate: the one place where commands are started. Every command
//! ExecCommand, ExecCommandBatch and the task tools run is built here, and gets
//!
//! - an environment of the operator's variables that are on an allow-list
//!   ([`AllowedEnv`]), less every credential the runtime reads ([`HiddenEnv`]),
//! - resource limits (`RLIMIT_NPROC`, `RLIMIT_FSIZE`, `RLIMIT_CORE`, optional
//!   `RLIMIT_AS` and `RLIMIT_CPU`, see [`ResourceLimits`]), set by a helper mode of our
//!   own binary that execs the command ([`limits`]),
//! - for the commands of the model, a cgroup of their own with a pids and a memory
//!   cap ([`cgroup`]), joined by the same helper before anything else,
//! - its own process group (a new session under a terminal), whose members are read
//!   back from `/proc` (`group`),
//! - log files of bounded size ([`CappedLog`]: head and tail kept, the cut noted),
//! - a working directory set from a directory handle, never by path ([`WorkingDir`]),
//! - for the commands of the model, a Landlock confinement ([`Confinement`]): writes
//!   beneath the workspace roots and a private temporary directory only, no access
//!   to the state directory, no TCP without the `web` family, no signal to the
//!   runtime; applied by the same helper, right before it execs the command,
//! - for the commands of the model, a seccomp filter ([`syscall_filter`]): no
//!   change to another process's limits, priority or scheduling, and only Unix
//!   sockets without the `web` family; installed by the helper after Landlock.
//!
//! The gate knows nothing of the runtime or the tools and has its own errors. A
//! launcher that names a limits helper is made only once the helper is checked
//! ([`Launcher::new`], [`limits::check_helper`]): a host whose `main` does not run
//! [`limits::helper_main`] gets a [`HelperError`], not commands without limits.

// The process gate: the one launcher of commands, its log files and /proc reads.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

pub mod cgroup;
mod environment;
pub mod group;
pub mod limits;
mod log_cap;
mod log_files;
pub mod sandbox;
pub mod syscall_filter;
mod working_dir;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// Reports `message` (a confinement this machine cannot give) as a `tracing` warning,
/// once per process: the host decides where it goes.
fn report_once(message: &str) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !said.iter().any(|old| old == message) {
        tracing::warn!("{message}");
        said.push(message.to_string());
    }
}

pub use cgroup::{CgroupCaps, CgroupRoot, CommandCgroup, LeftCgroup, LimitHit};
pub use environment::{
    AllowedEnv, AllowedEnvError, DEFAULT_ALLOWED_ENV, HiddenEnv, parse_env_names,
};
pub use limits::{HelperError, LIMITS_HELPER_ARG, LimitsError, ResourceLimits};
pub use log_cap::{CappedLog, DEFAULT_LOG_CAP_BYTES};
pub use log_files::{create_log_dir, log_len, read_log, remove_log_dir};
pub use sandbox::{CommandNetwork, Confinement};
pub use working_dir::WorkingDir;

/// Why a command could not be started.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The operating system refused to start the program (or the limits helper).
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A log file could not be created or finished.
    #[error("failed while {doing}: {source}")]
    Log {
        /// What the gate was doing.
        doing: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// `program` as a path to an executable file: itself when it names a path (has a
/// `/`), else the first match in the directories of `path` (a `PATH` value), as the
/// launcher finds it.
pub fn find_program(program: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |candidate: &Path| {
        std::fs::metadata(candidate)
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let candidate = PathBuf::from(program);
        return executable(&candidate).then_some(candidate);
    }
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|candidate| executable(candidate))
}

/// How the gate starts commands.
#[derive(Debug, Clone)]
pub struct LauncherConfig {
    /// The limits every command runs under.
    pub limits: ResourceLimits,
    /// The executable whose [`LIMITS_HELPER_ARG`] mode applies `limits` and then execs
    /// the command: the host's own binary, whose `main` calls
    /// [`limits::helper_main`] first thing. [`Launcher::new`] refuses one that does not
    /// ([`HelperError`]). `None` runs commands without resource limits, cgroup,
    /// Landlock or seccomp filter (said once as a `tracing` warning): the workspace
    /// forbids `unsafe`, so a limit cannot be set in the child between fork and exec,
    /// and setting it from the parent after the spawn races with what the command
    /// forks first.
    pub limiter: Option<PathBuf>,
    /// The variables commands may see (when the operator has them set).
    pub allowed_env: AllowedEnv,
    /// The variables commands never see, even when allowed.
    pub hidden_env: HiddenEnv,
    /// The most bytes one log file of a command keeps (head and tail).
    pub log_cap_bytes: u64,
    /// Paths confined commands may not reach at all, besides the state directory
    /// (the MCP token file).
    pub hidden_paths: Vec<PathBuf>,
    /// Which confined commands may use TCP.
    pub network: CommandNetwork,
}

impl Default for LauncherConfig {
    fn default() -> Self {
        Self {
            limits: ResourceLimits::default(),
            limiter: None,
            allowed_env: AllowedEnv::default(),
            hidden_env: HiddenEnv::default(),
            log_cap_bytes: DEFAULT_LOG_CAP_BYTES,
            hidden_paths: Vec::new(),
            network: CommandNetwork::default(),
        }
    }
}

/// Builds the commands of the runtime's tasks.
#[derive(Debug, Clone)]
pub struct Launcher {
    config: LauncherConfig,
    /// The private temporary directory of confined commands (their `TMPDIR`).
    tmp_dir: Option<PathBuf>,
    /// The runtime's cgroup, beneath which each confined command gets one.
    cgroups: Option<Arc<CgroupRoot>>,
}

impl Launcher {
    /// A launcher with `config`, once its limits helper (if it names one) is checked
    /// to set the limits ([`limits::check_helper`]).
    pub fn new(config: LauncherConfig) -> Result<Self, HelperError> {
        let launcher = Self {
            config,
            tmp_dir: None,
            cgroups: None,
        };
        match &launcher.config.limiter {
            Some(helper) => limits::check_helper(helper, &launcher.environment())?,
            None => report_once(
                "commands run without resource limits, cgroup, Landlock or seccomp filter: the launcher names no limits helper",
            ),
        }
        Ok(launcher)
    }

    /// The launcher whose confined commands each get a cgroup with the caps of its
    /// limits (`pids`, `mem`), where the runtime may make one and has the helper
    /// that joins it; making it first ends what runtimes that are gone left in the
    /// command cgroups `judge` says ended ([`CgroupRoot::create`]). Says once (a
    /// `tracing` warning) when there is none, and why.
    pub fn with_cgroups(mut self, judge: &dyn Fn(&Path) -> LeftCgroup) -> Self {
        if self.config.limiter.is_none() {
            return self;
        }
        match CgroupRoot::create(self.config.limits.cgroup_caps(), judge) {
            Ok(root) => {
                for missing in root.missing() {
                    report_once(&format!("commands get only some cgroup caps: {missing}"));
                }
                self.cgroups = Some(root);
            }
            Err(why) => report_once(&format!(
                "commands get no cgroup, so no pids or memory cap beyond the rlimits (RLIMIT_NPROC does not bind root): {why}"
            )),
        }
        self
    }

    /// The runtime's cgroup, when commands get one.
    pub fn cgroups(&self) -> Option<&Arc<CgroupRoot>> {
        self.cgroups.as_ref()
    }

    /// A new cgroup for one confined command, with the caps of the limits; none
    /// where commands get none.
    pub fn command_cgroup(&self) -> std::io::Result<Option<CommandCgroup>> {
        self.cgroups
            .as_ref()
            .map(|root| root.command(self.config.limits.cgroup_caps()))
            .transpose()
    }

    /// The launcher whose confined commands write their temporary files in `dir`
    /// (their `TMPDIR`, and writable to them).
    pub fn with_tmp_dir(mut self, dir: PathBuf) -> Self {
        self.tmp_dir = Some(dir);
        self
    }

    /// The private temporary directory of confined commands, if there is one.
    pub fn tmp_dir(&self) -> Option<&Path> {
        self.tmp_dir.as_deref()
    }

    /// `confinement` completed with what the launcher adds: its temporary directory
    /// to write in, the operator's hidden paths, and its network rule (`web`: the
    /// caller has the `web` family).
    fn complete(&self, confinement: &Confinement) -> Confinement {
        let mut complete = confinement.clone();
        complete.write_roots.extend(self.tmp_dir.clone());
        complete
            .hidden
            .extend(self.config.hidden_paths.iter().cloned());
        complete.network = self.config.network.allows(confinement.network);
        complete
    }

    /// Its configuration.
    pub fn config(&self) -> &LauncherConfig {
        &self.config
    }

    /// The environment a command gets: the operator's variables as they are now that
    /// are allowed, less the hidden ones.
    pub fn environment(&self) -> Vec<(OsString, OsString)> {
        self.config
            .hidden_env
            .filter(&self.config.allowed_env, std::env::vars_os())
    }

    /// The environment of a confined command: [`Launcher::environment`] with
    /// `TMPDIR` its private temporary directory.
    fn confined_environment(&self) -> Vec<(OsString, OsString)> {
        let mut environment = self.environment();
        if let Some(dir) = &self.tmp_dir {
            environment.retain(|(name, _)| name != "TMPDIR");
            environment.push((OsString::from("TMPDIR"), dir.clone().into_os_string()));
        }
        environment
    }

    /// The program and arguments that run `program args` under the limits (and the
    /// confinement, if any). Through the helper, `program` is looked up on the
    /// command's `PATH` first, so that a missing one is a spawn error (`NotFound`) as
    /// without it, not a failed exec.
    fn argv(
        &self,
        program: &str,
        args: &[&str],
        environment: &[(OsString, OsString)],
        confinement: Option<&Confinement>,
        cgroup: Option<&CommandCgroup>,
    ) -> std::io::Result<(OsString, Vec<OsString>)> {
        let Some(limiter) = &self.config.limiter else {
            return Ok((
                OsString::from(program),
                args.iter().map(OsString::from).collect(),
            ));
        };
        let path = environment
            .iter()
            .find(|(name, _)| name == "PATH")
            .map(|(_, value)| value.as_os_str());
        let resolved = find_program(program, path).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("`{program}` is not an executable file or on PATH"),
            )
        })?;
        let mut argv = vec![
            OsString::from(LIMITS_HELPER_ARG),
            OsString::from(self.config.limits.to_arg()),
        ];
        for procs in cgroup.iter().flat_map(|cgroup| cgroup.procs_files()) {
            argv.push(OsString::from(limits::CGROUP_ARG));
            argv.push(procs.into_os_string());
        }
        if let Some(confinement) = confinement {
            argv.push(OsString::from(limits::CONFINE_ARG));
            argv.push(OsString::from(self.complete(confinement).to_arg()));
        }
        argv.push(OsString::from("--"));
        argv.push(resolved.into_os_string());
        argv.extend(args.iter().map(OsString::from));
        Ok((limiter.as_os_str().to_owned(), argv))
    }

    /// `program args` in `workdir` as the leader of a new process group, with the
    /// gate's environment and limits; stdio is left to the caller. For the runtime's
    /// own programs (git): not confined.
    pub fn command(
        &self,
        program: &str,
        args: &[&str],
        workdir: &WorkingDir,
    ) -> std::io::Result<Command> {
        self.build_command(program, args, workdir, None, None)
    }

    /// [`Launcher::command`] for a command of the model: confined by `confinement`
    /// (completed by the launcher's temporary directory, hidden paths and network
    /// rule) when the launcher has its helper, and in `cgroup` (from
    /// [`Launcher::command_cgroup`]) when there is one.
    pub fn confined_command(
        &self,
        program: &str,
        args: &[&str],
        workdir: &WorkingDir,
        confinement: &Confinement,
        cgroup: Option<&CommandCgroup>,
    ) -> std::io::Result<Command> {
        self.build_command(program, args, workdir, Some(confinement), cgroup)
    }

    fn build_command(
        &self,
        program: &str,
        args: &[&str],
        workdir: &WorkingDir,
        confinement: Option<&Confinement>,
        cgroup: Option<&CommandCgroup>,
    ) -> std::io::Result<Command> {
        use std::os::unix::process::CommandExt;
        let environment = match confinement {
            Some(_) => self.confined_environment(),
            None => self.environment(),
        };
        let (program, argv) = self.argv(program, args, &environment, confinement, cgroup)?;
        let mut command = Command::new(program);
        command
            .args(argv)
            .current_dir(workdir.for_child()?)
            .env_clear()
            .envs(environment)
            .process_group(0);
        Ok(command)
    }

    /// `program args` for a pseudo-terminal (which makes it a session leader), with
    /// the gate's environment and limits, confined as [`Launcher::confined_command`];
    /// `TERM` is set when the operator has none.
    pub fn terminal_command(
        &self,
        program: &str,
        args: &[&str],
        workdir: &WorkingDir,
        confinement: &Confinement,
        cgroup: Option<&CommandCgroup>,
    ) -> std::io::Result<portable_pty::CommandBuilder> {
        let environment = self.confined_environment();
        let (program, argv) = self.argv(program, args, &environment, Some(confinement), cgroup)?;
        let mut builder = portable_pty::CommandBuilder::new(program);
        builder.args(argv);
        builder.cwd(workdir.for_child()?);
        builder.env_clear();
        let has_term = environment.iter().any(|(name, _)| name == "TERM");
        for (name, value) in environment {
            builder.env(name, value);
        }
        if !has_term {
            builder.env("TERM", "xterm-256color");
        }
        Ok(builder)
    }

    /// Creates a log file of the gate's size cap at `path`.
    pub fn create_log(&self, path: &Path, stream: &str) -> Result<CappedLog, LaunchError> {
        CappedLog::create(path, stream, self.config.log_cap_bytes).map_err(|source| {
            LaunchError::Log {
                doing: format!("creating the log {}", path.display()),
                source,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test binary's `main` is the test harness, which never calls
    /// `helper_main`: named as the helper, it would run the tests again for every
    /// command instead of setting the limits.
    #[test]
    fn a_host_that_never_runs_the_helper_entry_point_gets_a_typed_error() {
        let this = std::env::current_exe().unwrap();
        let config = LauncherConfig {
            limiter: Some(this),
            ..LauncherConfig::default()
        };
        let error = Launcher::new(config).unwrap_err();
        assert!(matches!(error, HelperError::NotInstalled { .. }), "{error}");
        assert!(error.to_string().contains("helper_main"), "{error}");
    }

    #[test]
    fn a_program_that_is_not_the_helper_is_refused() {
        let path = std::env::var_os("PATH");
        let not_helper = find_program("true", path.as_deref()).unwrap();
        let config = LauncherConfig {
            limiter: Some(not_helper),
            ..LauncherConfig::default()
        };
        let error = Launcher::new(config).unwrap_err();
        assert!(matches!(error, HelperError::NoAnswer { .. }), "{error}");
        let missing = LauncherConfig {
            limiter: Some(PathBuf::from("/nonexistent/limits-helper")),
            ..LauncherConfig::default()
        };
        let error = Launcher::new(missing).unwrap_err();
        assert!(matches!(error, HelperError::Spawn { .. }), "{error}");
    }
}
