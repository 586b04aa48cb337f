//! The processes a task's command left running in its process group, read from
//! `/proc`. Background jobs that redirected their output hold no stream of the task,
//! so only the group tells that they are still there.
//!
//! A group id is the leader's pid, and the kernel may give that number to a new group
//! once every member is gone. So the members are recorded (pid and start time) while
//! the leader is still an unreaped zombie, when the number cannot have been reused, and
//! the group is signalled later only while one of those very processes is still in it:
//! then the group has existed without a break and is still the task's.

use std::path::Path;

/// A process, told apart from a later one with the same pid by its start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pid: u32,
    /// Clock ticks after boot at which it started (`/proc/<pid>/stat`, field 22).
    started: u64,
}

/// The live processes of group `pgid`, leader excluded. Empty where there is no
/// `/proc`.
pub fn members(pgid: u32) -> Vec<Member> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != pgid)
        .filter_map(|pid| read_stat(pid).filter(|stat| stat.pgid == pgid && stat.alive))
        .map(|stat| stat.member)
        .collect()
}

/// Whether one of `recorded` is still the same live process in group `pgid`.
pub fn still_running(pgid: u32, recorded: &[Member]) -> bool {
    recorded.iter().any(|member| {
        read_stat(member.pid).is_some_and(|stat| {
            stat.alive && stat.pgid == pgid && stat.member.started == member.started
        })
    })
}

/// When the process `pid` started (clock ticks after boot); none when it is gone.
pub fn start_time(pid: u32) -> Option<u64> {
    read_stat(pid).map(|stat| stat.member.started)
}

/// Whether the process group a task's leader `pgid`, started at `leader_started`,
/// made is still there: the leader itself (same pid and start time, still leading
/// its group), or, when it has exited, a process of the group that started no
/// earlier than it. A group id is not reused while a member of the group lives, and
/// a later group with that id would have its leader, a process with that pid but
/// another start time.
pub fn task_group_alive(pgid: u32, leader_started: u64) -> bool {
    match read_stat(pgid) {
        Some(other) if other.member.started != leader_started => false,
        Some(leader) if leader.alive && leader.pgid == pgid => true,
        // The leader exited (or left its group): what it started may still run.
        _ => members(pgid)
            .iter()
            .any(|member| member.started >= leader_started),
    }
}

/// What `/proc/<pid>/stat` says of a process.
struct Stat {
    member: Member,
    pgid: u32,
    /// Not a zombie: something is left to end.
    alive: bool,
}

fn read_stat(pid: u32) -> Option<Stat> {
    let text =
        std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")).ok()?;
    parse_stat(pid, &text)
}

/// Parses `pid (comm) state ppid pgrp session ... starttime ...`. The command name
/// may hold spaces and parentheses, so fields are counted from its last `)`.
fn parse_stat(pid: u32, text: &str) -> Option<Stat> {
    let after_name = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Field 3 (state) is fields[0]; field 5 (pgrp) fields[2]; field 22 (starttime) fields[19].
    let state = fields.first()?;
    Some(Stat {
        member: Member {
            pid,
            started: fields.get(19)?.parse().ok()?,
        },
        pgid: fields.get(2)?.parse().ok()?,
        alive: !matches!(*state, "Z" | "X" | "x"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_stat_line_whose_command_name_has_spaces_and_parentheses() {
        let line = "4242 (my (odd) name) S 1 4240 4240 0 -1 4194560 95 0 0 0 0 0 0 0 20 0 1 0 \
                    1234567 2875392 214 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0";
        let stat = parse_stat(4242, line).unwrap();
        assert_eq!(stat.pgid, 4240);
        assert_eq!(stat.member.started, 1_234_567);
        assert!(stat.alive);
        let zombie = line.replace(") S ", ") Z ");
        assert!(!parse_stat(4242, &zombie).unwrap().alive);
        assert!(parse_stat(4242, "4242 (cut").is_none());
        assert!(parse_stat(4242, "4242 (short) S 1 2").is_none());
    }

    #[test]
    fn finds_the_members_of_a_group_and_only_while_they_run() {
        use std::os::unix::process::CommandExt;
        let mut leader = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = leader.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let found = loop {
            let found = members(pgid);
            if !found.is_empty() || std::time::Instant::now() > deadline {
                break found;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        assert_eq!(found.len(), 1, "the sleep, not the leader: {found:?}");
        assert!(still_running(pgid, &found));
        let moved = Member {
            started: found[0].started + 1,
            ..found[0]
        };
        assert!(
            !still_running(pgid, &[moved]),
            "another process with that pid"
        );
        assert!(!still_running(pgid + 1, &found), "another group");
        let group = rustix::process::Pid::from_raw(i32::try_from(pgid).unwrap()).unwrap();
        rustix::process::kill_process_group(group, rustix::process::Signal::KILL).unwrap();
        leader.wait().unwrap();
        while still_running(pgid, &found) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!still_running(pgid, &found));
    }
}
