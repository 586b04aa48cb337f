//! The cgroup of each command: a cap on its processes (`pids`) and on its memory
//! (`memory`), which bind root too (`RLIMIT_NPROC` does not).
//!
//! The runtime makes one cgroup of its own beneath the cgroup it runs in
//! (`holon-<pid>-<n>`), and one per command beneath that (`cmd-<n>`). The limits
//! helper writes its own pid into the command's `cgroup.procs` before it confines
//! itself and execs the command, so the command and all it starts are in it from
//! their first instruction, and Landlock then keeps them from writing any cgroup file
//! (to leave it). A command's cgroup is empty exactly when every process the command
//! started is gone (a `setsid` job included): the kernel's answer to "is it done".
//!
//! cgroup v2 is used where the runtime's cgroup offers and delegates both
//! controllers; else cgroup v1's `pids` and `memory` hierarchies, each where the
//! runtime may create a directory in it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use holon_core::prelude::{JsonSchema, Serialize, schemars};

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
                "killed by the memory cap of its cgroup ({} bytes for the command and all it started): use less memory (smaller inputs, fewer parallel jobs) or ask the operator to raise `--command-limits mem=...`",
                cap(caps.memory_bytes)
            ),
            Self::ProcessCap => format!(
                "the process cap of its cgroup ({} processes and threads for the command and all it started) refused it a fork: run fewer processes at once or ask the operator to raise `--command-limits pids=...`",
                cap(caps.pids)
            ),
        }
    }
}

impl CgroupRoot {
    /// Creates the runtime's cgroup for `caps`: v2 where both controllers are
    /// delegated, else v1 `pids` and `memory` where writable. Fails with why, one
    /// sentence, when no controller can be used.
    pub fn create(caps: CgroupCaps) -> Result<Arc<Self>, String> {
        let mut wanted = Vec::new();
        if caps.pids.is_some() {
            wanted.push(Controller::Pids);
        }
        if caps.memory_bytes.is_some() {
            wanted.push(Controller::Memory);
        }
        if wanted.is_empty() {
            return Err("no pids or memory cap is set (`--command-limits`)".to_string());
        }
        let mounts = std::fs::read_to_string("/proc/self/mountinfo")
            .map_err(|error| format!("/proc/self/mountinfo cannot be read: {error}"))?;
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|error| format!("/proc/self/cgroup cannot be read: {error}"))?;
        let mounts = parse_mounts(&mounts);
        let own = parse_own(&own);
        let mut missing = Vec::new();
        match v2(&mounts, &own, &wanted) {
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
            match v1(&mounts, &own, *controller) {
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

    /// The processes in it (of the first hierarchy: each holds them all).
    pub fn pids(&self) -> Vec<u32> {
        let Some((_, _, dir)) = self.dirs.first() else {
            return Vec::new();
        };
        std::fs::read_to_string(dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
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
        for pid in self.pids() {
            if let Some(pid) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
            {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }

    /// Sends SIGKILL to every process in it, until none is left or 2 s
    /// passed (a process forking meanwhile is found on the next round); whether it
    /// is empty.
    pub fn kill_all(&self) -> bool {
        let deadline = Instant::now() + REMOVE_WAIT;
        loop {
            let pids = self.pids();
            if pids.is_empty() {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            self.signal_all();
            std::thread::sleep(Duration::from_millis(5));
        }
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

/// How old a directory must be before a sweep removes it: a runtime in another pid
/// namespace (whose pid this one cannot see) may have just made it.
const SWEEP_AGE: Duration = Duration::from_secs(60);

/// Removes what runtimes that are gone (killed, so they could not) left in
/// `parent`: each `holon-<pid>-<n>` whose pid runs no process, with its commands'
/// cgroups that are empty, when older than [`SWEEP_AGE`]. A cgroup with processes
/// left cannot be removed, and stays.
fn sweep_stale(parent: &Path) {
    let old = |path: &Path| {
        std::fs::metadata(path)
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|at| at.elapsed().ok())
            .is_some_and(|age| age > SWEEP_AGE)
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix("holon-"))
            .and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        let dir = entry.path();
        if pid.is_empty() || Path::new("/proc").join(pid).exists() || !old(&dir) {
            continue;
        }
        if let Ok(commands) = std::fs::read_dir(&dir) {
            for command in commands.filter_map(Result::ok) {
                let is_command = command
                    .file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with("cmd-"));
                if is_command && old(&command.path()) {
                    let _ = std::fs::remove_dir(command.path());
                }
            }
        }
        let _ = std::fs::remove_dir(&dir);
    }
}

/// Makes the runtime's directory in `parent`: `holon-<pid>-<n>`, after removing
/// what gone runtimes left there.
fn make_runtime_dir(parent: &Path) -> Result<PathBuf, String> {
    static MADE: AtomicU64 = AtomicU64::new(0);
    sweep_stale(parent);
    let pid = std::process::id();
    loop {
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("holon-{pid}-{n}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
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
    let runtime = make_runtime_dir(&dir)?;
    if let Err(error) = std::fs::write(runtime.join("cgroup.subtree_control"), enable.trim()) {
        let _ = std::fs::remove_dir(&runtime);
        return Err(format!(
            "cgroup v2 controllers cannot be enabled below {}: {error}",
            runtime.display()
        ));
    }
    Ok(Hierarchy {
        version: Version::V2,
        controllers: wanted.to_vec(),
        dir: runtime,
    })
}

fn v1(
    mounts: &[Mount],
    own: &[(Vec<String>, String)],
    controller: Controller,
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
    Ok(Hierarchy {
        version: Version::V1,
        controllers: vec![controller],
        dir: make_runtime_dir(&dir)?,
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
    fn reads_a_counter() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pids.events");
        std::fs::write(&file, "max 17\n").unwrap();
        assert_eq!(counter(&file, "max"), 17);
        assert_eq!(counter(&file, "oom_kill"), 0);
        assert_eq!(counter(&dir.path().join("none"), "max"), 0);
    }
}
