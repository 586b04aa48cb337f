//! The cgroup of each command: a cap on its processes (`pids`) and on its memory
//! (`memory`), which bind root too (`RLIMIT_NPROC` does not).
//!
//! The runtime makes one cgroup of its own beneath the cgroup it runs in
//! (`holon-<pid>-<start time>-<n>`), and one per command beneath that (`cmd-<n>`). The limits
//! helper writes its own pid into the command's `cgroup.procs` before it confines
//! itself and execs the command, so the command and all it starts are in it from
//! their first instruction, and Landlock then keeps them from writing any cgroup file
//! (to leave it). A command's cgroup is empty exactly when every process the command
//! started is gone (a `setsid` job included): the kernel's answer to "is it done".
//!
//! The runtime holds a lock (`flock`) on its directory while it lives. Before making
//! its own, it sweeps the directories of runtimes that are gone (SIGKILLed, so they
//! could not end their commands): in each command cgroup its store recorded, every
//! process is killed, unless the store still lists that cgroup's task as running in
//! the background (the task stays, for TaskStop). Cgroups its store does not know
//! (another state directory's) are left to their own next runtime.
//!
//! cgroup v2 is used where the runtime's cgroup offers and delegates both
//! controllers; else cgroup v1's `pids` and `memory` hierarchies, each where the
//! runtime may create a directory in it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use holon_core::prelude::{JsonSchema, Serialize, schemars};

use super::group;

/// The default cap on the processes (threads: the kernel counts those) of one command.
pub const DEFAULT_PIDS_MAX: u64 = 1024;

/// The default cap on the memory of one command (its processes together): 8 GiB.
pub const DEFAULT_MEMORY_BYTES: u64 = 8 << 30;

/// How long removing a command's cgroup waits for killed processes to be gone.
const REMOVE_WAIT: Duration = Duration::from_secs(2);

/// A controller the runtime uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Controller {
    Pids,
    Memory,
}

impl Controller {
    fn name(self) -> &'static str {
        match self {
            Self::Pids => "pids",
            Self::Memory => "memory",
        }
    }
}

/// Which cgroup interface a directory follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

/// A directory of the runtime's own in one hierarchy, and the controllers it caps.
#[derive(Debug)]
struct Hierarchy {
    version: Version,
    controllers: Vec<Controller>,
    dir: PathBuf,
    /// Held while the runtime lives: a directory whose lock no process holds is a
    /// gone runtime's (released by the kernel however the runtime ended).
    _lock: std::fs::File,
    /// The processes that gone runtimes left here, ended before the directory was made.
    swept: BTreeSet<u32>,
}

/// What the runtime's store says of a command cgroup that a runtime that is gone left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftCgroup {
    /// The store did not record it: another state directory's (its next runtime
    /// decides), or one made just before its runtime died. Removed only when empty.
    Unknown,
    /// The cgroup of a command that ended, or that ran in the foreground of the dead
    /// runtime (no one holds its task): every process left in it is ended.
    Ended,
    /// The cgroup of a background task the store still lists as running: spared, so
    /// that the next runtime finds the task running and TaskStop can end it.
    RunningTask,
}

/// The caps a command's cgroup gets; `None` leaves one uncapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CgroupCaps {
    /// `pids.max`.
    pub pids: Option<u64>,
    /// `memory.max` (v2) or `memory.limit_in_bytes` (v1), swap included where the
    /// kernel accounts it.
    pub memory_bytes: Option<u64>,
}

/// The cgroup of the runtime, beneath which each command gets one.
#[derive(Debug)]
pub struct CgroupRoot {
    hierarchies: Vec<Hierarchy>,
    /// Why a controller is not used, one sentence each.
    missing: Vec<String>,
    next: AtomicU64,
}

/// Which cap a command ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LimitHit {
    /// The kernel killed a process of it for going over the memory cap.
    MemoryCap,
    /// The kernel refused it a process (a fork) at the process cap.
    ProcessCap,
}

impl LimitHit {
    /// What happened, and what to do, for the model.
    pub fn explain(self, caps: CgroupCaps) -> String {
        let cap = |value: Option<u64>| value.map_or_else(|| "none".to_string(), |v| v.to_string());
        match self {
            Self::MemoryCap => format!(
                "killed by the memory cap of its cgroup ({} bytes for the command and all it started): use less memory (smaller inputs, fewer parallel jobs) or ask the operator to raise the memory cap of commands (`mem=...` in their limits)",
                cap(caps.memory_bytes)
            ),
            Self::ProcessCap => format!(
                "the process cap of its cgroup ({} processes and threads for the command and all it started) refused it a fork: run fewer processes at once or ask the operator to raise the process cap of commands (`pids=...` in their limits)",
                cap(caps.pids)
            ),
        }
    }
}

impl CgroupRoot {
    /// Creates the runtime's cgroup for `caps`: v2 where both controllers are
    /// delegated, else v1 `pids` and `memory` where writable, after sweeping the
    /// command cgroups of runtimes that are gone as `judge` says of each. Fails
    /// with why, one sentence, when no controller can be used.
    pub fn create(
        caps: CgroupCaps,
        judge: &dyn Fn(&Path) -> LeftCgroup,
    ) -> Result<Arc<Self>, String> {
        let mut wanted = Vec::new();
        if caps.pids.is_some() {
            wanted.push(Controller::Pids);
        }
        if caps.memory_bytes.is_some() {
            wanted.push(Controller::Memory);
        }
        if wanted.is_empty() {
            return Err("no pids or memory cap is set in the command limits".to_string());
        }
        let mounts = std::fs::read_to_string("/proc/self/mountinfo")
            .map_err(|error| format!("/proc/self/mountinfo cannot be read: {error}"))?;
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|error| format!("/proc/self/cgroup cannot be read: {error}"))?;
        let mounts = parse_mounts(&mounts);
        let own = parse_own(&own);
        let mut missing = Vec::new();
        match v2(&mounts, &own, &wanted, judge) {
            Ok(hierarchy) => {
                return Ok(Arc::new(Self {
                    hierarchies: vec![hierarchy],
                    missing,
                    next: AtomicU64::new(1),
                }));
            }
            Err(why) => missing.push(why),
        }
        let mut hierarchies: Vec<Hierarchy> = Vec::new();
        let mut v1_missing = Vec::new();
        for controller in &wanted {
            match v1(&mounts, &own, *controller, judge) {
                Ok(hierarchy) => hierarchies.push(hierarchy),
                Err(why) => v1_missing.push(why),
            }
        }
        if hierarchies.is_empty() {
            missing.extend(v1_missing);
            return Err(missing.join("; "));
        }
        Ok(Arc::new(Self {
            hierarchies,
            // v2 not being usable is not a gap once v1 caps both.
            missing: v1_missing,
            next: AtomicU64::new(1),
        }))
    }

    /// What is enforced, e.g. `cgroup v1: pids, memory`.
    pub fn describe(&self) -> String {
        self.hierarchies
            .iter()
            .map(|hierarchy| {
                let names: Vec<_> = hierarchy.controllers.iter().map(|c| c.name()).collect();
                let version = match hierarchy.version {
                    Version::V1 => "v1",
                    Version::V2 => "v2",
                };
                // The parent: the runtime's own directory is named after its pid.
                let parent = hierarchy.dir.parent().unwrap_or(&hierarchy.dir);
                format!(
                    "cgroup {version} {} (beneath {})",
                    names.join(", "),
                    parent.display()
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Why a wanted controller is not used, one sentence each.
    pub fn missing(&self) -> &[String] {
        &self.missing
    }

    /// How many processes, left running by runtimes that are gone, the sweep before
    /// this runtime's cgroup was made ended.
    pub fn swept(&self) -> usize {
        self.hierarchies
            .iter()
            .flat_map(|hierarchy| &hierarchy.swept)
            .collect::<BTreeSet<_>>()
            .len()
    }

    /// A new cgroup for one command, with `caps` written.
    pub fn command(self: &Arc<Self>, caps: CgroupCaps) -> std::io::Result<CommandCgroup> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let mut made = CommandCgroup {
            dirs: Vec::new(),
            caps,
            _root: Arc::clone(self),
        };
        for hierarchy in &self.hierarchies {
            let dir = hierarchy.dir.join(format!("cmd-{n}"));
            std::fs::create_dir(&dir)?;
            made.dirs
                .push((hierarchy.version, hierarchy.controllers.clone(), dir));
        }
        for (version, controllers, dir) in &made.dirs {
            for controller in controllers {
                write_cap(*version, *controller, dir, caps)?;
            }
        }
        Ok(made)
    }
}

impl Drop for CgroupRoot {
    /// Removes the runtime's directories (every command's is gone by then).
    fn drop(&mut self) {
        for hierarchy in &self.hierarchies {
            let _ = std::fs::remove_dir(&hierarchy.dir);
        }
    }
}

fn write_cap(
    version: Version,
    controller: Controller,
    dir: &Path,
    caps: CgroupCaps,
) -> std::io::Result<()> {
    match (controller, version) {
        (Controller::Pids, _) => {
            if let Some(pids) = caps.pids {
                std::fs::write(dir.join("pids.max"), pids.to_string())?;
            }
        }
        (Controller::Memory, Version::V2) => {
            if let Some(bytes) = caps.memory_bytes {
                std::fs::write(dir.join("memory.max"), bytes.to_string())?;
                // Swap would let it go past the cap unseen; absent without swap.
                let _ = std::fs::write(dir.join("memory.swap.max"), "0");
            }
        }
        (Controller::Memory, Version::V1) => {
            if let Some(bytes) = caps.memory_bytes {
                std::fs::write(dir.join("memory.limit_in_bytes"), bytes.to_string())?;
                // Memory plus swap, no more than memory alone; absent without swap
                // accounting.
                let _ = std::fs::write(dir.join("memory.memsw.limit_in_bytes"), bytes.to_string());
            }
        }
    }
    Ok(())
}

/// The cgroup of one command. Dropping it kills what is left in it and removes it.
#[derive(Debug)]
pub struct CommandCgroup {
    dirs: Vec<(Version, Vec<Controller>, PathBuf)>,
    caps: CgroupCaps,
    /// The runtime's directory outlives its commands'.
    _root: Arc<CgroupRoot>,
}

impl CommandCgroup {
    /// The `cgroup.procs` files the limits helper writes its pid into.
    pub fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs
            .iter()
            .map(|(_, _, dir)| dir.join("cgroup.procs"))
            .collect()
    }

    /// Its caps.
    pub fn caps(&self) -> CgroupCaps {
        self.caps
    }

    /// Its directories, one per hierarchy: what the store records, so that a later
    /// runtime can tell its processes from another command's.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|(_, _, dir)| dir.clone()).collect()
    }

    /// The processes in it (of the first hierarchy: each holds them all).
    pub fn pids(&self) -> Vec<u32> {
        self.dirs
            .first()
            .map(|(_, _, dir)| procs(dir))
            .unwrap_or_default()
    }

    /// Whether no process of the command is left (a directory already removed is).
    pub fn is_empty(&self) -> bool {
        self.pids().is_empty()
    }

    /// Which cap the command ran into, the memory cap first.
    pub fn limit_hit(&self) -> Option<LimitHit> {
        let mut hit = None;
        for (version, controllers, dir) in &self.dirs {
            for controller in controllers {
                let (file, key) = match (controller, version) {
                    (Controller::Memory, Version::V1) => ("memory.oom_control", "oom_kill"),
                    (Controller::Memory, Version::V2) => ("memory.events", "oom_kill"),
                    (Controller::Pids, _) => ("pids.events", "max"),
                };
                if counter(&dir.join(file), key) > 0 {
                    match controller {
                        Controller::Memory => return Some(LimitHit::MemoryCap),
                        Controller::Pids => hit = Some(LimitHit::ProcessCap),
                    }
                }
            }
        }
        hit
    }

    /// Sends SIGKILL once to every process in it, without waiting.
    pub fn signal_all(&self) {
        signal(&self.pids());
    }

    /// Sends SIGKILL to every process in it, until none is left or 2 s
    /// passed (a process forking meanwhile is found on the next round); whether it
    /// is empty.
    pub fn kill_all(&self) -> bool {
        self.dirs
            .first()
            .is_none_or(|(_, _, dir)| kill_until_empty(dir))
    }

    /// Removes its directories if no process is left in it; whether they are gone.
    pub fn remove_if_empty(&self) -> bool {
        if !self.is_empty() {
            return false;
        }
        self.dirs
            .iter()
            .all(|(_, _, dir)| std::fs::remove_dir(dir).is_ok() || !dir.exists())
    }
}

impl Drop for CommandCgroup {
    fn drop(&mut self) {
        self.kill_all();
        // The kernel frees a cgroup a moment after its last process is reaped.
        let deadline = Instant::now() + REMOVE_WAIT;
        while !self.remove_if_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The value of `key` in a flat keyed file (`key value` lines); 0 when absent.
fn counter(path: &Path, key: &str) -> u64 {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(' ')?;
            (name == key).then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0)
}

/// A cgroup filesystem mounted here.
#[derive(Debug)]
struct Mount {
    /// The hierarchy's directory that is mounted (`/` unless a namespace or bind).
    root: PathBuf,
    point: PathBuf,
    v2: bool,
    /// The controllers of a v1 hierarchy.
    controllers: Vec<String>,
}

/// The cgroup mounts of `/proc/self/mountinfo`: `id parent dev root point opts
/// [optional...] - fstype source superopts`.
fn parse_mounts(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let (before, after) = line.split_once(" - ")?;
            let before: Vec<&str> = before.split(' ').collect();
            let after: Vec<&str> = after.split(' ').collect();
            let fstype = *after.first()?;
            let v2 = match fstype {
                "cgroup2" => true,
                "cgroup" => false,
                _ => return None,
            };
            Some(Mount {
                root: PathBuf::from(unescape(before.get(3)?)),
                point: PathBuf::from(unescape(before.get(4)?)),
                v2,
                controllers: after
                    .get(2)
                    .map(|opts| opts.split(',').map(str::to_string).collect())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// mountinfo writes space, tab, newline and backslash as octal escapes.
fn unescape(field: &str) -> String {
    field
        .replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// `/proc/self/cgroup`: (controllers, path) per hierarchy; v2 has no controllers.
fn parse_own(text: &str) -> Vec<(Vec<String>, String)> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            let _id = parts.next()?;
            let controllers = parts.next()?;
            let path = parts.next()?;
            let controllers = controllers
                .split(',')
                .filter(|name| !name.is_empty())
                .map(str::to_string)
                .collect();
            Some((controllers, path.to_string()))
        })
        .collect()
}

/// The directory of our cgroup `path` in `mount`, if the mount shows it.
fn own_dir(mount: &Mount, path: &str) -> Option<PathBuf> {
    let relative = Path::new(path).strip_prefix(&mount.root).ok()?;
    Some(mount.point.join(relative))
}

/// How old a runtime's directory with no command cgroup in it must be before a sweep
/// removes it: a runtime in another pid namespace (whose pid this one cannot see) may
/// have just made it and not yet taken its lock.
const SWEEP_AGE: Duration = Duration::from_secs(60);

/// Ends what runtimes that are gone (killed, so they could not) left in `parent`: in
/// each `holon-*` directory whose runtime is gone (its lock is free, see
/// [`owner_alive`]), each command cgroup `judge` says is [`LeftCgroup::Ended`] has
/// every process killed (a `setsid`, `nohup` or double-forked job cannot leave it)
/// and is removed; an empty one is removed; the others stay. The pids it ended.
fn sweep_stale(parent: &Path, judge: &dyn Fn(&Path) -> LeftCgroup) -> BTreeSet<u32> {
    let mut ended = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(parent) else {
        return ended;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(name) = name.to_str().filter(|name| name.starts_with("holon-")) else {
            continue;
        };
        let dir = entry.path();
        // Held until the sweep of this directory is over, so that two runtimes
        // starting at once do not sweep it both.
        let Ok(lock) = std::fs::File::open(&dir) else {
            continue;
        };
        if lock.try_lock().is_err() || owner_alive(name) {
            continue;
        }
        let commands = command_dirs(&dir);
        // The older form `holon-<pid>-<n>` has no lock, so a live runtime of an older
        // build in another pid namespace may own it: only its empty cgroups go, once old.
        if name.matches('-').count() != 3 {
            for command in commands.iter().filter(|c| older_than(c, SWEEP_AGE)) {
                let _ = std::fs::remove_dir(command);
            }
            if older_than(&dir, SWEEP_AGE) {
                let _ = std::fs::remove_dir(&dir);
            }
            continue;
        }
        for command in &commands {
            if judge(command) == LeftCgroup::Ended {
                ended.extend(end_processes(command));
                remove_when_freed(command);
            } else {
                // Fails while processes are in it.
                let _ = std::fs::remove_dir(command);
            }
        }
        // One made a moment ago in another pid namespace has not taken its lock yet;
        // one that held commands had.
        if !commands.is_empty() || older_than(&dir, SWEEP_AGE) {
            let _ = std::fs::remove_dir(&dir);
        }
    }
    ended
}

/// The `cmd-*` cgroups in a runtime's directory.
fn command_dirs(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|commands| {
            commands
                .filter_map(Result::ok)
                .filter(|command| {
                    command
                        .file_name()
                        .to_str()
                        .is_some_and(|n| n.starts_with("cmd-"))
                })
                .map(|command| command.path())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `path` was last changed longer than `age` ago.
fn older_than(path: &Path, age: Duration) -> bool {
    std::fs::metadata(path)
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|at| at.elapsed().ok())
        .is_some_and(|elapsed| elapsed > age)
}

/// Kills every process in the command cgroup `dir`; the pids it found there.
fn end_processes(dir: &Path) -> Vec<u32> {
    let found = procs(dir);
    // cgroup v2 ends them all at once (Linux 5.14); v1 has no such file.
    let _ = std::fs::write(dir.join("cgroup.kill"), "1");
    kill_until_empty(dir);
    found
}

/// Ends the processes left in `dir`, the recorded cgroup of a task whose runtime is
/// gone (TaskStop of such a task: the jobs it left outside its process group go with
/// it), and removes the cgroup, and its runtime's directory once empty. Anything but
/// a `cmd-*` cgroup in the directory of a runtime that is gone is left alone. How
/// many processes it ended.
pub fn end_left_command(dir: &Path) -> usize {
    let is_command = dir
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("cmd-"));
    let Some(runtime) = dir.parent() else {
        return 0;
    };
    let Some(runtime_name) = runtime
        .file_name()
        .and_then(|name| name.to_str())
        .filter(|name| name.starts_with("holon-"))
    else {
        return 0;
    };
    let Ok(lock) = std::fs::File::open(runtime) else {
        return 0;
    };
    if !is_command || lock.try_lock().is_err() || owner_alive(runtime_name) {
        return 0;
    }
    let ended = end_processes(dir).len();
    if remove_when_freed(dir) && command_dirs(runtime).is_empty() {
        let _ = std::fs::remove_dir(runtime);
    }
    ended
}

/// Whether the runtime named in the directory name `name` still runs, when its lock
/// is free: never for `holon-<pid>-<start>-<n>` (the lock is taken right after the
/// directory is made, and until then the process `pid` started at `start` is it),
/// unless that very process runs; for the older `holon-<pid>-<n>`, which carry no
/// lock, while a process `pid` runs.
fn owner_alive(name: &str) -> bool {
    let parts: Vec<&str> = name.trim_start_matches("holon-").split('-').collect();
    let Some(pid) = parts.first().and_then(|pid| pid.parse::<u32>().ok()) else {
        return false;
    };
    match parts[..] {
        [_, start, _] => start
            .parse::<u64>()
            .is_ok_and(|start| group::start_time(pid) == Some(start)),
        _ => Path::new("/proc").join(pid.to_string()).exists(),
    }
}

/// The processes in the cgroup `dir`.
fn procs(dir: &Path) -> Vec<u32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

/// Sends SIGKILL to every process in the cgroup `dir` until none is left or
/// [`REMOVE_WAIT`] passed (a process forking meanwhile is found on the next round);
/// whether it is empty.
fn kill_until_empty(dir: &Path) -> bool {
    let deadline = Instant::now() + REMOVE_WAIT;
    loop {
        let pids = procs(dir);
        if pids.is_empty() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        signal(&pids);
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Sends SIGKILL once to each of `pids`.
fn signal(pids: &[u32]) {
    for pid in pids {
        if let Some(pid) = i32::try_from(*pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

/// Removes the empty cgroup `dir`, waiting up to [`REMOVE_WAIT`] for the kernel to
/// free it (a moment after its last process is reaped); whether it is gone.
fn remove_when_freed(dir: &Path) -> bool {
    let deadline = Instant::now() + REMOVE_WAIT;
    loop {
        if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The runtime's directory in one hierarchy, locked for as long as the runtime
/// lives, and what the sweep before it ended.
#[derive(Debug)]
struct RuntimeDir {
    dir: PathBuf,
    lock: std::fs::File,
    swept: BTreeSet<u32>,
}

/// Makes the runtime's directory in `parent`, `holon-<pid>-<start>-<n>`, after
/// sweeping what gone runtimes left there, and takes its lock.
fn make_runtime_dir(
    parent: &Path,
    judge: &dyn Fn(&Path) -> LeftCgroup,
) -> Result<RuntimeDir, String> {
    static MADE: AtomicU64 = AtomicU64::new(0);
    let swept = sweep_stale(parent, judge);
    let pid = std::process::id();
    let start = group::start_time(pid)
        .ok_or("this process's start time cannot be read from /proc/self/stat")?;
    loop {
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("holon-{pid}-{start}-{n}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                // Blocking: a sweep that found it before the lock was taken holds
                // the lock a moment and leaves the directory alone.
                let locked = std::fs::File::open(&dir).and_then(|lock| lock.lock().map(|()| lock));
                return match locked {
                    Ok(lock) => Ok(RuntimeDir { dir, lock, swept }),
                    Err(error) => {
                        let _ = std::fs::remove_dir(&dir);
                        Err(format!("cannot lock the cgroup {}: {error}", dir.display()))
                    }
                };
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => {
                return Err(format!(
                    "cannot create a cgroup in {}: {error}",
                    parent.display()
                ));
            }
        }
    }
}

fn v2(
    mounts: &[Mount],
    own: &[(Vec<String>, String)],
    wanted: &[Controller],
    judge: &dyn Fn(&Path) -> LeftCgroup,
) -> Result<Hierarchy, String> {
    let path = own
        .iter()
        .find(|(controllers, _)| controllers.is_empty())
        .map(|(_, path)| path.as_str())
        .ok_or("this process is in no cgroup v2")?;
    let dir = mounts
        .iter()
        .filter(|mount| mount.v2)
        .find_map(|mount| own_dir(mount, path))
        .ok_or("no cgroup2 filesystem is mounted that shows this process's cgroup")?;
    let offered = std::fs::read_to_string(dir.join("cgroup.controllers")).unwrap_or_default();
    let lacking: Vec<&str> = wanted
        .iter()
        .map(|controller| controller.name())
        .filter(|name| !offered.split_whitespace().any(|offered| offered == *name))
        .collect();
    if !lacking.is_empty() {
        return Err(format!(
            "cgroup v2 ({}) does not offer the {} controller (it is bound to a v1 hierarchy, or not delegated)",
            dir.display(),
            lacking.join(" and ")
        ));
    }
    let enable: String = wanted
        .iter()
        .map(|controller| format!("+{} ", controller.name()))
        .collect();
    // A cgroup with processes of its own cannot pass controllers down (v2's
    // no-internal-processes rule), unless someone delegated them already.
    std::fs::write(dir.join("cgroup.subtree_control"), enable.trim()).map_err(|error| {
        format!(
            "cgroup v2 controllers cannot be enabled below {}: {error}",
            dir.display()
        )
    })?;
    let runtime = make_runtime_dir(&dir, judge)?;
    if let Err(error) = std::fs::write(runtime.dir.join("cgroup.subtree_control"), enable.trim()) {
        let _ = std::fs::remove_dir(&runtime.dir);
        return Err(format!(
            "cgroup v2 controllers cannot be enabled below {}: {error}",
            runtime.dir.display()
        ));
    }
    Ok(Hierarchy {
        version: Version::V2,
        controllers: wanted.to_vec(),
        dir: runtime.dir,
        _lock: runtime.lock,
        swept: runtime.swept,
    })
}

fn v1(
    mounts: &[Mount],
    own: &[(Vec<String>, String)],
    controller: Controller,
    judge: &dyn Fn(&Path) -> LeftCgroup,
) -> Result<Hierarchy, String> {
    let name = controller.name();
    let path = own
        .iter()
        .find(|(controllers, _)| controllers.iter().any(|c| c == name))
        .map(|(_, path)| path.as_str())
        .ok_or_else(|| format!("no cgroup v1 hierarchy has the {name} controller"))?;
    let dir = mounts
        .iter()
        .filter(|mount| !mount.v2 && mount.controllers.iter().any(|c| c == name))
        .find_map(|mount| own_dir(mount, path))
        .ok_or_else(|| format!("the cgroup v1 {name} hierarchy is not mounted here"))?;
    let runtime = make_runtime_dir(&dir, judge)?;
    Ok(Hierarchy {
        version: Version::V1,
        controllers: vec![controller],
        dir: runtime.dir,
        _lock: runtime.lock,
        swept: runtime.swept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_mounts_and_the_own_cgroups() {
        let mounts = parse_mounts(
            "30 25 0:26 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n\
             31 25 0:27 /sub /sys/fs/cgroup/unified rw shared:9 - cgroup2 cgroup2 rw\n\
             32 25 0:28 / /proc rw - proc proc rw\n",
        );
        assert_eq!(mounts.len(), 2);
        assert!(!mounts[0].v2 && mounts[0].controllers.contains(&"pids".to_string()));
        assert!(mounts[1].v2);
        let own = parse_own("8:pids:/a/b\n4:memory,hugetlb:/m\n0::/sub/c\n");
        assert_eq!(own[1].0, ["memory", "hugetlb"]);
        assert_eq!(
            own_dir(&mounts[1], &own[2].1).unwrap(),
            Path::new("/sys/fs/cgroup/unified/c")
        );
        assert_eq!(
            own_dir(&mounts[0], &own[0].1).unwrap(),
            Path::new("/sys/fs/cgroup/pids/a/b")
        );
        assert!(own_dir(&mounts[1], "/elsewhere").is_none());
    }

    #[test]
    fn a_runtime_directory_is_alive_while_its_very_process_runs() {
        let pid = std::process::id();
        let start = group::start_time(pid).unwrap();
        assert!(owner_alive(&format!("holon-{pid}-{start}-0")));
        // The same pid, started at another time: a later process that got the number.
        assert!(!owner_alive(&format!("holon-{pid}-{}-0", start + 1)));
        assert!(
            owner_alive(&format!("holon-{pid}-3")),
            "the older form: by pid"
        );
        assert!(!owner_alive(&format!("holon-{}-3", u32::MAX)));
        assert!(!owner_alive("holon-x-1-2"));
    }

    #[test]
    fn reads_a_counter() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pids.events");
        std::fs::write(&file, "max 17\n").unwrap();
        assert_eq!(counter(&file, "max"), 17);
        assert_eq!(counter(&file, "oom_kill"), 0);
        assert_eq!(counter(&dir.path().join("none"), "max"), 0);
    }
}
