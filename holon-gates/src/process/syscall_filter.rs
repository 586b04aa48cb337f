//! The seccomp filter of commands: the system calls that change another process's
//! limits, priority, scheduling or memory placement, which Landlock does not scope,
//! are refused (`EPERM`) unless they address the command itself; and a command of a
//! caller without the `web` family may create Unix sockets only.
//!
//! The limits helper installs it on itself right before it execs the command (after
//! its own `setrlimit` calls and Landlock), so the helper's pid is the command's pid:
//! "itself" is pid 0 or that pid, and its process group (which it leads) likewise.
//! Every descendant inherits the filter with the same pid, so a child addressing
//! itself by its own pid (not 0) is refused too.
//!
//! | system call | refused when |
//! |---|---|
//! | `prlimit64` | a new limit is given (argument 3 not NULL) for a pid other than 0 or the command's |
//! | `setpriority` | `PRIO_PROCESS` or `PRIO_PGRP` of an id other than 0 or the command's; `PRIO_USER` always |
//! | `ioprio_set` | `IOPRIO_WHO_PROCESS` or `IOPRIO_WHO_PGRP` of an id other than 0 or the command's; `IOPRIO_WHO_USER` always |
//! | `sched_setscheduler`, `sched_setparam`, `sched_setattr`, `sched_setaffinity`, `migrate_pages`, `move_pages` | a pid other than 0 or the command's |
//! | `socket` (no `web` family) | a domain other than `AF_UNIX` |
//! | `io_uring_setup` (no `web` family) | always: io_uring creates sockets without `socket` |
//!
//! Pids and `which` are C `int`s, which the kernel reads from the low 32 bits of the
//! register, so the filter compares those 32 bits. The filter is built for the
//! architecture this binary runs on (its syscall numbers come from `libc`); a system
//! call of another ABI of the same machine (i386 on x86_64) kills the process, and the
//! x32 numbers of the calls above are refused as their x86_64 twins.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use serde::Serialize;

/// `setpriority`'s `which`: one process (thread), a process group, a user's processes.
const PRIO_PROCESS: u64 = 0;
const PRIO_PGRP: u64 = 1;
const PRIO_USER: u64 = 2;

/// `ioprio_set`'s `which`, as `include/uapi/linux/ioprio.h` numbers them.
const IOPRIO_WHO_PROCESS: u64 = 1;
const IOPRIO_WHO_PGRP: u64 = 2;
const IOPRIO_WHO_USER: u64 = 3;

/// The file that lists the actions seccomp filters may return (Linux 4.14).
const ACTIONS_AVAIL: &str = "/proc/sys/kernel/seccomp/actions_avail";

/// Why the filter could not be built or installed.
#[derive(Debug, thiserror::Error)]
pub enum SyscallFilterError {
    /// seccompiler has no filter for this architecture.
    #[error("no seccomp filter is built for the architecture {0}")]
    Architecture(String),
    /// seccompiler refused the rules or could not compile them.
    #[error("the seccomp filter cannot be built: {0}")]
    Build(#[from] seccompiler::BackendError),
    /// The kernel refused the filter.
    #[error("the kernel refused the seccomp filter: {0}")]
    Install(#[from] seccompiler::Error),
}

/// The conditions "argument `index` is a pid (or id) other than 0 and `own`".
fn other_than_own(index: u8, own: u32) -> Result<Vec<SeccompCondition>, SyscallFilterError> {
    Ok(vec![
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, 0)?,
        SeccompCondition::new(
            index,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            u64::from(own),
        )?,
    ])
}

/// The condition "argument `index` equals `value`".
fn equals(index: u8, value: u64) -> Result<SeccompCondition, SyscallFilterError> {
    Ok(SeccompCondition::new(
        index,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        value,
    )?)
}

/// The rules of `setpriority` or `ioprio_set` (`which` then `who`): refused on
/// another process or group, and on a whole user.
fn which_who_rules(
    process: u64,
    group: u64,
    user: u64,
    own: u32,
) -> Result<Vec<SeccompRule>, SyscallFilterError> {
    let mut rules = Vec::new();
    for which in [process, group] {
        let mut conditions = vec![equals(0, which)?];
        conditions.extend(other_than_own(1, own)?);
        rules.push(SeccompRule::new(conditions)?);
    }
    rules.push(SeccompRule::new(vec![equals(0, user)?])?);
    Ok(rules)
}

/// The refusal rules of a command whose pid is `own`, by syscall number; `network`:
/// whether it may create sockets of every domain.
fn rules(own: u32, network: bool) -> Result<BTreeMap<i64, Vec<SeccompRule>>, SyscallFilterError> {
    let mut rules = BTreeMap::new();
    let mut prlimit = other_than_own(0, own)?;
    prlimit.push(SeccompCondition::new(
        2,
        SeccompCmpArgLen::Qword,
        SeccompCmpOp::Ne,
        0,
    )?);
    rules.insert(libc::SYS_prlimit64, vec![SeccompRule::new(prlimit)?]);
    rules.insert(
        libc::SYS_setpriority,
        which_who_rules(PRIO_PROCESS, PRIO_PGRP, PRIO_USER, own)?,
    );
    rules.insert(
        libc::SYS_ioprio_set,
        which_who_rules(IOPRIO_WHO_PROCESS, IOPRIO_WHO_PGRP, IOPRIO_WHO_USER, own)?,
    );
    for pid_first in [
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setattr,
        libc::SYS_sched_setaffinity,
        libc::SYS_migrate_pages,
        libc::SYS_move_pages,
    ] {
        rules.insert(pid_first, vec![SeccompRule::new(other_than_own(0, own)?)?]);
    }
    if !network {
        let unix = u64::try_from(libc::AF_UNIX).unwrap_or(1);
        rules.insert(
            libc::SYS_socket,
            vec![SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Ne,
                unix,
            )?])?],
        );
        // An empty rule list matches every call.
        rules.insert(libc::SYS_io_uring_setup, Vec::new());
    }
    add_x32_twins(&mut rules);
    Ok(rules)
}

/// On x86_64 the same architecture value also carries the x32 ABI, whose numbers
/// have bit 30 set: the same rules apply under those numbers (`move_pages` has an
/// x32 number of its own).
#[cfg(target_arch = "x86_64")]
fn add_x32_twins(rules: &mut BTreeMap<i64, Vec<SeccompRule>>) {
    const X32_SYSCALL_BIT: i64 = 0x4000_0000;
    const X32_MOVE_PAGES: i64 = 533;
    let twins: Vec<(i64, Vec<SeccompRule>)> = rules
        .iter()
        .map(|(&number, rule)| {
            let x32 = if number == libc::SYS_move_pages {
                X32_MOVE_PAGES
            } else {
                number
            };
            (X32_SYSCALL_BIT | x32, rule.clone())
        })
        .collect();
    rules.extend(twins);
}

#[cfg(not(target_arch = "x86_64"))]
fn add_x32_twins(_rules: &mut BTreeMap<i64, Vec<SeccompRule>>) {}

/// The architecture this binary runs on, as seccompiler names it.
fn target_arch() -> Result<TargetArch, SyscallFilterError> {
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| SyscallFilterError::Architecture(std::env::consts::ARCH.to_string()))
}

/// The compiled filter of a command whose pid is `own`; `network`: whether it may
/// create sockets of every domain.
pub fn build(own: u32, network: bool) -> Result<BpfProgram, SyscallFilterError> {
    let filter = SeccompFilter::new(
        rules(own, network)?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        target_arch()?,
    )?;
    Ok(filter.try_into()?)
}

/// Installs the filter on this process (and so on what it execs), for good. Sets
/// `no_new_privs` (which Landlock has set already).
pub fn install_on_self(network: bool) -> Result<(), SyscallFilterError> {
    let program = build(std::process::id(), network)?;
    seccompiler::apply_filter(&program)?;
    Ok(())
}

/// Whether the filter holds on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyscallFilterSupport {
    /// Whether commands get the filter: the kernel has seccomp filters that may
    /// return an errno, and the filter builds for this architecture.
    pub enforced: bool,
    /// Why not, when it is not.
    pub missing: Option<String>,
}

/// Why the kernel cannot run the filter, or `None` when it can: it needs seccomp
/// filters that may return an errno (Linux 3.5; listed since 4.14).
pub fn kernel_lacks_filters() -> Option<String> {
    match std::fs::read_to_string(ACTIONS_AVAIL) {
        Err(error) => Some(format!(
            "the kernel has no seccomp filters ({ACTIONS_AVAIL}: {error})"
        )),
        Ok(actions) if !actions.split_whitespace().any(|action| action == "errno") => {
            Some(format!(
                "the kernel's seccomp filters cannot return an errno ({ACTIONS_AVAIL}: {})",
                actions.trim()
            ))
        }
        Ok(_) => None,
    }
}

/// Whether the kernel can filter system calls with an errno and the filter builds
/// here (a filter is built, never installed: this process stays unfiltered).
pub fn probe() -> SyscallFilterSupport {
    let missing = kernel_lacks_filters().or_else(|| {
        build(std::process::id(), false)
            .err()
            .map(|error| error.to_string())
    });
    SyscallFilterSupport {
        enforced: missing.is_none(),
        missing,
    }
}

impl SyscallFilterSupport {
    /// What commands are not protected from without the filter, as one sentence;
    /// none when it holds.
    pub fn gap(&self) -> Option<String> {
        self.missing.as_ref().map(|why| {
            format!(
                "commands get no seccomp filter ({why}): they may lower the runtime's \
                 resource limits (prlimit), priority, scheduling and I/O priority, and a \
                 command without the web family may use UDP, raw sockets and netlink"
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_builds_for_this_architecture_with_and_without_network() {
        let own = std::process::id();
        let narrow = build(own, false).unwrap();
        let wide = build(own, true).unwrap();
        assert!(
            narrow.len() > wide.len(),
            "the socket rules add instructions"
        );
        let numbers = rules(own, false).unwrap();
        assert!(numbers.contains_key(&libc::SYS_prlimit64));
        assert!(numbers.contains_key(&libc::SYS_socket));
        assert!(!rules(own, true).unwrap().contains_key(&libc::SYS_socket));
        #[cfg(target_arch = "x86_64")]
        assert!(numbers.contains_key(&(0x4000_0000 | 533)), "x32 move_pages");
    }
}
