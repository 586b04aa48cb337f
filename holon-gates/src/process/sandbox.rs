//! The Landlock confinement of commands: what a command may read, write, connect to
//! and signal, applied by the command's own process (the limits helper) right before
//! it execs the command, so that the command and everything it starts run under it.
//!
//! - Reads and executes: everywhere except the hidden paths (the state directory, the
//!   MCP token file). Landlock only grants, so "everywhere except" is granted as the
//!   siblings of every directory on the way down to a hidden path.
//! - Writes: beneath the workspace roots (worktrees included) and the private
//!   temporary directory, plus a few devices (`/dev/null`, terminals). A hidden path
//!   inside a workspace root is not protected (keep the state directory outside the
//!   workspace, as it is by default).
//! - TCP connect and bind (ABI 4): none unless [`Confinement::network`] is set.
//! - Signals and abstract unix sockets (ABI 6): only within the command's own
//!   domain, so the runtime cannot be signalled.
//! - ptrace and `/proc/<pid>/environ`, `mem` of a process outside the domain are
//!   refused by Landlock at every ABI; the command also loses `CAP_SYS_PTRACE`,
//!   `CAP_PERFMON` and `CAP_SYS_ADMIN`, with which the kernel reads `environ` past it.
//!
//! On a kernel with an older ABI the rights it does not know are left out (Landlock's
//! best effort); [`probe`] says which are enforced. What Landlock does not scope
//! (limits and scheduling of other processes, sockets other than TCP) is the seccomp
//! filter's ([`super::syscall_filter`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    RestrictionStatus, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError, Scope,
};
use serde::{Deserialize, Serialize};

/// The newest Landlock ABI whose rights the confinement was written and tested for.
const VETTED_ABI: ABI = ABI::V6;

/// Devices every command may write (and use as terminals), whatever its roots.
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// What one command is confined to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confinement {
    /// Directories the command may write beneath (the workspace roots, worktrees,
    /// its temporary directory).
    pub write_roots: Vec<PathBuf>,
    /// Paths the command may not reach at all (the state directory, a token file).
    pub hidden: Vec<PathBuf>,
    /// Whether the command may connect to and bind TCP ports, and (through the
    /// seccomp filter) create sockets other than Unix ones.
    pub network: bool,
}

/// Whether commands may use the network: TCP connect and bind, and sockets other
/// than Unix ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CommandNetwork {
    /// Only the commands of a caller allowed the `web` family.
    #[default]
    ByFamily,
    /// Every command.
    Allow,
    /// No command.
    Deny,
}

impl CommandNetwork {
    /// `by-family`, `allow` or `deny`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "by-family" => Some(Self::ByFamily),
            "allow" => Some(Self::Allow),
            "deny" => Some(Self::Deny),
            _ => None,
        }
    }

    /// Whether a command of a caller that `web` (has the `web` family) may use TCP.
    pub fn allows(self, web: bool) -> bool {
        match self {
            Self::ByFamily => web,
            Self::Allow => true,
            Self::Deny => false,
        }
    }
}

/// Why a confinement could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// The confinement's text (an argument of the helper) is not valid.
    #[error("the confinement `{text}` cannot be read: {source}")]
    Parse {
        /// The text.
        text: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// Landlock refused the ruleset.
    #[error("Landlock refused the confinement: {0}")]
    Landlock(#[from] RulesetError),
}

impl Confinement {
    /// The confinement as one argument of the limits helper.
    pub fn to_arg(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The confinement [`Confinement::to_arg`] wrote.
    pub fn parse(text: &str) -> Result<Self, ConfineError> {
        serde_json::from_str(text).map_err(|source| ConfineError::Parse {
            text: text.to_string(),
            source,
        })
    }

    /// Confines this process (and what it execs) for good. Where the kernel has no
    /// Landlock, nothing is enforced and the status says so.
    pub fn restrict_self(&self) -> Result<RestrictionStatus, ConfineError> {
        let hidden = canonical_set(&self.hidden);
        let read = AccessFs::from_read(VETTED_ABI);
        let all = AccessFs::from_all(VETTED_ABI);
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(all)?
            .scope(Scope::from_all(VETTED_ABI))?;
        if !self.network {
            ruleset = ruleset.handle_access(AccessNet::from_all(VETTED_ABI))?;
        }
        let mut rules: Vec<(PathBuf, BitFlags<AccessFs>)> = beneath_except(Path::new("/"), &hidden)
            .into_iter()
            .map(|path| (path, read))
            .collect();
        // A root is granted whole: Landlock cannot take a hidden path inside it out of
        // its rule without also taking away the creation of entries at its top.
        rules.extend(
            canonical_set(&self.write_roots)
                .into_iter()
                .map(|root| (root, all)),
        );
        rules.extend(
            WRITABLE_DEVICES
                .iter()
                .map(|device| (PathBuf::from(device), all)),
        );
        let mut created = ruleset.create()?;
        for (path, access) in rules {
            // A path gone since it was listed has nothing to grant.
            let Ok(fd) = PathFd::new(&path) else { continue };
            // A file takes only the rights of files.
            let access = if std::fs::metadata(&path).is_ok_and(|meta| meta.is_dir()) {
                access
            } else {
                access & AccessFs::from_file(VETTED_ABI)
            };
            created = created.add_rule(PathBeneath::new(fd, access))?;
        }
        let status = created.restrict_self()?;
        drop_trace_capabilities();
        Ok(status)
    }
}

/// Takes the capabilities that open the runtime's memory and `/proc` files out of
/// this process's bounding set, so that a command run as root does not get them back
/// at exec: `CAP_SYS_PTRACE` (ptrace, `/proc/<pid>/mem` of a non-dumpable process),
/// and `CAP_PERFMON` and `CAP_SYS_ADMIN`, with either of which the kernel (6.x) lets
/// `/proc/<pid>/environ` and `maps` be read past the ptrace checks, Landlock's
/// included. Without the right to drop them (not root) there is nothing to drop.
fn drop_trace_capabilities() {
    for capability in [
        rustix::thread::CapabilitySet::SYS_PTRACE,
        rustix::thread::CapabilitySet::PERFMON,
        rustix::thread::CapabilitySet::SYS_ADMIN,
    ] {
        let _ = rustix::thread::remove_capability_from_bounding_set(capability);
    }
}

/// The canonical forms of `paths` that exist.
fn canonical_set(paths: &[PathBuf]) -> BTreeSet<PathBuf> {
    paths
        .iter()
        .filter_map(|path| std::fs::canonicalize(path).ok())
        .collect()
}

/// Paths whose beneath-rules together cover `root` less everything at or beneath a
/// path of `hidden` (canonical). Directories on the way down to a hidden path get no
/// rule themselves (their own entries stay listable only through their siblings'
/// rules); symlinks count by what they lead to, so that none leads into a hidden path.
fn beneath_except(root: &Path, hidden: &BTreeSet<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut visited = BTreeSet::new();
    collect(root, hidden, &mut out, &mut visited);
    out
}

fn collect(
    dir: &Path,
    hidden: &BTreeSet<PathBuf>,
    out: &mut Vec<PathBuf>,
    visited: &mut BTreeSet<PathBuf>,
) {
    if hidden.iter().any(|path| dir.starts_with(path)) || !visited.insert(dir.to_path_buf()) {
        return;
    }
    if !hidden.iter().any(|path| path.starts_with(dir)) {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let Ok(target) = std::fs::canonicalize(entry.path()) else {
            continue;
        };
        let is_dir = std::fs::metadata(&target).is_ok_and(|meta| meta.is_dir());
        if is_dir {
            collect(&target, hidden, out, visited);
        } else if !hidden.contains(&target) {
            out.push(target);
        }
    }
}

/// What Landlock enforces on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LandlockSupport {
    /// The highest Landlock ABI the kernel offers (up to the newest this build
    /// knows); 0 without Landlock.
    pub abi: u8,
    /// Why there is none, when `abi` is 0.
    pub missing: Option<String>,
    /// Filesystem rights (ABI 1: read, write, execute; 2: refer; 3: truncate).
    pub filesystem: bool,
    /// TCP connect and bind rules (ABI 4).
    pub network: bool,
    /// Device ioctl rules (ABI 5).
    pub device_ioctl: bool,
    /// Signals and abstract unix sockets scoped to the command (ABI 6).
    pub scoped_signals: bool,
}

/// What Landlock enforces here: the highest ABI whose rights a ruleset may require
/// (a ruleset is created, never applied: this process stays unconfined).
pub fn probe() -> LandlockSupport {
    let requires = |abi: ABI| -> Result<(), RulesetError> {
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(abi))?;
        if abi >= ABI::V4 {
            ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
        }
        if abi >= ABI::V6 {
            ruleset = ruleset.scope(Scope::from_all(abi))?;
        }
        ruleset.create().map(drop)
    };
    let known = [
        (ABI::V1, 1),
        (ABI::V2, 2),
        (ABI::V3, 3),
        (ABI::V4, 4),
        (ABI::V5, 5),
        (ABI::V6, 6),
        (ABI::V7, 7),
    ];
    let mut abi = 0;
    let mut missing = None;
    for (candidate, number) in known {
        match requires(candidate) {
            Ok(()) => abi = number,
            Err(error) => {
                if abi == 0 {
                    missing = Some(error.to_string());
                }
                break;
            }
        }
    }
    LandlockSupport {
        abi,
        missing,
        filesystem: abi >= 1,
        network: abi >= 4,
        device_ioctl: abi >= 5,
        scoped_signals: abi >= 6,
    }
}

impl LandlockSupport {
    /// What commands are not protected from on this kernel, one sentence each;
    /// empty when every confinement holds.
    pub fn gaps(&self) -> Vec<String> {
        if self.abi == 0 {
            return vec![format!(
                "this kernel has no Landlock ({}): commands run unconfined: they may write \
                 outside the workspace, read the state directory, signal or trace the \
                 runtime, and connect anywhere",
                self.missing.as_deref().unwrap_or("not available")
            )];
        }
        let mut gaps = Vec::new();
        if !self.network {
            gaps.push(format!(
                "Landlock ABI {} has no network rules (ABI 4, Linux 6.7): commands of callers \
                 without the web family may still use TCP",
                self.abi
            ));
        }
        if !self.scoped_signals {
            gaps.push(format!(
                "Landlock ABI {} cannot scope signals (ABI 6, Linux 6.12): commands may \
                 signal the runtime",
                self.abi
            ));
        }
        gaps
    }
}

/// Reports, once per process, as `tracing` warnings, what the confinement of
/// commands (Landlock and the seccomp filter) lacks on this kernel (nothing when all
/// of it holds).
pub fn report_gaps_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let filter_gap = super::syscall_filter::probe().gap();
        for gap in probe().gaps().into_iter().chain(filter_gap) {
            tracing::warn!("{gap}");
        }
    });
}

/// Makes this process non-dumpable: no core dump, and its `/proc/<pid>/environ`,
/// `mem` and ptrace closed to processes of the same user that lack `CAP_SYS_PTRACE`
/// (the commands it starts; Landlock closes them to root's commands too).
pub fn make_undumpable() -> std::io::Result<()> {
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(std::io::Error::from)
}

/// Whether this process is dumpable.
pub fn is_dumpable() -> bool {
    matches!(
        rustix::process::dumpable_behavior(),
        Ok(rustix::process::DumpableBehavior::Dumpable)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_cover_everything_but_the_hidden_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for sub in ["a/state/x", "a/b", "c"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join("a/file"), "").unwrap();
        std::os::unix::fs::symlink(root.join("a/state"), root.join("c/link")).unwrap();
        let hidden: BTreeSet<PathBuf> = [root.join("a/state")].into();
        let mut rules = beneath_except(&root, &hidden);
        rules.sort();
        assert_eq!(
            rules,
            [root.join("a/b"), root.join("a/file"), root.join("c")]
        );
        // Landlock follows the real hierarchy: `c/link` does not lead into `a/state`.
        let hidden: BTreeSet<PathBuf> = [root.join("a/state/x")].into();
        assert!(!beneath_except(&root, &hidden).contains(&root.join("a/state/x")));
        assert_eq!(
            beneath_except(&root.join("c"), &BTreeSet::new()),
            [root.join("c")]
        );
    }

    #[test]
    fn a_confinement_reads_back() {
        let confinement = Confinement {
            write_roots: vec![PathBuf::from("/w")],
            hidden: vec![PathBuf::from("/s")],
            network: true,
        };
        assert_eq!(
            Confinement::parse(&confinement.to_arg()).unwrap(),
            confinement
        );
        assert!(Confinement::parse("{").is_err());
    }
}
