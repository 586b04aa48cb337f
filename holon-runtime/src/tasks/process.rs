//! The operating-system side of a task: starting the shell (on pipes, or on a
//! pseudo-terminal) as the leader of its own process group, pumping its output into
//! the log files on threads of their own, reaping it, and signalling its group.
//!
//! The threads are started before the process, so that a process never runs without
//! the pumps that drain its output and the reaper that collects its exit status.

use std::io::{self, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Sender, channel};

use portable_pty::{MasterPty, PtySize, native_pty_system};

use super::{ExitDetails, LaunchSpec, TaskError};
use crate::Store;
use holon_gates::process::group::{self, Member};
use holon_gates::process::{CappedLog, CommandCgroup, Launcher};

/// The signal number of SIGKILL.
pub(super) const SIGKILL: i32 = 9;

/// Output is copied to the logs in chunks of this size: the only buffer a stream has.
const CHUNK_BYTES: usize = 64 * 1024;

/// The terminal size a terminal task starts with.
const TERMINAL_SIZE: PtySize = PtySize {
    rows: 24,
    cols: 120,
    pixel_width: 0,
    pixel_height: 0,
};

/// A started process and its ends.
pub(super) struct Spawned {
    pub(super) child: Child,
    pub(super) pid: u32,
    /// stdout then stderr, or the terminal's single output.
    pub(super) outputs: Vec<Box<dyn Read + Send>>,
    pub(super) input: Option<Box<dyn Write + Send>>,
    pub(super) terminal: Option<Box<dyn MasterPty + Send>>,
    /// The command's cgroup, where commands get one.
    pub(super) cgroup: Option<CommandCgroup>,
}

/// A signal sent to a process group.
#[derive(Debug, Clone, Copy)]
pub(super) enum Signal {
    /// SIGTERM: asks it to exit.
    Term,
    /// SIGKILL: ends it.
    Kill,
}

/// `pid` as the system's type; none for 0 or a number out of its range.
fn os_pid(pid: u32) -> Option<rustix::process::Pid> {
    i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
}

/// Waits until `child` has exited, leaving it unreaped.
fn wait_exited(child: &Child) {
    let Some(pid) = os_pid(child.id()) else {
        return;
    };
    let options = rustix::process::WaitIdOptions::EXITED | rustix::process::WaitIdOptions::NOWAIT;
    // Interrupted: wait again. Any other error: the reaping wait that follows reports it.
    while let Err(rustix::io::Errno::INTR) =
        rustix::process::waitid(rustix::process::WaitId::Pid(pid), options)
    {}
}

/// Sends `signal` to the process group `pgid`. A group with no member left is not an
/// error: there is nothing more to end.
pub(super) fn signal_group(pgid: u32, signal: Signal) {
    let Some(pid) = os_pid(pgid) else {
        return;
    };
    let signal = match signal {
        Signal::Term => rustix::process::Signal::TERM,
        Signal::Kill => rustix::process::Signal::KILL,
    };
    let _ = rustix::process::kill_process_group(pid, signal);
}

/// The shell's arguments for `spec`: `[-l] -c <cmd>`.
fn shell_args(spec: &LaunchSpec) -> Vec<&str> {
    let mut args = Vec::with_capacity(3);
    if spec.login {
        args.push("-l");
    }
    args.push("-c");
    args.push(&spec.cmd);
    args
}

/// Starts the shell for `spec` through the process gate, as the leader of a new
/// process group (a new session under a terminal), in `cgroup` (from
/// [`Launcher::command_cgroup`]) where commands get one.
pub(super) fn spawn(
    launcher: &Launcher,
    spec: &LaunchSpec,
    cgroup: Option<CommandCgroup>,
) -> Result<Spawned, TaskError> {
    let spawn_error = |source| TaskError::Spawn {
        program: spec.shell.clone(),
        source,
    };
    if spec.tty {
        spawn_terminal(launcher, spec, cgroup).map_err(spawn_error)
    } else {
        spawn_pipes(launcher, spec, cgroup).map_err(spawn_error)
    }
}

fn spawn_pipes(
    launcher: &Launcher,
    spec: &LaunchSpec,
    cgroup: Option<CommandCgroup>,
) -> io::Result<Spawned> {
    let mut command = launcher.confined_command(
        &spec.shell,
        &shell_args(spec),
        &spec.workdir,
        &spec.confinement,
        cgroup.as_ref(),
    )?;
    command
        .stdin(if spec.accepts_input {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn()?;
    let pid = child.id();
    let missing = || io::Error::other("the child's pipes were not set up");
    let stdout = child.stdout.take().ok_or_else(missing)?;
    let stderr = child.stderr.take().ok_or_else(missing)?;
    let input = child
        .stdin
        .take()
        .map(|stdin| Box::new(stdin) as Box<dyn Write + Send>);
    Ok(Spawned {
        child,
        pid,
        outputs: vec![Box::new(stdout), Box::new(stderr)],
        input,
        terminal: None,
        cgroup,
    })
}

fn spawn_terminal(
    launcher: &Launcher,
    spec: &LaunchSpec,
    cgroup: Option<CommandCgroup>,
) -> io::Result<Spawned> {
    let pair = native_pty_system()
        .openpty(TERMINAL_SIZE)
        .map_err(into_io)?;
    let builder = launcher.terminal_command(
        &spec.shell,
        &shell_args(spec),
        &spec.workdir,
        &spec.confinement,
        cgroup.as_ref(),
    )?;
    let child = pair.slave.spawn_command(builder).map_err(into_io)?;
    // Only the child may hold the terminal's slave side: the output reaches its end
    // when the last process using the terminal is gone.
    drop(pair.slave);
    let child: Box<dyn portable_pty::Child> = child;
    let child = child
        .downcast::<Child>()
        .map_err(|_| io::Error::other("the terminal's child is not an operating-system process"))?;
    let pid = child.id();
    let output = pair.master.try_clone_reader().map_err(into_io)?;
    let input = if spec.accepts_input {
        Some(pair.master.take_writer().map_err(into_io)?)
    } else {
        None
    };
    Ok(Spawned {
        child: *child,
        pid,
        outputs: vec![output],
        input,
        terminal: Some(pair.master),
        cgroup,
    })
}

fn into_io(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> io::Error {
    let error = error.into();
    match error.downcast::<io::Error>() {
        Ok(error) => *error,
        Err(error) => io::Error::other(error),
    }
}

/// What the pump and reaper threads report, to the task they belong to (a trait, so
/// that this module does not depend on the task that depends on it).
pub(super) trait ProcessEvents: Send + Sync {
    /// Called by a pump after each chunk of output.
    fn on_output(&self);
    /// Called by a pump when its stream ends.
    fn on_stream_closed(&self);
    /// Called by the reaper when the leader has exited, before it is reaped: what it
    /// left running in its group.
    fn on_leader_exited(&self, leftovers: Vec<Member>);
    /// Called by the reaper once the process is reaped.
    fn finish(&self, exit: ExitDetails, store: &Store);
}

/// One output stream to copy into its log.
pub(super) type PumpJob = (Box<dyn Read + Send>, CappedLog, Arc<dyn ProcessEvents>);

/// A process to reap, and where to report its exit.
pub(super) type ReapJob = (Child, Arc<dyn ProcessEvents>, Arc<Store>);

/// The threads of one task, started and waiting for their work.
pub(super) struct Workers {
    pub(super) pumps: Vec<Sender<PumpJob>>,
    pub(super) reaper: Sender<ReapJob>,
}

/// Starts `streams` pump threads and a reaper thread; each waits for its job and
/// ends without doing anything if its sender is dropped instead.
pub(super) fn workers(streams: usize) -> Result<Workers, TaskError> {
    let pumps = (0..streams)
        .map(|_| worker("holon-task-output", pump))
        .collect::<Result<Vec<_>, _>>()?;
    let reaper = worker("holon-task-reaper", reap)?;
    Ok(Workers { pumps, reaper })
}

fn worker<T: Send + 'static>(name: &str, body: fn(T)) -> Result<Sender<T>, TaskError> {
    let (sender, receiver) = channel::<T>();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            if let Ok(job) = receiver.recv() {
                body(job);
            }
        })
        .map_err(|source| TaskError::Io {
            doing: "starting the threads of a task".to_string(),
            source,
        })?;
    Ok(sender)
}

/// Copies a stream into its log until the stream ends, then ends the log (the note
/// of a cut and the kept tail, when the stream went past the cap). Only one chunk is
/// ever in memory, whatever the process prints. When the log cannot be written (a
/// full disk), the stream is still drained so that the process is never blocked on it.
fn pump((mut from, mut to, task): PumpJob) {
    let mut chunk = vec![0u8; CHUNK_BYTES];
    let mut log_ok = true;
    loop {
        match from.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                if log_ok {
                    log_ok = to.write_all(&chunk[..n]).is_ok();
                }
                task.on_output();
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            // A terminal reports EIO once its last user is gone: that is its end.
            Err(_) => break,
        }
    }
    if log_ok {
        let path = to.path().display().to_string();
        if let Err(error) = to.finish() {
            tracing::warn!(log = %path, %error, "cannot finish a task's log");
        }
    }
    task.on_stream_closed();
}

/// Waits for the process and reports how it ended; the wait reaps it. Before that,
/// while the exited leader is a zombie that keeps its pid (the group's id) from being
/// reused, it records what the leader left running in its group.
fn reap((mut child, task, store): ReapJob) {
    wait_exited(&child);
    task.on_leader_exited(group::members(child.id()));
    let status = loop {
        match child.wait() {
            Ok(status) => break Some(status),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break None,
        }
    };
    let exit = ExitDetails {
        code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
    };
    task.finish(exit, &store);
}
