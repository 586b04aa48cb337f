//! A host whose `main` runs the limits helper's entry point first, as a host must:
//! the launcher takes its own binary (or a copy of it, which it probes) as the helper,
//! and the commands it starts run under the limits. Its own `main` (no test harness),
//! since the harness's `main` never calls `helper_main`.

// The test copies its binary and reads the commands' output.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::ExitCode;

use holon_gates::process::{Launcher, LauncherConfig, ResourceLimits, WorkingDir, limits};

fn main() -> ExitCode {
    if let Some(code) = limits::helper_main() {
        return code;
    }
    let this = std::env::current_exe().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Another file with the same program: not this process, so it is probed.
    let copy = dir.path().join("limits-helper-copy");
    std::fs::copy(&this, &copy).unwrap();
    for helper in [this, copy] {
        commands_run_under_the_limits(helper);
    }
    println!("limits_helper: ok");
    ExitCode::SUCCESS
}

fn commands_run_under_the_limits(helper: std::path::PathBuf) {
    let limits = ResourceLimits::parse("fsize=1M,core=0,cpu=7,pids=none,mem=none").unwrap();
    let config = LauncherConfig {
        limits,
        limiter: Some(helper.clone()),
        ..LauncherConfig::default()
    };
    let launcher = Launcher::new(config)
        .unwrap_or_else(|error| panic!("{} is the helper: {error}", helper.display()));
    let workdir = WorkingDir::open(&std::env::temp_dir()).unwrap();
    let output = launcher
        .command("cat", &["/proc/self/limits"], &workdir)
        .unwrap()
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let limit = |name: &str| {
        text.lines()
            .find(|line| line.starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` in {text}"))
            .split_whitespace()
            .skip(name.split_whitespace().count())
            .take(2)
            .collect::<Vec<_>>()
    };
    assert_eq!(limit("Max file size"), ["1048576", "1048576"], "{text}");
    assert_eq!(limit("Max cpu time"), ["7", "7"], "{text}");
    assert_eq!(limit("Max core file size"), ["0", "0"], "{text}");
}
